/**
 * The pace of a bulk payout under a rate limit: the first throttle that names a wait pauses every
 * send and sets a pace; once paced, a throttle lowers the pace and holds back only the throttled row
 * for its `Retry-After`, so that runners sharing one limit (workers of one batch) keep it busy
 * instead of stopping each other. Rows another runner already finished are passed over without
 * waiting for the pace.
 */
import { PaymentsClient } from 'payments-sdk';
import { describe, expect, it, vi } from 'vitest';
import { AdaptiveConcurrency } from '../../src/bulk/concurrency.js';
import { memoryStore } from '../../src/stores/memory.js';
import { allPayouts, countByRow, liveClient, payoutMock, rows } from '../helpers/bulk.js';

describe('pacing under a rate limit', () => {
  it('once paced, a throttle that names a wait lowers the pace by 10 % and pauses nothing; before, it pauses every send', () => {
    const limit = new AdaptiveConcurrency(8);
    for (let i = 1; i <= 100; i++) limit.succeeded(9_000 + i * 10);
    expect(limit.wait(9_000)).toBe(0);
    limit.throttled(limit.epoch, 1000, 10_000);
    // 95 % of the 100 that succeeded in the second before; every send waits for the Retry-After.
    expect(limit.rate).toBeCloseTo(95, 5);
    expect(limit.pausedUntil).toBe(11_000);
    expect(limit.current).toBe(4);
    expect(limit.wait(11_000)).toBe(0);
    limit.throttled(limit.epoch, 1000, 11_500);
    expect(limit.rate).toBeCloseTo(85.5, 5);
    expect(limit.pausedUntil).toBe(11_000);
    expect(limit.current).toBe(2);
    expect(limit.wait(11_500)).toBe(0);
    expect(limit.wait(11_500)).toBeCloseTo(1000 / 85.5, 5);
    // A throttle of the same wave changes nothing more; an overload without a wait still pauses.
    limit.throttled(limit.epoch - 1, 1000, 11_600);
    expect(limit.rate).toBeCloseTo(85.5, 5);
    limit.throttled(limit.epoch, 500, 11_700);
    expect(limit.pausedUntil).toBe(12_200);
    expect(limit.rate).toBeCloseTo(85.5, 5);
  });

  it('four runners sharing one limit and one store keep it busy; a throttled row waits its Retry-After; one payout per row', async () => {
    const rate = 50;
    const n = 300;
    const mock = payoutMock({ rateLimit: { requests: rate, perMs: 1000 } });
    const attempts = new Map<string, Array<{ at: number; status: number }>>();
    const store = memoryStore();
    const started = performance.now();
    const summaries = await Promise.all(
      Array.from({ length: 4 }, () => {
        const client = new PaymentsClient({
          apiKey: mock.liveApiKey as string,
          baseUrl: mock.baseUrl,
          maxRetries: 0,
          fetch: async (input, init) => {
            // A service answering after 20 ms.
            await new Promise((resolve) => setTimeout(resolve, 20));
            const at = performance.now();
            const response = await mock.fetch(input, init);
            const key = (input instanceof Request ? input.headers : new Headers(init?.headers)).get('idempotency-key') ?? '';
            attempts.set(key, [...(attempts.get(key) ?? []), { at, status: response.status }]);
            return response;
          },
        });
        return client.payouts.createMany(rows(n), { batchId: 'shared', key: (r) => r.reference, store, concurrency: 8 }).summary();
      }),
    );
    const seconds = (performance.now() - started) / 1000;
    expect(summaries.reduce((sum, s) => sum + s.created, 0)).toBe(n);
    expect(summaries.every((s) => s.failed === 0)).toBe(true);
    // At the limit, the rows take (n - rate) / rate = 5 s after the first second's allowance; runners
    // that stop each other at every throttle took over 20 s here.
    expect(seconds).toBeLessThan(15);
    expect(mock.throttledCount).toBeGreaterThan(0);
    expect(attempts.size).toBe(n);
    for (const tries of attempts.values()) {
      for (let i = 1; i < tries.length; i++) {
        if ((tries[i - 1] as { status: number }).status === 429) {
          expect((tries[i] as { at: number }).at - (tries[i - 1] as { at: number }).at).toBeGreaterThanOrEqual(990);
        }
      }
    }
    expect([...countByRow(await allPayouts(liveClient(mock))).values()]).toEqual(Array(n).fill(1));
  }, 60_000);

  it('once paced, a 503 that names a wait still pauses every send for it (only a rate limit holds back the throttled row alone)', async () => {
    const mock = payoutMock({ rateLimit: { requests: 20, perMs: 1000 } });
    const starts: Array<{ at: number; status: number }> = [];
    let successesSincePaced = -1;
    let overloadAt = 0;
    const client = new PaymentsClient({
      apiKey: mock.liveApiKey as string,
      baseUrl: mock.baseUrl,
      maxRetries: 0,
      fetch: async (input, init) => {
        const at = performance.now();
        await new Promise((resolve) => setTimeout(resolve, 20));
        const response = await mock.fetch(input, init);
        starts.push({ at, status: response.status });
        if (response.status === 429 && successesSincePaced < 0) successesSincePaced = 0;
        else if (response.status === 201 && successesSincePaced >= 0 && ++successesSincePaced === 30) {
          // Paced by now: the service goes down for 2 s, and says so to the next request.
          overloadAt = performance.now();
          mock.injectFault({ status: 503, retryAfter: 2, path: '/payouts' });
        }
        return response;
      },
    });
    const summary = await client.payouts.createMany(rows(80), { batchId: 'overload', key: (r) => r.reference, concurrency: 8 }).summary();
    expect(summary.created).toBe(80);
    const overload = starts.find((s) => s.status === 503) as { at: number };
    expect(overloadAt).toBeGreaterThan(0);
    // Sends that started after the 503 was answered (20 ms after its start), within its Retry-After.
    const during = starts.filter((s) => s.at > overload.at + 100 && s.at < overload.at + 1900);
    expect(during).toEqual([]);
  }, 60_000);

  it('a run stopped during a long Retry-After ends at once and leaves no timer behind', async () => {
    const mock = payoutMock();
    const client = new PaymentsClient({ apiKey: mock.liveApiKey as string, baseUrl: mock.baseUrl, fetch: mock.fetch, maxRetries: 0 });
    // Timers of 10 s or more started during the run, until they fire or are cleared.
    const pending = new Set<unknown>();
    const setTimer = globalThis.setTimeout;
    const clearTimer = globalThis.clearTimeout;
    const setSpy = vi.spyOn(globalThis, 'setTimeout').mockImplementation(((fn: () => void, ms?: number) => {
      const handle = setTimer(() => {
        pending.delete(handle);
        fn();
      }, ms);
      if ((ms ?? 0) >= 10_000) pending.add(handle);
      return handle;
    }) as typeof setTimeout);
    const clearSpy = vi.spyOn(globalThis, 'clearTimeout').mockImplementation(((handle?: Parameters<typeof clearTimeout>[0]) => {
      pending.delete(handle);
      clearTimer(handle);
    }) as typeof clearTimeout);
    try {
      mock.injectFault({ status: 503, retryAfter: 50, path: '/payouts' });
      const controller = new AbortController();
      const batch = client.payouts.createMany(rows(5), {
        batchId: 'stopped-paused',
        key: (r) => r.reference,
        concurrency: 1,
        signal: controller.signal,
      });
      const stopped = (async () => {
        for await (const _ of batch) break;
      })();
      // The first send is answered 503 with Retry-After: 50; every send then waits for it.
      await new Promise((resolve) => setTimer(resolve, 200));
      expect(pending.size).toBeGreaterThan(0);
      const started = performance.now();
      controller.abort();
      await stopped;
      await batch.summary().catch(() => {});
      expect(performance.now() - started).toBeLessThan(1000);
      expect(pending.size).toBe(0);
    } finally {
      setSpy.mockRestore();
      clearSpy.mockRestore();
      for (const handle of pending) clearTimer(handle as Parameters<typeof clearTimeout>[0]);
    }
  });
});
