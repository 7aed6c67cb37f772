/**
 * The transport's own machinery (src/internal/transport.ts), beyond what retries.test.ts and
 * timeout-abort.test.ts check through msw: a `fetch` that ignores its signal, what is and is not
 * retried when a custom fetch throws, and that nothing (timers, abort listeners) outlives a call.
 */
import { getEventListeners } from 'node:events';
import { APIConnectionError, APITimeoutError, APIUserAbortError, InvalidParamsError } from 'payments-sdk';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { caught } from '../helpers/caught.js';
import { makeClient } from '../helpers/client.js';
import { payment } from '../helpers/fixtures.js';

afterEach(() => {
  vi.useRealTimers();
});

describe('a custom fetch that ignores its signal', () => {
  it('still times out per attempt and is retried (fake clock)', async () => {
    vi.useFakeTimers();
    // Never settles and never looks at init.signal: only the transport's own timer can end the attempt.
    const customFetch = vi.fn(() => new Promise<Response>(() => {}));
    const pending = caught(() => makeClient({ fetch: customFetch, timeout: 1_000, maxRetries: 1 }).payments.retrieve('p-1'));
    await vi.advanceTimersByTimeAsync(999);
    expect(customFetch).toHaveBeenCalledTimes(1);
    await vi.advanceTimersByTimeAsync(1 + 10 + 1_000);
    const error = await pending;
    expect(error).toBeInstanceOf(APITimeoutError);
    expect(customFetch).toHaveBeenCalledTimes(2);
  });

  it("still stops at once on the caller's abort", async () => {
    const customFetch = vi.fn(() => new Promise<Response>(() => {}));
    const controller = new AbortController();
    const pending = caught(() => makeClient({ fetch: customFetch }).payments.retrieve('p-1', { signal: controller.signal }));
    await vi.waitFor(() => expect(customFetch).toHaveBeenCalledTimes(1));
    const reason = new Error('shutting down');
    controller.abort(reason);
    const error = await pending;
    expect(error).toBeInstanceOf(APIUserAbortError);
    expect((error as Error).cause).toBe(reason);
    expect(customFetch).toHaveBeenCalledTimes(1);
  });

  it('gets an AbortSignal that fires when the attempt times out, so a real fetch is cancelled', async () => {
    let seen: AbortSignal | undefined;
    const customFetch = vi.fn((input: RequestInfo | URL, init?: RequestInit) => {
      seen = init?.signal ?? (input instanceof Request ? input.signal : undefined);
      return new Promise<Response>(() => {});
    });
    await caught(() => makeClient({ fetch: customFetch, timeout: 20, maxRetries: 0 }).payments.retrieve('p-1'));
    expect(seen?.aborted).toBe(true);
  });
});

describe('what a custom fetch throws', () => {
  it('a TypeError (how fetch reports a network error) is retried', async () => {
    const customFetch = vi.fn(async () => {
      throw new TypeError('fetch failed');
    });
    const error = await caught(() => makeClient({ fetch: customFetch, maxRetries: 2 }).payments.retrieve('p-1'));
    expect(error).toBeInstanceOf(APIConnectionError);
    expect((error as Error).message).toMatch(/^Connection error on GET .*: fetch failed$/);
    expect(customFetch).toHaveBeenCalledTimes(3);
  });

  it('another error (a bug in the custom fetch) is not retried, and is kept as the cause', async () => {
    const bug = new RangeError('proxy misconfigured');
    const customFetch = vi.fn(async () => {
      throw bug;
    });
    const error = await caught(() => makeClient({ fetch: customFetch, maxRetries: 2 }).payments.retrieve('p-1'));
    expect(error).toBeInstanceOf(APIConnectionError);
    expect((error as Error).cause).toBe(bug);
    expect((error as Error).message).toContain('RangeError: proxy misconfigured');
    expect(customFetch).toHaveBeenCalledTimes(1);
  });
});

describe('nothing outlives a call', () => {
  it('no timer is left pending after a success, a refusal or a retried failure (fake clock)', async () => {
    vi.useFakeTimers();
    let n = 0;
    const answers = [
      () => Response.json({ data: payment() }),
      () => Response.json({ message: 'No query results.' }, { status: 404 }),
      () => new Response('busy', { status: 503 }),
      () => Response.json({ data: payment() }),
    ];
    const client = makeClient({ fetch: async () => (answers[n++] as () => Response)() });
    await client.payments.retrieve('p-1');
    expect(vi.getTimerCount()).toBe(0);
    await caught(() => client.payments.retrieve('p-1'));
    expect(vi.getTimerCount()).toBe(0);
    const retried = client.payments.retrieve('p-1');
    await vi.advanceTimersByTimeAsync(10);
    await retried;
    expect(n).toBe(4);
    expect(vi.getTimerCount()).toBe(0);
  });

  it("no abort listener is left on the caller's signal, however many calls share it", async () => {
    const controller = new AbortController();
    let n = 0;
    const client = makeClient({
      fetch: async () => (n++ % 2 === 0 ? new Response('busy', { status: 503 }) : Response.json({ data: payment() })),
    });
    for (let i = 0; i < 20; i++) await client.payments.retrieve('p-1', { signal: controller.signal });
    expect(n).toBe(40);
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0);
  });
});

describe('a body that cannot be sent as JSON', () => {
  it('is refused as bad input, naming the reason, and nothing is sent', async () => {
    const customFetch = vi.fn(async () => Response.json({ data: {} }, { status: 201 }));
    const cyclic: Record<string, unknown> = { order: 1042 };
    cyclic.self = cyclic;
    for (const metadata of [{ big: 10n }, cyclic]) {
      const error = await caught(() =>
        makeClient({ fetch: customFetch }).checkoutSessions.create({ amount: 5000, currency: 'XOF', metadata } as never),
      );
      expect(error).toBeInstanceOf(InvalidParamsError);
      expect((error as Error).message).toMatch(/cannot be sent as JSON \(.+\)\. Nothing was sent\.$/);
    }
    expect(customFetch).not.toHaveBeenCalled();
  });
});
