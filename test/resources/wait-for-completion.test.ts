/**
 * payments.waitForCompletion (README "Payments"; docs/service.md "Statuses": a mobile-money payment
 * stays pending until the operator decides it): polls until the status is neither pending nor processing,
 * with a growing interval, abortable, and APITimeoutError at the deadline.
 *
 * The waits between polls are recorded through a wrapper of the SDK's `sleep`, so the growth of the
 * interval is asserted on the values asked for, not on measured time (no timed assertions). The
 * wrapper sleeps at most `cap.ms` for real, to keep the suite fast.
 */
import { delay, HttpResponse, http } from 'msw';
import { APITimeoutError, APIUserAbortError, InvalidParamsError, NotFoundError } from 'payments-sdk';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { caught } from '../helpers/caught.js';
import { makeClient } from '../helpers/client.js';
import { API_URL, payment } from '../helpers/fixtures.js';
import { useMswServer } from '../helpers/msw.js';
import { useRequestLog } from '../helpers/request-log.js';

const recorded = vi.hoisted(() => ({ waits: [] as number[], cap: { ms: 1 } }));

vi.mock('../../src/internal/sleep.js', async (importOriginal) => {
  const real = await importOriginal<typeof import('../../src/internal/sleep.js')>();
  return {
    ...real,
    sleep: (ms: number, signal?: AbortSignal) => {
      recorded.waits.push(ms);
      return real.sleep(Math.min(ms, recorded.cap.ms), signal);
    },
  };
});

const server = useMswServer();
const log = useRequestLog(server);
const UUID = '9b2f8a1e-3c4d-4e5f-8a9b-0c1d2e3f4a5b';

beforeEach(() => {
  recorded.waits.length = 0;
  recorded.cap.ms = 1;
});

/** Answers the statuses in order, then repeats the last one. */
function statuses(...sequence: string[]) {
  let n = 0;
  server.use(
    http.get(`${API_URL}/payments/:uuid`, () => {
      const status = sequence[Math.min(n, sequence.length - 1)] ?? 'pending';
      n++;
      return HttpResponse.json({ data: payment({ status, failure_reason: status === 'failed' ? 'insufficient_funds' : null }) });
    }),
  );
}

describe('payments.waitForCompletion', () => {
  it('polls GET /api/v1/payments/{uuid} through pending and processing, and returns the settled payment', async () => {
    statuses('pending', 'pending', 'processing', 'succeeded');
    const result = await makeClient().payments.waitForCompletion(UUID, { interval: 10, timeout: 60_000 });
    expect(result.status).toBe('succeeded');
    expect(log).toHaveLength(4);
    expect(log.every((r) => r.method === 'GET' && r.url.href === `${API_URL}/payments/${UUID}`)).toBe(true);
  });

  it('returns at once when the first read is already final (no wait)', async () => {
    statuses('failed');
    const result = await makeClient().payments.waitForCompletion(UUID, { interval: 10 });
    expect(result.status).toBe('failed');
    expect(result.failure_reason).toBe('insufficient_funds');
    expect(log).toHaveLength(1);
    expect(recorded.waits).toEqual([]);
  });

  it.each(['canceled', 'expired', 'refunded', 'disputed', 'on_hold'])(
    '%s is final (anything but pending/processing, new states included)',
    async (status) => {
      statuses('pending', status);
      expect((await makeClient().payments.waitForCompletion(UUID, { interval: 10 })).status).toBe(status);
    },
  );

  it('the wait grows ×1.5 from interval, up to 15 s', async () => {
    statuses('pending', 'pending', 'pending', 'pending', 'succeeded');
    await makeClient().payments.waitForCompletion(UUID, { interval: 100, timeout: 60_000 });
    expect(recorded.waits).toEqual([100, 150, 225, 337.5]);

    recorded.waits.length = 0;
    statuses('pending', 'pending', 'pending', 'succeeded');
    await makeClient().payments.waitForCompletion(UUID, { interval: 9_000, timeout: 600_000 });
    expect(recorded.waits).toEqual([9_000, 13_500, 15_000]);
  });

  it('defaults: 2 s first interval', async () => {
    statuses('pending', 'succeeded');
    await makeClient().payments.waitForCompletion(UUID);
    expect(recorded.waits).toEqual([2_000]);
  });

  it('the deadline → APITimeoutError naming the last status, and polling stops', async () => {
    statuses('pending');
    recorded.cap.ms = 5;
    const error = await caught(() => makeClient().payments.waitForCompletion(UUID, { interval: 5, timeout: 60 }));
    expect(error).toBeInstanceOf(APITimeoutError);
    expect((error as Error).message).toMatch(/still pending after 60 ms/);
    const polls = log.length;
    expect(polls).toBeGreaterThan(0);
    await new Promise((resolve) => setTimeout(resolve, 30));
    expect(log).toHaveLength(polls);
  });

  it('a poll that never answers is cut off at the deadline with APITimeoutError', async () => {
    server.use(
      http.get(`${API_URL}/payments/:uuid`, async () => {
        await delay('infinite');
        return HttpResponse.json({});
      }),
    );
    const error = await caught(() => makeClient().payments.waitForCompletion(UUID, { interval: 5, timeout: 50 }));
    expect(error).toBeInstanceOf(APITimeoutError);
    expect((error as Error).message).toMatch(/not read once/);
  });

  it('the caller signal aborts a wait between polls → APIUserAbortError, no further request', async () => {
    statuses('pending');
    recorded.cap.ms = 60_000; // a real, long wait: only the abort can end it
    const controller = new AbortController();
    server.events.on('response:mocked', () => setTimeout(() => controller.abort(new Error('customer left')), 5));
    const error = await caught(() => makeClient().payments.waitForCompletion(UUID, { interval: 60_000, signal: controller.signal }));
    server.events.removeAllListeners('response:mocked');
    expect(error).toBeInstanceOf(APIUserAbortError);
    expect(log).toHaveLength(1);
  });

  it('a signal aborted before the call → APIUserAbortError', async () => {
    statuses('pending');
    const controller = new AbortController();
    controller.abort();
    expect(await caught(() => makeClient().payments.waitForCompletion(UUID, { signal: controller.signal }))).toBeInstanceOf(
      APIUserAbortError,
    );
  });

  it('the caller signal aborts a poll in flight → APIUserAbortError (not a timeout)', async () => {
    server.use(
      http.get(`${API_URL}/payments/:uuid`, async () => {
        await delay('infinite');
        return HttpResponse.json({});
      }),
    );
    const controller = new AbortController();
    server.events.on('request:start', () => setTimeout(() => controller.abort(), 5));
    const error = await caught(() => makeClient().payments.waitForCompletion(UUID, { timeout: 60_000, signal: controller.signal }));
    server.events.removeAllListeners('request:start');
    expect(error).toBeInstanceOf(APIUserAbortError);
  });

  it('a 404 while polling surfaces as NotFoundError', async () => {
    server.use(http.get(`${API_URL}/payments/:uuid`, () => HttpResponse.json({ message: 'Paiement introuvable.' }, { status: 404 })));
    expect(await caught(() => makeClient().payments.waitForCompletion(UUID, { interval: 5 }))).toBeInstanceOf(NotFoundError);
  });

  it.each([
    ['interval 0 (would never grow: a busy loop)', { interval: 0 }, ['interval']],
    ['a negative interval', { interval: -5 }, ['interval']],
    ['a NaN timeout', { timeout: Number.NaN }, ['timeout']],
    ['an interval longer than a timer holds (it would fire at once)', { interval: 2 ** 31 }, ['interval']],
    ['both bad', { interval: Number.POSITIVE_INFINITY, timeout: 0 }, ['interval', 'timeout']],
  ])('refuses %s before sending', async (_label, options, fields) => {
    const error = await caught(() => makeClient().payments.waitForCompletion(UUID, options));
    expect(error).toBeInstanceOf(InvalidParamsError);
    expect((error as InvalidParamsError).issues.map((i) => i.path.join('.'))).toEqual(fields);
    expect(log).toHaveLength(0);
  });

  it('an empty uuid is refused before sending', async () => {
    expect(await caught(() => makeClient().payments.waitForCompletion(''))).toBeInstanceOf(InvalidParamsError);
    expect(log).toHaveLength(0);
  });
});
