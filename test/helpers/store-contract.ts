/**
 * The contract every store passes (src/stores/store.ts), one suite that each backend's test file
 * runs against its real server or file: claims under a lease by one owner, renewals, settles and
 * releases by that owner only, a stale owner's late writes changing nothing, settled keys staying
 * settled, the records (data, claims, age, note, result), reads, many keys in one call, concurrent
 * claims, exact values and keys; across two instances of one backend when it is shared; and
 * `transact` when the store has it.
 *
 * ```ts
 * describeStoreContract('memoryStore', async () => ({ store: memoryStore(), cleanup: async () => {} }), {
 *   notShared: 'memoryStore is the memory of one process: no second instance shares it',
 * });
 * ```
 */
import type { Store, StoreClaim, StoreJsonObject } from 'payments-sdk/stores';
import { describe, expect, it } from 'vitest';
import { storeKey } from '../../src/stores/store.js';

/** A fresh store for one test (an empty table, a new key prefix, a new file), and how to drop it. */
export interface StoreUnderTest<Context = undefined, Effects = unknown> {
  store: Store<Context, Effects>;
  /** Another instance on the same backend and data (another client or pool), for the cross-instance cases. */
  makeSecond?: () => Promise<Store<Context, Effects>>;
  /** Closes what the test opened (stores, clients) and drops what it wrote. */
  cleanup(): Promise<void>;
}

/** How the `transact` cases make an effect and see whether it was committed. */
export interface TransactHarness<Context, Effects> {
  /** An effect that records `tag` where {@link TransactHarness.count} sees it once committed (a row inserted through `tx`, a D1 statement returned). */
  effect(tag: string): (context: Context) => Effects | Promise<Effects>;
  /** How many committed effects recorded `tag`. */
  count(tag: string): Promise<number>;
}

/** What the suite needs to know at collection time, before any store exists. */
export type StoreContractOptions<Context, Effects> = (
  | { /** Instances of the backend share their records: `makeSecond` is given. */ shared: true }
  | {
      /** Why no second instance shares the backend's records (one line): the cross-instance cases are skipped with it. */ notShared: string;
    }
) & {
  /** For a transactional store: its `transact` cases. Without it, the store must have no `transact`. */
  transact?: TransactHarness<Context, Effects>;
};

/** A lease long enough to outlast any test. */
const LONG = 60_000;
/** A lease that ends during a test. */
const SHORT = 200;
/** How long a test waits at most for a lease to end by the store's clock. */
const DEADLINE_MS = 5_000;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Polls `check` until it answers a value other than `undefined`/`false`; fails after {@link DEADLINE_MS}. */
async function until<T>(what: string, check: () => Promise<T | undefined | false>): Promise<T> {
  const deadline = Date.now() + DEADLINE_MS;
  for (;;) {
    const value = await check();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`waited ${DEADLINE_MS} ms for ${what}`);
    await sleep(25);
  }
}

/** Strings a text encoding or a JSON column could change: NUL, lone surrogates, an astral emoji, a long one. */
const AWKWARD = [
  '\u0000',
  'a\u0000b',
  '\uD800',
  '\uDFFF',
  'x\uDBFFy',
  '\uD83D\uDE00',
  '😀🇸🇳',
  'é\u0301',
  '\u2028\u2029',
  '"\\\n\t',
  'z'.repeat(10_000),
];

const AWKWARD_OBJECT: StoreJsonObject = {
  strings: AWKWARD,
  nested: [[1, [2, [3, []]]], { a: [null, true, false] }, {}],
  numbers: [0, -1, 1.5, -2.25e-7, Number.MAX_SAFE_INTEGER, -Number.MAX_SAFE_INTEGER],
  'key\u0000with NUL': 'v',
  '\uD800': 'lone-surrogate key',
  empty: '',
  none: null,
};

/**
 * Registers the contract's cases in a `describe(name)`. `make()` answers a fresh, empty store for
 * each case.
 */
export function describeStoreContract<Context = undefined, Effects = unknown>(
  name: string,
  make: () => Promise<StoreUnderTest<Context, Effects>>,
  options: StoreContractOptions<Context, Effects>,
): void {
  const withStore = (run: (under: StoreUnderTest<Context, Effects>, store: Store<Context, Effects>) => Promise<void>) => async () => {
    const under = await make();
    try {
      await run(under, under.store);
    } finally {
      await under.cleanup();
    }
  };
  const claim = async (store: Store<Context, Effects>, key: string, owner: string, leaseMs = LONG, data?: StoreJsonObject) => {
    const answers = await store.claim([{ key, owner, leaseMs, ...(data !== undefined && { data }) }]);
    expect(answers).toHaveLength(1);
    return answers[0] as StoreClaim;
  };
  const readOne = async (store: Store<Context, Effects>, key: string) => {
    const records = await store.read([key]);
    expect(records).toHaveLength(1);
    return records[0];
  };
  /** Waits until `key`'s lease has ended by the store's clock (the record shows no owner). */
  const leaseEnded = (store: Store<Context, Effects>, key: string) =>
    until(`the lease on ${key} to end`, async () => {
      const record = await readOne(store, key);
      return record !== undefined && record.owner === undefined;
    });

  describe(name, () => {
    it(
      'claims a new key: claimed, with its record (data, 1 claim, age, not settled, the owner)',
      withStore(async (_, store) => {
        const key = storeKey('webhook', 'evt_new');
        const answer = await claim(store, key, 'A', LONG, { type: 'payment.succeeded' });
        expect(answer).toEqual({
          state: 'claimed',
          record: { key, data: { type: 'payment.succeeded' }, claims: 1, age: expect.any(Number), settled: false, owner: 'A' },
        });
        expect(answer.record.age).toBeGreaterThanOrEqual(0);
        expect(answer.record.age).toBeLessThan(DEADLINE_MS);
        expect(await readOne(store, key)).toEqual({ ...answer.record, age: expect.any(Number) });
      }),
    );

    it(
      'answers busy to another owner while the lease is live, with the record as found; nothing changes',
      withStore(async (_, store) => {
        const key = storeKey('webhook', 'evt_busy');
        await claim(store, key, 'A', LONG, { first: true });
        const busy = await claim(store, key, 'B', LONG, { second: true });
        expect(busy.state).toBe('busy');
        expect(busy.record).toMatchObject({ key, data: { first: true }, claims: 1, settled: false, owner: 'A' });
        expect(await readOne(store, key)).toMatchObject({ claims: 1, owner: 'A', settled: false });
      }),
    );

    it(
      'lets the owner claim again: claimed, a fresh lease, one more claim counted',
      withStore(async (_, store) => {
        const key = storeKey('bulk', 'batch', 'row-1');
        await claim(store, key, 'A', SHORT);
        const again = await claim(store, key, 'A', LONG);
        expect(again.state).toBe('claimed');
        expect(again.record).toMatchObject({ claims: 2, owner: 'A' });
        // Past the first lease: the renewed one holds.
        await sleep(SHORT * 2);
        expect((await claim(store, key, 'B')).state).toBe('busy');
        expect(await readOne(store, key)).toMatchObject({ claims: 2, owner: 'A' });
      }),
    );

    it(
      "hands the key to a new owner once the lease ends by the store's clock; data stays the first claim's",
      withStore(async (_, store) => {
        const key = storeKey('bulk', 'batch', 'row-2');
        await claim(store, key, 'A', SHORT, { row: 'first' });
        const taken = await until('B to claim after the lease', async () => {
          const answer = await claim(store, key, 'B', LONG, { row: 'second' });
          if (answer.state !== 'busy') return answer;
          expect(answer.record.owner).toBe('A');
          return undefined;
        });
        expect(taken).toEqual({
          state: 'claimed',
          record: { key, data: { row: 'first' }, claims: 2, age: expect.any(Number), settled: false, owner: 'B' },
        });
        expect((await claim(store, key, 'A')).state).toBe('busy');
      }),
    );

    it(
      'counts every claim granted, and only those',
      withStore(async (_, store) => {
        const key = storeKey('bulk', 'batch', 'row-3');
        await claim(store, key, 'A');
        await claim(store, key, 'A');
        expect((await claim(store, key, 'B')).state).toBe('busy');
        expect(await store.release(key, 'A')).toBe(true);
        expect((await claim(store, key, 'B')).record.claims).toBe(3);
        expect((await readOne(store, key))?.claims).toBe(3);
      }),
    );

    it(
      'renews for the owner only, and only while its lease is live',
      withStore(async (_, store) => {
        const key = storeKey('bulk', 'batch', 'row-4');
        expect(await store.renew(key, 'A', LONG)).toBe(false);
        await claim(store, key, 'A');
        expect(await store.renew(key, 'B', LONG)).toBe(false);
        expect(await readOne(store, key)).toMatchObject({ owner: 'A', claims: 1 });
        expect(await store.renew(key, 'A', SHORT)).toBe(true);
        await leaseEnded(store, key);
        // A lease that ended is not renewed: another owner may hold the key by then.
        expect(await store.renew(key, 'A', LONG)).toBe(false);
        expect((await readOne(store, key))?.owner).toBeUndefined();
        expect((await claim(store, key, 'B')).state).toBe('claimed');
      }),
    );

    it(
      'renewal keeps the key from other owners past the first lease',
      withStore(async (_, store) => {
        const key = storeKey('bulk', 'batch', 'row-5');
        // A first lease long enough for the renewal to reach even a slow server inside it.
        await claim(store, key, 'A', 1_000);
        expect(await store.renew(key, 'A', LONG)).toBe(true);
        await sleep(1_200);
        expect((await claim(store, key, 'B')).state).toBe('busy');
      }),
    );

    it(
      'settles and releases for the owner only: another owner gets false and nothing changes',
      withStore(async (_, store) => {
        const key = storeKey('webhook', 'evt_owner');
        await claim(store, key, 'A');
        expect(await store.settle(key, 'B', { by: 'B' })).toBe(false);
        expect(await store.release(key, 'B', { by: 'B' })).toBe(false);
        expect(await store.settle(storeKey('webhook', 'evt_missing'), 'A')).toBe(false);
        expect(await store.release(storeKey('webhook', 'evt_missing'), 'A')).toBe(false);
        const record = await readOne(store, key);
        expect(record).toMatchObject({ settled: false, owner: 'A', claims: 1 });
        expect(record?.result).toBeUndefined();
        expect(record?.note).toBeUndefined();
        expect(await store.settle(key, 'A', { payout: 'po_1' })).toBe(true);
        const settled = await readOne(store, key);
        expect(settled).toMatchObject({ key, settled: true, result: { payout: 'po_1' }, claims: 1 });
        expect(settled?.owner).toBeUndefined();
        expect(await readOne(store, storeKey('webhook', 'evt_missing'))).toBeUndefined();
      }),
    );

    it(
      'keeps a settled key settled: claims answer settled, settle and release again answer false',
      withStore(async (_, store) => {
        const key = storeKey('payment', '7d7a3c58-2e5b-4a56-9a43-8f4f3b1d1c11', 'payment.succeeded');
        await claim(store, key, 'A', LONG, { at: 1 });
        expect(await store.settle(key, 'A', { handled: 1 })).toBe(true);
        for (const owner of ['B', 'A']) {
          const answer = await claim(store, key, owner);
          expect(answer.state).toBe('settled');
          expect(answer.record).toMatchObject({ key, data: { at: 1 }, settled: true, result: { handled: 1 }, claims: 1 });
          expect(answer.record.owner).toBeUndefined();
        }
        expect(await store.settle(key, 'A', { handled: 2 })).toBe(false);
        expect(await store.release(key, 'A', { note: 'late' })).toBe(false);
        expect(await store.renew(key, 'A', LONG)).toBe(false);
        const record = await readOne(store, key);
        expect(record).toMatchObject({ settled: true, result: { handled: 1 }, claims: 1 });
        expect(record?.note).toBeUndefined();
      }),
    );

    it(
      "changes nothing on a stale owner's late settle, release or renew once another owner claimed the key",
      withStore(async (_, store) => {
        const key = storeKey('bulk', 'batch', 'row-6');
        await claim(store, key, 'A', SHORT);
        await until('B to claim after the lease', async () => (await claim(store, key, 'B')).state === 'claimed');
        expect(await store.settle(key, 'A', { stale: true })).toBe(false);
        expect(await store.release(key, 'A', { stale: true })).toBe(false);
        expect(await store.renew(key, 'A', LONG)).toBe(false);
        const record = await readOne(store, key);
        expect(record).toMatchObject({ settled: false, owner: 'B', claims: 2 });
        expect(record?.note).toBeUndefined();
        expect(record?.result).toBeUndefined();
        expect(await store.settle(key, 'B', { fresh: true })).toBe(true);
        expect((await readOne(store, key))?.result).toEqual({ fresh: true });
      }),
    );

    it(
      'still settles, or releases, for an owner whose lease ended when nobody claimed the key since',
      withStore(async (_, store) => {
        const settledKey = storeKey('bulk', 'batch', 'row-7');
        const releasedKey = storeKey('bulk', 'batch', 'row-8');
        await store.claim([
          { key: settledKey, owner: 'A', leaseMs: SHORT },
          { key: releasedKey, owner: 'A', leaseMs: SHORT },
        ]);
        await leaseEnded(store, settledKey);
        await leaseEnded(store, releasedKey);
        expect(await store.settle(settledKey, 'A', { late: 'but first' })).toBe(true);
        expect(await readOne(store, settledKey)).toMatchObject({ settled: true, result: { late: 'but first' } });
        expect(await store.release(releasedKey, 'A', { error: 'timeout' })).toBe(true);
        expect(await readOne(store, releasedKey)).toMatchObject({ settled: false, note: { error: 'timeout' } });
        expect((await claim(store, releasedKey, 'B')).state).toBe('claimed');
      }),
    );

    it(
      'keeps the note of a release, frees the key for another owner at once, and takes one release only',
      withStore(async (_, store) => {
        const key = storeKey('bulk', 'batch', 'row-9');
        await claim(store, key, 'A');
        expect(await store.release(key, 'A', { error: { name: 'APIConnectionError', message: 'reset' } })).toBe(true);
        const record = await readOne(store, key);
        expect(record).toMatchObject({ settled: false, claims: 1, note: { error: { name: 'APIConnectionError', message: 'reset' } } });
        expect(record?.owner).toBeUndefined();
        expect(await store.release(key, 'A', { error: 'again' })).toBe(false);
        expect(await store.settle(key, 'A')).toBe(false);
        expect((await claim(store, key, 'B')).state).toBe('claimed');
        expect(await store.release(key, 'B', { error: 'second' })).toBe(true);
        expect((await readOne(store, key))?.note).toEqual({ error: 'second' });
      }),
    );

    it(
      "counts a record's age from its first claim, by the store's clock",
      withStore(async (_, store) => {
        const key = storeKey('webhook', 'evt_age');
        await claim(store, key, 'A');
        const first = (await readOne(store, key))?.age ?? -1;
        await sleep(120);
        await store.release(key, 'A');
        await claim(store, key, 'B');
        const later = (await readOne(store, key))?.age ?? -1;
        expect(first).toBeGreaterThanOrEqual(0);
        // The store's clock may tick in whole ms, or seconds apart from ours by a little: allow a margin.
        expect(later - first).toBeGreaterThanOrEqual(80);
        expect(later).toBeLessThan(DEADLINE_MS + 120);
      }),
    );

    it(
      'reads records in order, undefined where there is none, without claiming',
      withStore(async (_, store) => {
        const [a, b, missing] = [storeKey('webhook', 'evt_r1'), storeKey('webhook', 'evt_r2'), storeKey('webhook', 'evt_none')];
        await claim(store, a, 'A');
        expect(await store.settle(a, 'A', { n: 1 })).toBe(true);
        await claim(store, b, 'B', LONG, { n: 2 });
        expect(await store.read([])).toEqual([]);
        const records = await store.read([missing, b, a, missing]);
        expect(records).toHaveLength(4);
        expect(records[0]).toBeUndefined();
        expect(records[1]).toMatchObject({ key: b, data: { n: 2 }, owner: 'B', settled: false, claims: 1 });
        expect(records[2]).toMatchObject({ key: a, settled: true, result: { n: 1 }, claims: 1 });
        expect(records[3]).toBeUndefined();
        // Reading claimed nothing.
        expect((await claim(store, missing, 'C')).record.claims).toBe(1);
        expect((await readOne(store, b))?.claims).toBe(1);
      }),
    );

    it(
      'claims many keys in one call (settled, busy and new among them), answering in order',
      withStore(async (_, store) => {
        const keys = Array.from({ length: 200 }, (_, i) => storeKey('bulk', 'big-batch', `row-${i}`));
        const settled = keys.filter((_, i) => i % 3 === 0);
        const held = keys.filter((_, i) => i % 3 === 1);
        await store.claim(settled.map((key) => ({ key, owner: 'A', leaseMs: LONG })));
        for (const key of settled.slice(0, 10)) expect(await store.settle(key, 'A', { key })).toBe(true);
        await Promise.all(settled.slice(10).map((key) => store.settle(key, 'A', { key })));
        await store.claim(held.map((key) => ({ key, owner: 'X', leaseMs: LONG })));
        const answers = await store.claim(keys.map((key, i) => ({ key, owner: 'B', leaseMs: LONG, data: { i } })));
        expect(answers).toHaveLength(keys.length);
        answers.forEach((answer, i) => {
          expect(answer.record.key).toBe(keys[i]);
          expect(answer.state).toBe(['settled', 'busy', 'claimed'][i % 3]);
          if (i % 3 === 0) expect(answer.record.result).toEqual({ key: keys[i] });
          if (i % 3 === 1) expect(answer.record.owner).toBe('X');
          if (i % 3 === 2) expect(answer.record).toMatchObject({ data: { i }, owner: 'B', claims: 1 });
        });
        const records = await store.read(keys);
        expect(records.map((record) => record?.key)).toEqual(keys);
      }),
    );

    it(
      'grants a key to exactly one of many owners claiming it at the same moment',
      withStore(async (_, store) => {
        const key = storeKey('webhook', 'evt_race');
        const answers = await Promise.all(Array.from({ length: 20 }, (_, i) => claim(store, key, `owner-${i}`)));
        const winners = answers.filter((answer) => answer.state === 'claimed');
        expect(winners).toHaveLength(1);
        expect(answers.filter((answer) => answer.state === 'busy')).toHaveLength(19);
        expect(await readOne(store, key)).toMatchObject({ claims: 1, owner: winners[0]?.record.owner });
      }),
    );

    it(
      'stores data, result and note exactly: NUL, lone surrogates, emoji, long strings, nested arrays',
      withStore(async (_, store) => {
        const key = storeKey('bulk', 'values', 'row');
        const data = { ...AWKWARD_OBJECT, which: 'data' };
        expect((await claim(store, key, 'A', LONG, data)).record.data).toEqual(data);
        expect(await store.release(key, 'A', { ...AWKWARD_OBJECT, which: 'note' })).toBe(true);
        await claim(store, key, 'A');
        expect(await store.settle(key, 'A', { ...AWKWARD_OBJECT, which: 'result' })).toBe(true);
        const record = await readOne(store, key);
        expect(record?.data).toEqual(data);
        expect(record?.note).toEqual({ ...AWKWARD_OBJECT, which: 'note' });
        expect(record?.result).toEqual({ ...AWKWARD_OBJECT, which: 'result' });
        // Exactly, not merely equal after a normalisation: the same JSON text.
        expect(JSON.stringify(record?.data)).toBe(JSON.stringify(data));
        // What a caller does with an answer does not reach the store.
        (record?.data?.strings as string[] | undefined)?.push('mutated');
        expect((await readOne(store, key))?.data).toEqual(data);
      }),
    );

    it(
      'keeps keys made by storeKey distinct: NUL, lone surrogates, ":" and "~" in ids, long ids',
      withStore(async (_, store) => {
        const keys = [
          storeKey('webhook', 'evt_1'),
          storeKey('webhook', 'evt_1\u0000'),
          storeKey('webhook', '\uD800'),
          storeKey('webhook', '\uDBFF'),
          storeKey('webhook', '\uFFFD'),
          storeKey('webhook', '~'),
          storeKey('webhook', '~007e'),
          storeKey('webhook', '😀'),
          storeKey('payment', 'a:b', 'c'),
          storeKey('payment', 'a', 'b:c'),
          storeKey('payment', 'a:b:c', ''),
          storeKey('bulk', 'batch', 'row:1'),
          storeKey('bulk', 'batch:row', '1'),
          storeKey('bulk', 'batch', 'x'.repeat(2_000)),
          storeKey('bulk', 'batch', `${'x'.repeat(2_000)}y`),
        ];
        expect(new Set(keys).size).toBe(keys.length);
        const answers = await store.claim(keys.map((key, i) => ({ key, owner: 'A', leaseMs: LONG, data: { i } })));
        expect(answers.map((answer) => answer.state)).toEqual(keys.map(() => 'claimed'));
        const records = await store.read(keys);
        records.forEach((record, i) => {
          expect(record?.key).toBe(keys[i]);
          expect(record?.data).toEqual({ i });
        });
      }),
    );

    describeSecondInstance();
    describeTransact();
  });

  function describeSecondInstance(): void {
    if ('notShared' in options) {
      it.skip(`across instances: ${options.notShared}`, () => {});
      return;
    }
    const withTwo = (run: (one: Store<Context, Effects>, two: Store<Context, Effects>) => Promise<void>) =>
      withStore(async (under, one) => {
        if (!under.makeSecond) throw new Error('a shared store must give makeSecond');
        const two = await under.makeSecond();
        try {
          await run(one, two);
        } finally {
          await two.close?.();
        }
      });

    it(
      'across instances: a claim on one is busy on the other; a settle on one is settled on the other',
      withTwo(async (one, two) => {
        const key = storeKey('webhook', 'evt_shared');
        await claim(one, key, 'A', LONG, { on: 1 });
        expect(await claim(two, key, 'B')).toMatchObject({ state: 'busy', record: { owner: 'A', data: { on: 1 } } });
        expect(await two.settle(key, 'B')).toBe(false);
        expect(await one.settle(key, 'A', { done: true })).toBe(true);
        expect(await claim(two, key, 'B')).toMatchObject({ state: 'settled', record: { result: { done: true } } });
        expect(await two.read([key])).toEqual([expect.objectContaining({ settled: true, result: { done: true } })]);
      }),
    );

    it(
      'across instances: one winner among owners claiming one key at the same moment on both',
      withTwo(async (one, two) => {
        const key = storeKey('webhook', 'evt_shared_race');
        const answers = await Promise.all(Array.from({ length: 20 }, (_, i) => claim(i % 2 ? one : two, key, `owner-${i}`)));
        expect(answers.filter((answer) => answer.state === 'claimed')).toHaveLength(1);
      }),
    );

    it(
      "across instances: a stale owner's late settle on one changes nothing once the other's owner took the key",
      withTwo(async (one, two) => {
        const key = storeKey('bulk', 'shared', 'row');
        await claim(one, key, 'A', SHORT);
        await until('B to claim on the second instance', async () => (await claim(two, key, 'B')).state === 'claimed');
        expect(await one.settle(key, 'A', { stale: true })).toBe(false);
        expect(await one.release(key, 'A')).toBe(false);
        expect(await two.settle(key, 'B', { fresh: true })).toBe(true);
        expect((await readOne(one, key))?.result).toEqual({ fresh: true });
      }),
    );

    if (options.transact) {
      const harness = options.transact;
      it(
        'across instances: transact of one key on both at the same moment commits its effect once',
        withTwo(async (one, two) => {
          const key = storeKey('webhook', 'evt_shared_tx');
          const results = await Promise.all(
            Array.from({ length: 10 }, (_, i) => transactOf(i % 2 ? one : two)(key, harness.effect('shared-tx'), { result: { i } })),
          );
          expect(results.filter((r) => r.state === 'done')).toHaveLength(1);
          expect(results.filter((r) => r.state === 'settled')).toHaveLength(9);
          expect(await harness.count('shared-tx')).toBe(1);
        }),
      );
    }
  }

  function describeTransact(): void {
    const harness = options.transact;
    if (!harness) {
      it(
        'has no transact (not a transactional store)',
        withStore(async (_, store) => {
          expect(store.transact).toBeUndefined();
        }),
      );
      it.skip(`transact: ${name} is not transactional (its effects cannot share a commit with its records)`, () => {});
      return;
    }

    it(
      'transact: runs the effect and settles the key in one commit',
      withStore(async (_, store) => {
        const key = storeKey('webhook', 'evt_tx');
        expect(await transactOf(store)(key, harness.effect('tx-1'), { data: { type: 'payment.succeeded' }, result: { ok: 1 } })).toEqual({
          state: 'done',
        });
        expect(await harness.count('tx-1')).toBe(1);
        expect(await readOne(store, key)).toMatchObject({ key, settled: true, data: { type: 'payment.succeeded' }, result: { ok: 1 } });
      }),
    );

    it(
      'transact: a settled key does not run the effect again',
      withStore(async (_, store) => {
        const key = storeKey('webhook', 'evt_tx_again');
        expect((await transactOf(store)(key, harness.effect('tx-2'))).state).toBe('done');
        expect(await transactOf(store)(key, harness.effect('tx-2'))).toEqual({ state: 'settled' });
        expect(await harness.count('tx-2')).toBe(1);
        const other = storeKey('webhook', 'evt_tx_settled_by_claim');
        await claim(store, other, 'A');
        expect(await store.settle(other, 'A')).toBe(true);
        expect(await transactOf(store)(other, harness.effect('tx-3'))).toEqual({ state: 'settled' });
        expect(await harness.count('tx-3')).toBe(0);
      }),
    );

    it(
      'transact: an effect that throws rolls back (the key is not settled) and its error comes back unchanged',
      withStore(async (_, store) => {
        const key = storeKey('webhook', 'evt_tx_throw');
        const boom = new Error('no order yet');
        const effect = harness.effect('tx-4');
        let thrown: unknown;
        try {
          await transactOf(store)(key, async (context) => {
            await effect(context);
            throw boom;
          });
        } catch (error) {
          thrown = error;
        }
        expect(thrown).toBe(boom);
        expect(await harness.count('tx-4')).toBe(0);
        expect((await readOne(store, key))?.settled ?? false).toBe(false);
        expect(await transactOf(store)(key, effect)).toEqual({ state: 'done' });
        expect(await harness.count('tx-4')).toBe(1);
      }),
    );

    it(
      'transact: of one key at the same moment from 10 callers commits its effect exactly once',
      withStore(async (_, store) => {
        const key = storeKey('webhook', 'evt_tx_race');
        const results = await Promise.all(Array.from({ length: 10 }, () => transactOf(store)(key, harness.effect('tx-5'))));
        expect(results.filter((r) => r.state === 'done')).toHaveLength(1);
        expect(results.filter((r) => r.state === 'settled')).toHaveLength(9);
        expect(await harness.count('tx-5')).toBe(1);
      }),
    );

    it(
      "transact: a key another owner holds under a live lease is busy, and the effect doesn't run",
      withStore(async (_, store) => {
        const key = storeKey('webhook', 'evt_tx_busy');
        await claim(store, key, 'A');
        expect(await transactOf(store)(key, harness.effect('tx-6'))).toEqual({ state: 'busy' });
        expect(await harness.count('tx-6')).toBe(0);
        expect(await readOne(store, key)).toMatchObject({ settled: false, owner: 'A' });
      }),
    );
  }
}

/** The store's `transact`, which the transactional cases require. */
function transactOf<Context, Effects>(store: Store<Context, Effects>): NonNullable<Store<Context, Effects>['transact']> {
  const transact = store.transact;
  if (!transact) throw new Error(`the ${store.kind} store has no transact, but the suite was given a transact harness`);
  return transact.bind(store);
}
