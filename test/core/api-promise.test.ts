/**
 * `APIPromise<T>` (README "Resources"): a real Promise of the data, with `.withResponse()`; the
 * request starts at the call; an unawaited failing call does not crash the process. Also the small
 * internals every call leans on: `sleep` and the mapping of an unexpected fetch failure.
 */
import { HttpResponse, http } from 'msw';
import { APIConnectionError, APIPromise, APIUserAbortError } from 'payments-sdk';
import { describe, expect, it, vi } from 'vitest';
import { sleep } from '../../src/internal/sleep.js';
import { caught } from '../helpers/caught.js';
import { makeClient } from '../helpers/client.js';
import { API_URL, payment } from '../helpers/fixtures.js';
import { useMswServer } from '../helpers/msw.js';

const server = useMswServer();

function answerPayment(status = 200) {
  let calls = 0;
  server.use(
    http.get(`${API_URL}/payments/:uuid`, () => {
      calls += 1;
      return status === 200 ? HttpResponse.json({ data: payment() }) : HttpResponse.json({ message: 'Introuvable.' }, { status });
    }),
  );
  return () => calls;
}

describe('APIPromise', () => {
  it('withResponse() gives the response as received: its url and status, body already read', async () => {
    answerPayment();
    const { data, response } = await makeClient().payments.retrieve('p-1').withResponse();
    expect(data.uuid).toBe(payment().uuid);
    expect(response.url).toBe(`${API_URL}/payments/p-1`);
    expect(response.status).toBe(200);
    expect(response.redirected).toBe(false);
  });

  it('is a Promise and an APIPromise; then/catch/finally give plain Promises of the data', async () => {
    answerPayment();
    const promise = makeClient().payments.retrieve('p-1');
    expect(promise).toBeInstanceOf(Promise);
    expect(promise).toBeInstanceOf(APIPromise);
    const derived = promise.then((p) => p.uuid);
    expect(derived).not.toBeInstanceOf(APIPromise);
    expect(await derived).toBe(payment().uuid);
    let finallyRan = false;
    const same = await promise.finally(() => {
      finallyRan = true;
    });
    expect(finallyRan).toBe(true);
    expect(same.uuid).toBe(payment().uuid);
    expect(await promise.catch(() => 'never')).toEqual(payment());
  });

  it('sends the request at the call, once, however often it is awaited', async () => {
    const calls = answerPayment();
    const promise = makeClient().payments.retrieve('p-1');
    await vi.waitFor(() => expect(calls()).toBe(1));
    await promise;
    await promise;
    await promise.withResponse();
    expect(calls()).toBe(1);
  });

  it('rejects through catch, then(undefined, f) and finally alike', async () => {
    answerPayment(404);
    const promise = makeClient().payments.retrieve('p-1');
    expect(await promise.catch((e: unknown) => (e as Error).message)).toBe('Introuvable.');
    expect(await promise.then(undefined, (e: unknown) => (e as Error).name)).toBe('NotFoundError');
    await expect(promise.finally(() => {})).rejects.toThrowError('Introuvable.');
  });

  it('a failing call nobody awaits does not raise an unhandled caught', async () => {
    const calls = answerPayment(404);
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown) => unhandled.push(reason);
    process.on('unhandledRejection', onUnhandled);
    try {
      makeClient().payments.retrieve('p-1');
      await vi.waitFor(() => expect(calls()).toBe(1));
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(unhandled).toEqual([]);
    } finally {
      process.off('unhandledRejection', onUnhandled);
    }
  });
});

describe('a fetch that fails in an unexpected way', () => {
  it('is an APIConnectionError with the failure as cause, and is not retried (it is not a network error)', async () => {
    const failure = new Error('proxy agent misconfigured');
    const customFetch = vi.fn(async () => {
      throw failure;
    });
    const error = await caught(() => makeClient({ fetch: customFetch }).payments.retrieve('p-1'));
    expect(error).toBeInstanceOf(APIConnectionError);
    expect((error as Error).cause).toBe(failure);
    expect((error as Error).message).toMatch(/proxy agent misconfigured/);
    expect(customFetch).toHaveBeenCalledTimes(1);
  });

  it('a fetch network failure ("fetch failed") is retried', async () => {
    const customFetch = vi.fn(async () => {
      throw new TypeError('fetch failed', { cause: Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' }) });
    });
    const error = await caught(() => makeClient({ fetch: customFetch }).payments.retrieve('p-1'));
    expect(error).toBeInstanceOf(APIConnectionError);
    expect((error as Error).message).toMatch(/ECONNRESET/);
    expect(customFetch).toHaveBeenCalledTimes(3);
  });
});

describe('sleep', () => {
  it('resolves after the delay (fake clock)', async () => {
    vi.useFakeTimers();
    try {
      let done = false;
      const pending = sleep(1_000).then(() => {
        done = true;
      });
      await vi.advanceTimersByTimeAsync(999);
      expect(done).toBe(false);
      await vi.advanceTimersByTimeAsync(1);
      await pending;
      expect(done).toBe(true);
    } finally {
      vi.useRealTimers();
    }
  });

  it('rejects with APIUserAbortError (cause: the reason) when the signal aborts, or at once if already aborted', async () => {
    const controller = new AbortController();
    const pending = sleep(60_000, controller.signal);
    controller.abort('stop');
    const error = await caught(() => pending);
    expect(error).toBeInstanceOf(APIUserAbortError);
    expect((error as Error).cause).toBe('stop');
    await expect(sleep(60_000, AbortSignal.abort())).rejects.toBeInstanceOf(APIUserAbortError);
  });
});
