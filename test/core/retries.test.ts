/**
 * Retries as docs/requests.md "Retries" describes them: connection failures, timeouts, 408,
 * 429, 500, 502, 503, 504 are retried up to `maxRetries` (default 2); other 4xx never; exponential
 * backoff with jitter; `Retry-After` (seconds or HTTP date) honoured, capped at 60 s.
 */
import { HttpResponse, http } from 'msw';
import {
  APIConnectionError,
  APIError,
  AuthenticationError,
  BadRequestError,
  IdempotencyConflictError,
  InternalServerError,
  NotFoundError,
  PermissionDeniedError,
  RateLimitError,
  UnprocessableEntityError,
} from 'payments-sdk';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { backoffDelay } from '../../src/internal/transport.js';
import { caught } from '../helpers/caught.js';
import { makeClient } from '../helpers/client.js';
import { API_URL, chargeParams, payment } from '../helpers/fixtures.js';
import { useMswServer } from '../helpers/msw.js';

const server = useMswServer();

/** Answers `failures` in turn, then 200 with a payment; counts the attempts. */
function sequence(method: 'get' | 'post', path: string, failures: (() => Response)[]) {
  const state = { attempts: 0, keys: [] as (string | null)[] };
  server.use(
    http[method](`${API_URL}${path}`, ({ request }) => {
      state.keys.push(request.headers.get('idempotency-key'));
      const failure = failures[state.attempts];
      state.attempts += 1;
      if (failure) return failure();
      return HttpResponse.json({ data: payment() }, { status: method === 'post' ? 201 : 200 });
    }),
  );
  return state;
}

const status =
  (code: number, body: Record<string, string> = { message: `status ${code}` }) =>
  () =>
    HttpResponse.json(body, { status: code });

describe('retried statuses', () => {
  it.each([408, 429, 500, 502, 503, 504])('retries %i and succeeds on the third attempt (default maxRetries 2)', async (code) => {
    const state = sequence('get', '/payments/:uuid', [status(code), status(code)]);
    const found = await makeClient().payments.retrieve('p-1');
    expect(found.uuid).toBe(payment().uuid);
    expect(state.attempts).toBe(3);
  });

  it.each([
    [408, APIError],
    [429, RateLimitError],
    [500, InternalServerError],
    [502, InternalServerError],
    [503, InternalServerError],
    [504, InternalServerError],
  ])('gives up on %i after 1 + maxRetries attempts and throws %o', async (code, cls) => {
    const state = sequence(
      'get',
      '/payments/:uuid',
      Array.from({ length: 10 }, () => status(code)),
    );
    const error = await caught(() => makeClient().payments.retrieve('p-1'));
    expect(error).toBeInstanceOf(cls);
    expect((error as APIError).status).toBe(code);
    expect(state.attempts).toBe(3);
  });

  it.each([
    [400, BadRequestError],
    [401, AuthenticationError],
    [403, PermissionDeniedError],
    [404, NotFoundError],
    [409, IdempotencyConflictError],
    [422, UnprocessableEntityError],
    [405, APIError],
    [413, APIError],
  ])('never retries %i', async (code, cls) => {
    const state = sequence(
      'post',
      '/payments',
      Array.from({ length: 10 }, () => status(code)),
    );
    const error = await caught(() => makeClient().payments.create(chargeParams));
    expect(error).toBeInstanceOf(cls);
    expect(state.attempts).toBe(1);
  });

  it('never retries a 501 Not Implemented (not a transient failure) but maps it to InternalServerError', async () => {
    const state = sequence(
      'get',
      '/payments/:uuid',
      Array.from({ length: 10 }, () => status(501)),
    );
    const error = await caught(() => makeClient().payments.retrieve('p-1'));
    expect(error).toBeInstanceOf(InternalServerError);
    expect(state.attempts).toBe(1);
  });
});

describe('connection failures', () => {
  it('retries a failed connection and succeeds', async () => {
    const state = sequence('get', '/payments/:uuid', [() => HttpResponse.error(), () => HttpResponse.error()]);
    const found = await makeClient().payments.retrieve('p-1');
    expect(found.uuid).toBe(payment().uuid);
    expect(state.attempts).toBe(3);
  });

  it('throws APIConnectionError with a cause after 1 + maxRetries failed connections', async () => {
    const state = sequence(
      'get',
      '/payments/:uuid',
      Array.from({ length: 10 }, () => () => HttpResponse.error()),
    );
    const error = await caught(() => makeClient().payments.retrieve('p-1'));
    expect(error).toBeInstanceOf(APIConnectionError);
    expect((error as Error).cause).toBeDefined();
    expect(state.attempts).toBe(3);
  });

  it('retries a creation after a connection failure, with the same Idempotency-Key', async () => {
    const state = sequence('post', '/payments', [() => HttpResponse.error()]);
    const { idempotencyKey } = await makeClient().payments.create(chargeParams).withResponse();
    expect(state.attempts).toBe(2);
    expect(state.keys).toEqual([idempotencyKey, idempotencyKey]);
  });

  it('retries a 2xx whose body is not JSON (a proxy page or a cut body)', async () => {
    const state = sequence('get', '/payments/:uuid', [() => new HttpResponse('<html>maintenance</html>', { status: 200 })]);
    const found = await makeClient().payments.retrieve('p-1');
    expect(found.uuid).toBe(payment().uuid);
    expect(state.attempts).toBe(2);
  });
});

describe('maxRetries', () => {
  it('is configurable per client', async () => {
    const none = sequence(
      'get',
      '/payments/:uuid',
      Array.from({ length: 10 }, () => status(503)),
    );
    await expect(makeClient({ maxRetries: 0 }).payments.retrieve('p-1')).rejects.toBeInstanceOf(InternalServerError);
    expect(none.attempts).toBe(1);
    const four = sequence(
      'get',
      '/payments/:uuid',
      Array.from({ length: 10 }, () => status(503)),
    );
    await expect(makeClient({ maxRetries: 4 }).payments.retrieve('p-1')).rejects.toBeInstanceOf(InternalServerError);
    expect(four.attempts).toBe(5);
  });

  it('is overridden per request, both up and down', async () => {
    const client = makeClient({ maxRetries: 2 });
    const down = sequence(
      'get',
      '/payments/:uuid',
      Array.from({ length: 10 }, () => status(503)),
    );
    await expect(client.payments.retrieve('p-1', { maxRetries: 0 })).rejects.toBeInstanceOf(InternalServerError);
    expect(down.attempts).toBe(1);
    const up = sequence(
      'post',
      '/payments',
      Array.from({ length: 10 }, () => status(502)),
    );
    await expect(client.payments.create(chargeParams, { maxRetries: 3 })).rejects.toBeInstanceOf(InternalServerError);
    expect(up.attempts).toBe(4);
    expect(new Set(up.keys).size).toBe(1);
  });
});

describe('backoff', () => {
  it('doubles from initialMs and caps at maxMs, before jitter', () => {
    const top = () => 0.999_999;
    const expected = [500, 1000, 2000, 4000, 8000, 8000, 8000];
    for (const [i, base] of expected.entries()) {
      expect(backoffDelay(i + 1, {}, top)).toBeCloseTo(base, 0);
      expect(backoffDelay(i + 1, {}, () => 0)).toBe(base / 2);
    }
    expect(backoffDelay(1, { initialMs: 100, maxMs: 250 }, () => 0)).toBe(50);
    expect(backoffDelay(3, { initialMs: 100, maxMs: 250 }, () => 0)).toBe(125);
  });

  it('is jittered within [50 %, 100 %] of the exponential delay, and not constant', () => {
    for (let attempt = 1; attempt <= 6; attempt += 1) {
      const base = Math.min(8000, 500 * 2 ** (attempt - 1));
      const samples = Array.from({ length: 200 }, () => backoffDelay(attempt));
      for (const delay of samples) {
        expect(delay).toBeGreaterThanOrEqual(base / 2);
        expect(delay).toBeLessThanOrEqual(base);
      }
      expect(new Set(samples).size).toBeGreaterThan(1);
    }
  });

  it('is the delay the client waits between attempts (fake clock)', async () => {
    vi.useFakeTimers();
    try {
      vi.spyOn(Math, 'random').mockReturnValue(0);
      const customFetch = vi.fn(async () => new Response('', { status: 503 }));
      const client = makeClient({ fetch: customFetch, retryBackoff: { initialMs: 1000, maxMs: 8000 }, maxRetries: 2 });
      const done = client.payments.retrieve('p-1').catch((e: unknown) => e);
      await vi.advanceTimersByTimeAsync(0);
      expect(customFetch).toHaveBeenCalledTimes(1);
      // First retry after 1000 ms × 0.5 (random 0), second after 2000 ms × 0.5.
      await vi.advanceTimersByTimeAsync(499);
      expect(customFetch).toHaveBeenCalledTimes(1);
      await vi.advanceTimersByTimeAsync(1);
      expect(customFetch).toHaveBeenCalledTimes(2);
      await vi.advanceTimersByTimeAsync(999);
      expect(customFetch).toHaveBeenCalledTimes(2);
      await vi.advanceTimersByTimeAsync(1);
      expect(customFetch).toHaveBeenCalledTimes(3);
      expect(await done).toBeInstanceOf(InternalServerError);
    } finally {
      vi.useRealTimers();
      vi.restoreAllMocks();
    }
  });
});

describe('Retry-After (fake clock: no real waiting)', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  /** A fetch answering `first` once, then 200; returns the fetch mock and the pending call. */
  function start(first: () => Response) {
    vi.useFakeTimers();
    vi.setSystemTime(new Date('2026-11-20T10:15:00Z'));
    let n = 0;
    const customFetch = vi.fn(async () => {
      n += 1;
      return n === 1 ? first() : Response.json({ data: payment() });
    });
    // Backoff alone would retry after ~1 ms: any longer wait comes from Retry-After.
    const client = makeClient({ fetch: customFetch });
    const done = client.payments.retrieve('p-1');
    return { customFetch, done };
  }

  it.each([408, 429, 500, 502, 503, 504])('waits the seconds of Retry-After on %i', async (code) => {
    const { customFetch, done } = start(() => new Response('', { status: code, headers: { 'Retry-After': '3' } }));
    await vi.advanceTimersByTimeAsync(2_999);
    expect(customFetch).toHaveBeenCalledTimes(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(customFetch).toHaveBeenCalledTimes(2);
    expect((await done).uuid).toBe(payment().uuid);
  });

  it('waits until the HTTP date of Retry-After', async () => {
    const at = new Date(Date.parse('2026-11-20T10:15:05Z')).toUTCString(); // 5 s after "now"
    const { customFetch, done } = start(() => new Response('', { status: 503, headers: { 'Retry-After': at } }));
    await vi.advanceTimersByTimeAsync(4_999);
    expect(customFetch).toHaveBeenCalledTimes(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(customFetch).toHaveBeenCalledTimes(2);
    await done;
  });

  it('retries at once on Retry-After: 0 and on a date in the past', async () => {
    const zero = start(() => new Response('', { status: 503, headers: { 'Retry-After': '0' } }));
    await vi.advanceTimersByTimeAsync(0);
    expect(zero.customFetch).toHaveBeenCalledTimes(2);
    await zero.done;
    vi.useRealTimers();
    const past = start(() => new Response('', { status: 429, headers: { 'Retry-After': 'Thu, 01 Jan 2026 00:00:00 GMT' } }));
    await vi.advanceTimersByTimeAsync(0);
    expect(past.customFetch).toHaveBeenCalledTimes(2);
    await past.done;
  });

  it.each([
    ['3600 seconds', '3600'],
    ['an HTTP date one day ahead', 'Sat, 21 Nov 2026 10:15:00 GMT'],
  ])('caps a Retry-After of %s at 60 s', async (_label, value) => {
    const { customFetch, done } = start(() => new Response('', { status: 429, headers: { 'Retry-After': value } }));
    await vi.advanceTimersByTimeAsync(59_999);
    expect(customFetch).toHaveBeenCalledTimes(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(customFetch).toHaveBeenCalledTimes(2);
    await done;
  });

  it('falls back to the backoff on an unreadable Retry-After', async () => {
    const { customFetch, done } = start(() => new Response('', { status: 503, headers: { 'Retry-After': 'soon' } }));
    await vi.advanceTimersByTimeAsync(10);
    expect(customFetch).toHaveBeenCalledTimes(2);
    await done;
  });

  it('does not retry a 4xx that sends Retry-After', async () => {
    const { customFetch, done } = start(() => new Response('', { status: 409, headers: { 'Retry-After': '1' } }));
    await expect(done).rejects.toBeInstanceOf(IdempotencyConflictError);
    await vi.advanceTimersByTimeAsync(5_000);
    expect(customFetch).toHaveBeenCalledTimes(1);
  });
});
