/**
 * A row is sent only under a live claim. A worker frozen past its lease while its row waited for a
 * send slot (here: its renewals never answer, or fail, and its one send slot is held by a stalled
 * request) must not send that row once it wakes up: another worker took the row over and paid it
 * meanwhile.
 * The frozen worker renews before sending, learns that the row is no longer its own, and reports
 * the row as the other worker recorded it; its stalled send of the other row is reported as not
 * recorded (`leaseLost`).
 */
import { PaymentsClient } from 'payments-sdk';
import { describe, expect, it } from 'vitest';
import { memoryStore } from '../../src/stores/memory.js';
import { type Store, storeKey } from '../../src/stores/store.js';
import { allPayouts, countByRow, liveClient, payoutMock, row, rows } from '../helpers/bulk.js';
import { collect, posts, statuses } from '../helpers/bulk-results.js';

/**
 * `inner`, except that while `frozen()` its renewals never answer (`hang`: a worker whose timers do
 * not run) or fail (`fail`: a store that cannot be reached).
 */
function freezable(inner: Store, frozen: () => boolean, how: 'hang' | 'fail'): Store {
  const stuck = () => (how === 'hang' ? new Promise<boolean>(() => {}) : Promise.reject(new Error('the store did not answer')));
  return {
    kind: inner.kind,
    claim: (requests) => inner.claim(requests),
    renew: (key, owner, leaseMs) => (frozen() ? stuck() : inner.renew(key, owner, leaseMs)),
    settle: (key, owner, result) => inner.settle(key, owner, result),
    release: (key, owner, note) => inner.release(key, owner, note),
    read: (keys) => inner.read(keys),
  };
}

/**
 * A client on `mock` whose first payout POST stalls until `release()`: with one send slot, the
 * worker's other rows wait for it. `reached` resolves once that request has arrived.
 */
function stallingClient(mock: ReturnType<typeof payoutMock>): { client: PaymentsClient; reached: Promise<void>; release: () => void } {
  let release: () => void = () => {};
  let arrived: () => void = () => {};
  const reached = new Promise<void>((resolve) => {
    arrived = resolve;
  });
  const stall = new Promise<void>((resolve) => {
    release = resolve;
  });
  let first = true;
  const client = new PaymentsClient({
    apiKey: mock.liveApiKey as string,
    baseUrl: mock.baseUrl,
    maxRetries: 0,
    fetch: async (input, init) => {
      const request = new Request(input, init);
      if (request.method === 'POST' && first) {
        first = false;
        arrived();
        await stall;
      }
      return mock.fetch(request);
    },
  });
  return { client, reached, release };
}

describe('a send leaves only under a live claim', () => {
  it.each([
    ['frozen past its lease (its renewals never answer)', 'hang'],
    ['whose renewals failed past its lease', 'fail'],
  ] as const)('a worker %s while its row waited for a send slot does not send it after another worker took it over', async (_, how) => {
    const mock = payoutMock();
    const store = memoryStore();
    const key = (r: { reference: string }) => r.reference;
    let frozen = true;
    // Worker A: one send slot, held by its first request until released.
    const { client: a, reached: stallReached, release: stalled } = stallingClient(mock);
    const running = collect(
      a.payouts.createMany(rows(2), {
        batchId: `frozen-${how}`,
        key,
        store: freezable(store, () => frozen, how),
        concurrency: 1,
        leaseMs: 300,
      }),
    );
    await stallReached;

    // A's leases end (by the store's clock) while it is frozen: poll until the store says so.
    const rowKeys = [storeKey('bulk', `frozen-${how}`, 'emp-0'), storeKey('bulk', `frozen-${how}`, 'emp-1')];
    const deadline = Date.now() + 5000;
    while ((await store.read(rowKeys)).some((record) => record?.owner !== undefined)) {
      expect(Date.now()).toBeLessThan(deadline);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }

    // Worker B takes both rows over and pays them.
    const b = await collect(liveClient(mock).payouts.createMany(rows(2), { batchId: `frozen-${how}`, key, store }));
    expect(statuses(b)).toEqual(['created', 'created']);
    const rowOneKey = b[1]?.idempotencyKey;

    // A wakes up: its stalled send of row 0 answers (a replay: the same key), and row 1 gets its slot.
    frozen = false;
    stalled();
    const results = await running;
    expect(results[0]).toMatchObject({ status: 'replayed', leaseLost: true });
    expect(results[1]).toMatchObject({ status: 'skipped', attempts: 0, record: { result: { status: 'created' } } });

    // Row 1 went out once, from B; each row is paid once.
    expect(posts(mock).filter((p) => p.idempotencyKey === rowOneKey)).toHaveLength(1);
    const payouts = await allPayouts(liveClient(mock));
    expect([...countByRow(payouts).values()]).toEqual([1, 1]);
  });
});

describe('a renewal that answers the lease was lost', () => {
  it('keeps a row waiting for a send slot from being sent: it is claimed again first, and skipped once another worker paid it', async () => {
    const mock = payoutMock();
    const store = memoryStore();
    const batchId = 'lost-while-waiting';
    const key = (r: { reference: string }) => r.reference;
    const lostKey = storeKey('bulk', batchId, 'emp-1');
    // A's claim on row 1 ends at its first renewal (as if its lease had run out): the renewal answers false.
    let lost: () => void = () => {};
    const leaseLost = new Promise<void>((resolve) => {
      lost = resolve;
    });
    const losing: Store = {
      kind: store.kind,
      claim: (requests) => store.claim(requests),
      renew: async (k, owner, leaseMs) => {
        if (k === lostKey) {
          await store.release(k, owner);
          lost();
        }
        return store.renew(k, owner, leaseMs);
      },
      settle: (k, owner, result) => store.settle(k, owner, result),
      release: (k, owner, note) => store.release(k, owner, note),
      read: (keys) => store.read(keys),
    };
    // Worker A: one send slot, held by its first request until released.
    const { client: a, release } = stallingClient(mock);
    // The renewal timer runs every leaseMs / 3 (2 s); a row is renewed before its send only past
    // leaseMs / 2 (3 s): row 1 gets its slot in between, so only the lost renewal keeps it back.
    const running = collect(a.payouts.createMany(rows(2), { batchId, key, store: losing, concurrency: 1, leaseMs: 6_000 }));
    await leaseLost;
    // Worker B takes row 1 over and pays it; then A's stalled send of row 0 answers.
    const b = await collect(liveClient(mock).payouts.createMany([row(1)], { batchId, key, store }));
    expect(statuses(b)).toEqual(['created']);
    release();
    const results = await running;
    expect(results.map((r) => [r.key, r.status, r.attempts])).toEqual([
      ['emp-0', 'created', 1],
      ['emp-1', 'skipped', 0],
    ]);
    expect(posts(mock).filter((p) => p.idempotencyKey === b[0]?.idempotencyKey)).toHaveLength(1);
    expect([...countByRow(await allPayouts(liveClient(mock))).values()]).toEqual([1, 1]);
  });
});
