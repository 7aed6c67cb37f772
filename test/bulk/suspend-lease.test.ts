/**
 * A bulk worker whose machine is suspended while it holds claimed rows: its leases end by the
 * store's clock during the sleep, and another worker takes the rows over and pays them. On waking,
 * the first worker must not send those rows under the claims it lost (the monotonic clock it
 * measures its claims with did not count the sleep).
 */
import { PaymentsClient } from 'payments-sdk';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { memoryStore } from '../../src/stores/memory.js';
import { allPayouts, liveClient, payoutMock, rows } from '../helpers/bulk.js';
import { collect, posts, statuses } from '../helpers/bulk-results.js';

afterEach(() => {
  vi.useRealTimers();
});

describe('a bulk worker suspended while it holds rows', () => {
  it('does not send a row under a lease that ended while the machine slept', async () => {
    vi.useFakeTimers({ toFake: ['Date'], now: Date.now() });
    const store = memoryStore();
    const mock = payoutMock();
    let wake!: () => void;
    const asleep = new Promise<void>((resolve) => {
      wake = resolve;
    });
    let sending!: () => void;
    const firstSend = new Promise<void>((resolve) => {
      sending = resolve;
    });
    let n = 0;
    // Worker A: its first send hangs on the wire while the machine sleeps.
    const a = new PaymentsClient({
      apiKey: mock.liveApiKey as string,
      baseUrl: mock.baseUrl,
      maxRetries: 0,
      fetch: async (input, init) => {
        if (n++ === 0) {
          sending();
          await asleep;
        }
        return mock.fetch(input, init);
      },
    });
    const batchA = collect(a.payouts.createMany(rows(2), { batchId: 'sleep', store, concurrency: 1, leaseMs: 30_000 }));
    await firstSend;
    // Row 1 is claimed by A and waits for a send slot. The machine sleeps two minutes.
    vi.setSystemTime(Date.now() + 120_000);
    // Worker B (another process sharing the store) takes over what A's ended leases left.
    const b = liveClient(mock, { maxRetries: 0 });
    const byB = await collect(b.payouts.createMany(rows(2), { batchId: 'sleep', store, concurrency: 1, leaseMs: 30_000 }));
    expect(statuses(byB)).toEqual(['created', 'created']);
    const before = posts(mock).length;
    wake();
    const byA = await batchA;
    expect(byA.map((r) => r.index).sort()).toEqual([0, 1]);
    // A's row 0 was on the wire before the sleep; row 1 is B's now, paid: A sends it no more.
    expect(posts(mock).length - before).toBe(1);
    expect((await allPayouts(b)).length).toBe(2);
  });
});
