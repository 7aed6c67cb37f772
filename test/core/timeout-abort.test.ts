/**
 * Per-attempt timeout (default 30 s, per client, per request) and the caller's AbortSignal
 * (README "Configuration", "How requests are sent").
 */
import { delay, HttpResponse, http } from 'msw';
import { APITimeoutError, APIUserAbortError, InternalServerError } from 'payments-sdk';
import { describe, expect, it, vi } from 'vitest';
import { caught } from '../helpers/caught.js';
import { makeClient } from '../helpers/client.js';
import { API_URL, chargeParams, payment } from '../helpers/fixtures.js';
import { useMswServer } from '../helpers/msw.js';

const server = useMswServer();

/** Each attempt waits `waits[i]` ms (the last value repeats) before answering 200. */
function slow(method: 'get' | 'post', path: string, waits: number[]) {
  const state = { attempts: 0, keys: [] as (string | null)[] };
  server.use(
    http[method](`${API_URL}${path}`, async ({ request }) => {
      state.keys.push(request.headers.get('idempotency-key'));
      const wait = waits[Math.min(state.attempts, waits.length - 1)] ?? 0;
      state.attempts += 1;
      if (wait > 0) await delay(wait);
      return HttpResponse.json({ data: payment() }, { status: method === 'post' ? 201 : 200 });
    }),
  );
  return state;
}

/** A fetch that never answers, but rejects like fetch when its signal aborts. */
function hangingFetch() {
  return vi.fn(
    (input: RequestInfo | URL, init?: RequestInit) =>
      new Promise<Response>((_resolve, reject) => {
        const signal = init?.signal ?? (input instanceof Request ? input.signal : undefined);
        signal?.addEventListener('abort', () => reject(signal.reason), { once: true });
      }),
  );
}

describe('timeout', () => {
  it('defaults to 30 s per attempt (fake clock)', async () => {
    vi.useFakeTimers();
    try {
      const customFetch = hangingFetch();
      const client = makeClient({ fetch: customFetch, maxRetries: 0 });
      const done = client.payments.retrieve('p-1').catch((e: unknown) => e);
      await vi.advanceTimersByTimeAsync(29_999);
      expect(customFetch).toHaveBeenCalledTimes(1);
      let settled = false;
      void done.then(() => {
        settled = true;
      });
      await vi.advanceTimersByTimeAsync(0);
      expect(settled).toBe(false);
      await vi.advanceTimersByTimeAsync(1);
      expect(await done).toBeInstanceOf(APITimeoutError);
    } finally {
      vi.useRealTimers();
    }
  });

  it('applies per attempt: each retry gets the whole timeout again (fake clock)', async () => {
    vi.useFakeTimers();
    try {
      const customFetch = hangingFetch();
      const client = makeClient({ fetch: customFetch, timeout: 1_000, maxRetries: 2 });
      const done = client.payments.retrieve('p-1').catch((e: unknown) => e);
      await vi.advanceTimersByTimeAsync(1_000);
      await vi.advanceTimersByTimeAsync(10); // backoff (≤ 4 ms in makeClient)
      expect(customFetch).toHaveBeenCalledTimes(2);
      // The second attempt started at 1 000 + backoff (≤ 4 ms): it times out at ≈ 2 001–2 004.
      await vi.advanceTimersByTimeAsync(980);
      expect(customFetch).toHaveBeenCalledTimes(2);
      await vi.advanceTimersByTimeAsync(30);
      expect(customFetch).toHaveBeenCalledTimes(3);
      await vi.advanceTimersByTimeAsync(1_000);
      expect(await done).toBeInstanceOf(APITimeoutError);
    } finally {
      vi.useRealTimers();
    }
  });

  it('throws APITimeoutError after 1 + maxRetries slow attempts', async () => {
    const state = slow('get', '/payments/:uuid', [5_000]);
    const error = await caught(() => makeClient({ timeout: 100, maxRetries: 1 }).payments.retrieve('p-1'));
    expect(error).toBeInstanceOf(APITimeoutError);
    expect((error as Error).message).toMatch(/100 ms/);
    // APITimeoutError carries a `cause` (a TimeoutError, as AbortSignal.timeout gives).
    expect((error as Error).cause).toMatchObject({ name: 'TimeoutError' });
    expect(state.attempts).toBe(2);
  });

  it('retries a timed-out attempt and succeeds when the next one is quick', async () => {
    const state = slow('post', '/payments', [5_000, 0]);
    const { data, idempotencyKey } = await makeClient({ timeout: 400 }).payments.create(chargeParams).withResponse();
    expect(data.uuid).toBe(payment().uuid);
    expect(state.attempts).toBe(2);
    expect(state.keys).toEqual([idempotencyKey, idempotencyKey]);
  });

  it('takes a per-request timeout shorter than the client one', async () => {
    const state = slow('get', '/payments/:uuid', [5_000]);
    const error = await caught(() => makeClient({ timeout: 30_000 }).payments.retrieve('p-1', { timeout: 100, maxRetries: 0 }));
    expect(error).toBeInstanceOf(APITimeoutError);
    expect(state.attempts).toBe(1);
  });

  it('takes a per-request timeout longer than the client one', async () => {
    const state = slow('get', '/payments/:uuid', [150]);
    const found = await makeClient({ timeout: 50, maxRetries: 0 }).payments.retrieve('p-1', { timeout: 5_000 });
    expect(found.uuid).toBe(payment().uuid);
    expect(state.attempts).toBe(1);
  });
});

describe('AbortSignal', () => {
  it('aborting mid-request throws APIUserAbortError with the reason as cause, and nothing is retried', async () => {
    const state = slow('get', '/payments/:uuid', [5_000]);
    const controller = new AbortController();
    const reason = new Error('user left the page');
    const pending = caught(() => makeClient({ maxRetries: 2 }).payments.retrieve('p-1', { signal: controller.signal }));
    await vi.waitFor(() => expect(state.attempts).toBe(1));
    controller.abort(reason);
    const error = await pending;
    expect(error).toBeInstanceOf(APIUserAbortError);
    expect((error as Error).cause).toBe(reason);
    await delay(30);
    expect(state.attempts).toBe(1);
  });

  it('aborting during the wait before a retry stops there', async () => {
    let attempts = 0;
    server.use(
      http.get(`${API_URL}/payments/:uuid`, () => {
        attempts += 1;
        return new HttpResponse('busy', { status: 503, headers: { 'Retry-After': '30' } });
      }),
    );
    const controller = new AbortController();
    const pending = caught(() => makeClient().payments.retrieve('p-1', { signal: controller.signal }));
    await vi.waitFor(() => expect(attempts).toBe(1));
    await delay(20);
    controller.abort();
    const error = await pending;
    expect(error).toBeInstanceOf(APIUserAbortError);
    expect(error).not.toBeInstanceOf(InternalServerError);
    expect(attempts).toBe(1);
  });

  it('an already-aborted signal sends nothing', async () => {
    const state = slow('post', '/payments', [0]);
    const error = await caught(() => makeClient().payments.create(chargeParams, { signal: AbortSignal.abort() }));
    expect(error).toBeInstanceOf(APIUserAbortError);
    expect(state.attempts).toBe(0);
  });

  it('a signal that never fires changes nothing', async () => {
    slow('get', '/payments/:uuid', [0]);
    const found = await makeClient().payments.retrieve('p-1', { signal: new AbortController().signal });
    expect(found.uuid).toBe(payment().uuid);
  });

  it('an AbortSignal.timeout() shorter than the timeout is the caller aborting, not a retried timeout', async () => {
    const state = slow('get', '/payments/:uuid', [5_000]);
    const error = await caught(() => makeClient({ timeout: 10_000 }).payments.retrieve('p-1', { signal: AbortSignal.timeout(50) }));
    expect(error).toBeInstanceOf(APIUserAbortError);
    expect(state.attempts).toBe(1);
  });
});
