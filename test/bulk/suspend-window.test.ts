/**
 * The 24-hour window of a bulk payout measured by an in-process store's clock while the machine
 * sleeps: a laptop that runs `payouts bulk` and is suspended for a day. The wall clock goes on
 * during a suspend; the monotonic clock (`performance.now()`) does not. A row sent without a known
 * outcome before the suspend is older than the service's retention after it, and must not be resent.
 */
import { PaymentsClient } from 'payments-sdk';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { memoryStore } from '../../src/stores/memory.js';
import { allPayouts, liveClient, payoutMock, rows } from '../helpers/bulk.js';
import { collect, statuses } from '../helpers/bulk-results.js';

const HOUR = 3_600_000;

afterEach(() => {
  vi.useRealTimers();
});

describe('an in-process store across a suspend of the machine', () => {
  it('counts the time the machine slept in a record’s age: a row without a known outcome is not resent after it', async () => {
    vi.useFakeTimers({ toFake: ['Date'], now: Date.now() });
    const store = memoryStore({ ttlMs: 7 * 24 * HOUR });
    const mock = payoutMock();
    let n = 0;
    // Row 1 reaches the service, which creates it, and its answer is lost.
    const faulty = new PaymentsClient({
      apiKey: mock.liveApiKey as string,
      baseUrl: mock.baseUrl,
      maxRetries: 0,
      fetch: async (input, init) => {
        const response = await mock.fetch(input, init);
        if (n++ === 1) throw new TypeError('fetch failed', { cause: Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' }) });
        return response;
      },
    });
    const first = await collect(faulty.payouts.createMany(rows(3), { batchId: 'suspend', store, concurrency: 1 }));
    expect(statuses(first)).toEqual(['created', 'failed', 'created']);

    // The machine sleeps 25 hours: the wall clock moves on, the monotonic clock stands still.
    vi.setSystemTime(Date.now() + 25 * HOUR);
    const client = liveClient(mock, { maxRetries: 0 });
    const late = await collect(client.payouts.createMany(rows(3), { batchId: 'suspend', store }));
    expect(statuses(late)).toEqual(['skipped', 'needs_reconciliation', 'skipped']);
    expect((await allPayouts(client)).length).toBe(3);
  });
});
