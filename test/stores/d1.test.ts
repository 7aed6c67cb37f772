/**
 * d1Store against a real D1: Miniflare's (workerd's SQLite), persisted in a temporary directory, so
 * that a new Miniflare on the same directory is a restarted Worker. Calls made from Node go through
 * Miniflare's D1 binding proxy; the race runs inside workerd, in two Workers bound to one database.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Miniflare } from 'miniflare';
import { PaymentsError } from 'payments-sdk';
import { StoreTimeoutError } from 'payments-sdk/stores';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import { type D1DatabaseLike, type D1PreparedStatementLike, d1Store } from '../../src/stores/d1.js';
import { storeKey } from '../../src/stores/store.js';
import { bundle } from '../helpers/bundle.js';
import { caught } from '../helpers/caught.js';
import { describeStoreContract } from '../helpers/store-contract.js';

const persist = mkdtempSync(join(tmpdir(), 'payments-sdk-d1-store-'));
const running: Miniflare[] = [];
const SCHEMA = [
  'CREATE TABLE IF NOT EXISTS orders (payment_uuid TEXT PRIMARY KEY, paid INTEGER NOT NULL DEFAULT 0)',
  'CREATE TABLE IF NOT EXISTS ledger (id INTEGER PRIMARY KEY AUTOINCREMENT, payment_uuid TEXT NOT NULL, amount INTEGER NOT NULL)',
];

/** Statements whose batch is in flight, kept reachable: see {@link pinned}. */
const inFlight = new Set<D1PreparedStatementLike[]>();

/**
 * Miniflare's Node-side D1 binding, with the statements of each batch kept reachable until D1
 * answers. Miniflare frees an object in workerd once its Node proxy is garbage collected; a batch's
 * statements, unreachable once the request is sent, could be freed before workerd reads them. Not
 * an issue in a Worker, where there is no proxy.
 */
function pinned(db: D1DatabaseLike): D1DatabaseLike {
  return {
    prepare: (sql) => db.prepare(sql),
    batch: async (statements) => {
      inFlight.add(statements);
      try {
        return await db.batch(statements);
      } finally {
        inFlight.delete(statements);
      }
    },
  };
}

/** A Worker's D1 binding, persisted under `persist`: a second call after `stop()` is a restart. */
async function startD1(): Promise<{ db: D1DatabaseLike; stop: () => Promise<void> }> {
  const mf = new Miniflare({
    modules: true,
    script: 'export default { fetch: () => new Response(null, { status: 404 }) };',
    compatibilityDate: '2026-01-01',
    d1Databases: { DB: 'payments-store' },
    d1Persist: persist,
  });
  running.push(mf);
  const db = pinned((await mf.getD1Database('DB')) as unknown as D1DatabaseLike);
  await db.batch(SCHEMA.map((sql) => db.prepare(sql)));
  return {
    db,
    stop: async () => {
      running.splice(running.indexOf(mf), 1);
      await mf.dispose();
    },
  };
}

const count = async (db: D1DatabaseLike, sql: string, ...values: unknown[]) =>
  (
    (await db
      .prepare(sql)
      .bind(...values)
      .first()) as { n: number }
  ).n;

const pause = (ms: number) => (ms > 0 ? new Promise((resolve) => setTimeout(resolve, ms)) : undefined);

/**
 * A D1 binding whose batches wait `delay.before` ms before they reach D1 and whose answers wait
 * `delay.after` ms, and whose batch calls are counted (`landed`: those D1 has run or refused).
 */
function slowed(db: D1DatabaseLike, delay = { before: 0, after: 0 }) {
  const calls = { batches: 0, landed: 0 };
  const wrapped: D1DatabaseLike = {
    prepare: (sql) => db.prepare(sql),
    batch: async (statements) => {
      calls.batches++;
      const { before, after } = delay;
      await pause(before);
      try {
        return await db.batch(statements);
      } finally {
        calls.landed++;
        await pause(after);
      }
    },
  };
  return { db: wrapped, calls, delay };
}

/** Polls `check` until it holds, failing after `ms`. */
async function eventually(check: () => Promise<boolean>, ms = 5_000): Promise<void> {
  const deadline = performance.now() + ms;
  while (!(await check())) {
    if (performance.now() > deadline) throw new Error('the condition did not hold in time');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

afterEach(async () => {
  vi.useRealTimers();
  for (const mf of running.splice(0)) await mf.dispose();
});
afterAll(() => rmSync(persist, { recursive: true, force: true }));

describe('d1Store on Miniflare D1', () => {
  it('creates its table on first use, once per store, and works with a table named order', async () => {
    const { db } = await startD1();
    const { db: counted, calls } = slowed(db);
    const store = d1Store(counted, { table: 'order' });
    expect(await db.prepare("SELECT name FROM sqlite_master WHERE name = 'order'").first()).toBeNull();
    const key = storeKey('webhook', 'evt_order');
    const [claim] = await store.claim([{ key, owner: 'a', leaseMs: 60_000, data: { n: 1 } }]);
    expect(claim).toEqual({
      state: 'claimed',
      record: { key, data: { n: 1 }, claims: 1, age: expect.any(Number), settled: false, owner: 'a' },
    });
    expect(await db.prepare("SELECT name FROM sqlite_master WHERE name = 'order'").first()).toEqual({ name: 'order' });
    // The table (and the clock sample) in one batch, then the claim in one.
    expect(calls.batches).toBe(2);
    expect(await store.renew(key, 'a', 60_000)).toBe(true);
    expect(await store.release(key, 'a', { why: 'x' })).toBe(true);
    expect((await store.claim([{ key, owner: 'b', leaseMs: 60_000 }]))[0]?.state).toBe('claimed');
    expect(await store.settle(key, 'b', { ok: true })).toBe(true);
    expect(await store.read([key, 'webhook:none'])).toEqual([
      { key, data: { n: 1 }, claims: 2, age: expect.any(Number), settled: true, result: { ok: true }, note: { why: 'x' } },
      undefined,
    ]);
    expect(await store.transact(key, () => [])).toEqual({ state: 'settled' });
    const other = storeKey('webhook', 'evt_order_2');
    expect(
      await store.transact(other, () => [db.prepare('INSERT INTO ledger (payment_uuid, amount) VALUES (?, ?)').bind('order', 1)]),
    ).toEqual({
      state: 'done',
    });
    expect(await count(db, 'SELECT COUNT(*) AS n FROM "order" WHERE settled = 1')).toBe(2);
    expect(calls.batches).toBe(10);
  });

  it('refuses what is not a D1 binding, a table name that is not a plain identifier, and bad timeouts', () => {
    expect(() => d1Store(undefined as unknown as D1DatabaseLike)).toThrow(PaymentsError);
    expect(() => d1Store({} as D1DatabaseLike)).toThrow(/D1 database binding/);
    const db = { prepare: () => ({}), batch: async () => [] } as unknown as D1DatabaseLike;
    for (const table of ['x; DROP TABLE y', 'a"b', '1abc', '', 'a'.repeat(65), 'sqlite_master', 'SQLITE_x']) {
      expect(() => d1Store(db, { table })).toThrow(/table must be a name/);
    }
    expect(d1Store(db, { table: `_${'a'.repeat(63)}` }).kind).toBe('d1');
    expect(() => d1Store(db, { table: '1abc', timeoutMs: 0, transactTimeoutMs: 1.5 })).toThrow(
      'd1Store: table must be a name of letters, digits and _ (not starting with a digit nor with sqlite_), at most 64 long; timeoutMs must be a positive integer, got 0; transactTimeoutMs must be a positive integer, got 1.5.',
    );
  });

  it('claims many keys in one batch, each on its own: claimed, busy, settled, and renewed by its holder', async () => {
    const { db } = await startD1();
    const { db: counted, calls } = slowed(db);
    const store = d1Store(counted, { table: 'groups' });
    await store.claim([{ key: 'bulk:b:settled', owner: 'x', leaseMs: 60_000 }]);
    expect(await store.settle('bulk:b:settled', 'x')).toBe(true);
    await store.claim([{ key: 'bulk:b:held', owner: 'x', leaseMs: 60_000 }]);
    const before = calls.batches;
    const claims = await store.claim([
      { key: 'bulk:b:1', owner: 'run', leaseMs: 60_000, data: { row: 1 } },
      { key: 'bulk:b:held', owner: 'run', leaseMs: 60_000 },
      { key: 'bulk:b:settled', owner: 'run', leaseMs: 60_000 },
      { key: 'bulk:b:1', owner: 'run', leaseMs: 60_000, data: { row: 'ignored' } },
      { key: 'bulk:b:1', owner: 'other', leaseMs: 60_000 },
    ]);
    expect(calls.batches - before).toBe(1);
    expect(claims.map((claim) => claim.state)).toEqual(['claimed', 'busy', 'settled', 'claimed', 'busy']);
    expect(claims[1]?.record.owner).toBe('x');
    expect(claims[2]?.record.owner).toBeUndefined();
    expect(claims[3]?.record).toMatchObject({ data: { row: 1 }, claims: 2, owner: 'run' });
    expect(await store.claim([])).toEqual([]);
  });

  it("decides leases and ages by D1's clock: a worker clock an hour off changes nothing", async () => {
    const { db } = await startD1();
    const store = d1Store(db, { table: 'clock' });
    const key = storeKey('payment', 'uuid-clock', 'payment.succeeded');
    const sent = performance.now();
    await store.claim([{ key, owner: 'a', leaseMs: 1_500 }]);
    vi.useFakeTimers({ toFake: ['Date'], now: Date.now() + 3_600_000 });
    expect((await store.claim([{ key, owner: 'b', leaseMs: 400 }]))[0]?.state).toBe('busy');
    vi.setSystemTime(Date.now() - 7_200_000);
    expect((await store.claim([{ key, owner: 'b', leaseMs: 400 }]))[0]?.state).toBe('busy');
    vi.useRealTimers();
    await eventually(async () => (await store.claim([{ key, owner: 'b', leaseMs: 60_000 }]))[0]?.state === 'claimed');
    expect(performance.now() - sent).toBeGreaterThanOrEqual(1_490);
    // The first owner's lease ended and another claimed since: its late writes change nothing.
    expect(await store.settle(key, 'a', { late: true })).toBe(false);
    expect(await store.release(key, 'a')).toBe(false);
    expect(await store.renew(key, 'a', 1_000)).toBe(false);
    const [record] = await store.read([key]);
    expect(record).toMatchObject({ claims: 2, owner: 'b', settled: false });
    expect(record?.age).toBeGreaterThanOrEqual(1_500);
  });

  it('keeps values exactly: \\u0000, lone surrogates and any unicode round-trip unchanged', async () => {
    const { db } = await startD1();
    const store = d1Store(db, { table: 'values' });
    const odd = {
      nul: 'a\u0000b',
      high: 'x\ud800',
      low: '\udc00y',
      pair: '😀',
      mixed: ['\ud83d', '\ude00', 'é\u0000\uffff'],
      nested: { '\u0000k': null },
    };
    const key = storeKey('bulk', 'batch\u0000', '\ud800row');
    await store.claim([{ key, owner: 'o', leaseMs: 60_000, data: odd }]);
    expect(await store.release(key, 'o', { ...odd, n: 1 })).toBe(true);
    await store.claim([{ key, owner: 'o', leaseMs: 60_000 }]);
    expect(await store.settle(key, 'o', { ...odd, n: 2 })).toBe(true);
    const [record] = await store.read([key]);
    expect(record?.data).toStrictEqual(odd);
    expect(record?.note).toStrictEqual({ ...odd, n: 1 });
    expect(record?.result).toStrictEqual({ ...odd, n: 2 });
    const other = storeKey('webhook', 'evt_values');
    expect(await store.transact(other, () => undefined, { data: odd, result: odd })).toEqual({ state: 'done' });
    expect((await store.read([other]))[0]).toMatchObject({ data: odd, result: odd, settled: true, claims: 1 });
  });

  it('transact: runs the statements and settles the key in one batch; a settled key does not call the effect', async () => {
    const { db } = await startD1();
    const store = d1Store(db, { table: 'transact' });
    await db.prepare('INSERT INTO orders (payment_uuid) VALUES (?)').bind('p-1').run();
    const key = storeKey('payment', 'p-1', 'payment.succeeded');
    const effect = vi.fn(() => [
      db.prepare('INSERT INTO ledger (payment_uuid, amount) VALUES (?, ?)').bind('p-1', 500),
      db.prepare('UPDATE orders SET paid = paid + 1 WHERE payment_uuid = ?').bind('p-1'),
    ]);
    expect(await store.transact(key, effect, { data: { event: 'e1' }, result: { ok: 1 } })).toEqual({ state: 'done' });
    expect(await store.transact(key, effect)).toEqual({ state: 'settled' });
    expect(effect).toHaveBeenCalledOnce();
    expect(effect).toHaveBeenCalledWith(undefined);
    expect(await count(db, 'SELECT paid AS n FROM orders WHERE payment_uuid = ?', 'p-1')).toBe(1);
    expect(await count(db, 'SELECT COUNT(*) AS n FROM ledger WHERE payment_uuid = ?', 'p-1')).toBe(1);
    expect((await store.read([key]))[0]).toEqual({
      key,
      data: { event: 'e1' },
      claims: 1,
      age: expect.any(Number),
      settled: true,
      result: { ok: 1 },
    });
    // Settled by transact, the key refuses everything else too.
    expect((await store.claim([{ key, owner: 'late', leaseMs: 1_000 }]))[0]?.state).toBe('settled');
  });

  it('transact: a duplicate that read the key before the first committed rolls back its statements and answers settled', async () => {
    const { db } = await startD1();
    const store = d1Store(db, { table: 'duplicate' });
    await db.prepare('INSERT INTO orders (payment_uuid) VALUES (?)').bind('p-dup').run();
    const key = storeKey('webhook', 'evt_dup');
    const effects = () => [
      db.prepare('INSERT INTO ledger (payment_uuid, amount) VALUES (?, ?)').bind('p-dup', 1),
      db.prepare('UPDATE orders SET paid = paid + 1 WHERE payment_uuid = ?').bind('p-dup'),
    ];
    // The duplicate's effect runs only once the first transaction committed: its read saw no key.
    let first: Promise<unknown> | undefined;
    const duplicate = await store.transact(key, async () => {
      first = store.transact(key, effects);
      expect(await first).toEqual({ state: 'done' });
      return effects();
    });
    expect(duplicate).toEqual({ state: 'settled' });
    expect(await count(db, 'SELECT paid AS n FROM orders WHERE payment_uuid = ?', 'p-dup')).toBe(1);
    expect(await count(db, 'SELECT COUNT(*) AS n FROM ledger WHERE payment_uuid = ?', 'p-dup')).toBe(1);
  });

  it("transact: the effect's errors, and its statements' errors, roll back and are rethrown as they are", async () => {
    const { db } = await startD1();
    const store = d1Store(db, { table: 'failures' });
    const key = storeKey('webhook', 'evt_fail');
    const thrown = new Error('no order yet');
    expect(await caught(store.transact(key, () => Promise.reject(thrown)))).toBe(thrown);
    // A statement that fails: the ledger insert before it and the key's settling roll back.
    const failing = await caught(
      store.transact(key, () => [
        db.prepare('INSERT INTO ledger (payment_uuid, amount) VALUES (?, ?)').bind('p-fail', 1),
        db.prepare('INSERT INTO ledger (payment_uuid, amount) VALUES (?, NULL)').bind('p-fail'),
      ]),
    );
    expect(failing).not.toBeInstanceOf(PaymentsError);
    expect(String(failing.message)).toMatch(/NOT NULL constraint failed: ledger\.amount/);
    expect(await count(db, 'SELECT COUNT(*) AS n FROM ledger WHERE payment_uuid = ?', 'p-fail')).toBe(0);
    expect(await store.read([key])).toEqual([undefined]);
    // A NOT NULL of a `key` column in a table whose name ends like the store's is the merchant's error.
    await db.prepare('CREATE TABLE IF NOT EXISTS xfailures ("key" TEXT NOT NULL)').run();
    const own = await caught(store.transact(key, () => [db.prepare('INSERT INTO xfailures ("key") VALUES (NULL)')]));
    expect(String(own.message)).toMatch(/NOT NULL constraint failed: xfailures\.key/);
    expect(await store.read([key])).toEqual([undefined]);
    // What is not a list of statements is refused before anything runs.
    expect(await caught(store.transact(key, () => 'UPDATE orders' as never))).toBeInstanceOf(PaymentsError);
    expect(
      await store.transact(key, () => [db.prepare('INSERT INTO ledger (payment_uuid, amount) VALUES (?, ?)').bind('p-fail', 2)]),
    ).toEqual({
      state: 'done',
    });
    expect(await count(db, 'SELECT COUNT(*) AS n FROM ledger WHERE payment_uuid = ?', 'p-fail')).toBe(1);
  });

  it('transact: a key another owner holds under a live lease is busy; once released, transact runs', async () => {
    const { db } = await startD1();
    const store = d1Store(db, { table: 'held' });
    const key = storeKey('webhook', 'evt_held');
    await store.claim([{ key, owner: 'claimer', leaseMs: 60_000 }]);
    const effect = vi.fn(() => undefined);
    expect(await store.transact(key, effect)).toEqual({ state: 'busy' });
    expect(effect).not.toHaveBeenCalled();
    // Held between the read and the batch: the guard refuses the batch.
    const other = storeKey('webhook', 'evt_held_2');
    expect(
      await store.transact(other, async () => {
        await store.claim([{ key: other, owner: 'claimer', leaseMs: 60_000 }]);
        return [db.prepare('INSERT INTO ledger (payment_uuid, amount) VALUES (?, ?)').bind('p-held', 1)];
      }),
    ).toEqual({ state: 'busy' });
    expect(await count(db, 'SELECT COUNT(*) AS n FROM ledger WHERE payment_uuid = ?', 'p-held')).toBe(0);
    expect(await store.release(key, 'claimer', { error: 'timeout' })).toBe(true);
    expect(await store.transact(key, effect, { result: { ok: true } })).toEqual({ state: 'done' });
    expect((await store.read([key]))[0]).toMatchObject({ claims: 2, settled: true, note: { error: 'timeout' }, result: { ok: true } });
  });

  it('of 20 simultaneous deliveries of one event in two Workers on one database, the effect happens exactly once', async () => {
    // Run inside workerd, where a Worker's deliveries run: two Workers are two isolates.
    const script = await bundle(`
      import { d1Store } from './src/stores/d1.ts';
      import { storeKey } from './src/stores/store.ts';
      export default {
        async fetch(request: Request, env: { DB: any }) {
          const { round, deliveries } = await request.json();
          const store = d1Store(env.DB, { table: 'race' });
          const key = storeKey('payment', 'p-race-' + round, 'payment.succeeded');
          const outcomes = await Promise.all(Array.from({ length: deliveries }, () => store.transact(key, () => [
            env.DB.prepare('INSERT INTO ledger (payment_uuid, amount) VALUES (?, ?)').bind('p-race-' + round, 100),
            env.DB.prepare('UPDATE orders SET paid = paid + 1 WHERE payment_uuid = ?').bind('p-race-' + round),
          ])));
          return Response.json(outcomes.map((outcome) => outcome.state));
        },
      };
    `);
    const worker = (name: string) => ({ name, modules: true, script, d1Databases: { DB: 'payments-store' } });
    const mf = new Miniflare({ compatibilityDate: '2026-01-01', d1Persist: persist, workers: [worker('a'), worker('b')] });
    running.push(mf);
    const db = pinned((await mf.getD1Database('DB', 'a')) as unknown as D1DatabaseLike);
    await db.batch(SCHEMA.map((sql) => db.prepare(sql)));
    // Miniflare types its Fetcher with workerd's Request; only fetch(url, init) is used here.
    type Fetcher = { fetch(url: string, init: { method: string; body: string }): Promise<{ json(): Promise<unknown> }> };
    const workers = [(await mf.getWorker('a')) as unknown as Fetcher, (await mf.getWorker('b')) as unknown as Fetcher];
    for (let round = 0; round < 3; round++) {
      await db.prepare('INSERT INTO orders (payment_uuid) VALUES (?)').bind(`p-race-${round}`).run();
      const answers = await Promise.all(
        workers.map(async (w) =>
          (await w.fetch('http://worker.local/', { method: 'POST', body: JSON.stringify({ round, deliveries: 10 }) })).json(),
        ),
      );
      const outcomes = (answers as string[][]).flat().sort();
      expect(outcomes).toEqual(['done', ...Array.from({ length: 19 }, () => 'settled')]);
      expect(await count(db, 'SELECT paid AS n FROM orders WHERE payment_uuid = ?', `p-race-${round}`)).toBe(1);
      expect(await count(db, 'SELECT COUNT(*) AS n FROM ledger WHERE payment_uuid = ?', `p-race-${round}`)).toBe(1);
    }
  });

  it('survives a restart: a new Miniflare on the same D1 directory keeps settled keys', async () => {
    const first = await startD1();
    const key = storeKey('webhook', 'evt_restart');
    const effect = vi.fn(() => [first.db.prepare('INSERT INTO ledger (payment_uuid, amount) VALUES (?, ?)').bind('p-restart', 1)]);
    expect(await d1Store(first.db, { table: 'restart' }).transact(key, effect)).toEqual({ state: 'done' });
    await first.stop();

    const second = await startD1();
    const store = d1Store(second.db, { table: 'restart' });
    expect(await store.transact(key, effect)).toEqual({ state: 'settled' });
    expect(effect).toHaveBeenCalledOnce();
    expect((await store.claim([{ key, owner: 'after', leaseMs: 1_000 }]))[0]?.state).toBe('settled');
    expect(await count(second.db, 'SELECT COUNT(*) AS n FROM ledger WHERE payment_uuid = ?', 'p-restart')).toBe(1);
  });

  it('a D1 that does not answer fails the call with StoreTimeoutError within timeoutMs', async () => {
    const { db } = await startD1();
    const stalled: D1DatabaseLike = { prepare: (sql) => db.prepare(sql), batch: () => new Promise(() => {}) };
    const store = d1Store(stalled, { timeoutMs: 200 });
    const started = performance.now();
    const error = await caught(store.claim([{ key: 'webhook:evt_stalled', owner: 'o', leaseMs: 1_000 }]));
    expect(error).toBeInstanceOf(StoreTimeoutError);
    expect(error).toBeInstanceOf(PaymentsError);
    expect(error.message).toBe('d1Store: D1 did not answer the claim within 200 ms; nothing it would have written lands later.');
    expect(performance.now() - started).toBeLessThan(1_000);
    const effect = vi.fn();
    expect(await caught(store.transact('webhook:evt_stalled', effect))).toBeInstanceOf(StoreTimeoutError);
    expect(effect).not.toHaveBeenCalled();
  });

  it('a write that reaches D1 after its call timed out changes nothing', async () => {
    const { db } = await startD1();
    const { db: slow, calls, delay } = slowed(db);
    const store = d1Store(slow, { table: 'late', timeoutMs: 1_000, transactTimeoutMs: 1_000 });
    const key = storeKey('bulk', 'b-late', 'row-1');
    await store.read([key]); // the table and D1's clock
    delay.before = 1_500;
    expect(await caught(store.claim([{ key, owner: 'o', leaseMs: 60_000 }]))).toBeInstanceOf(StoreTimeoutError);
    expect(await caught(store.settle(key, 'o'))).toBeInstanceOf(StoreTimeoutError);
    const effect = () => [db.prepare('INSERT INTO ledger (payment_uuid, amount) VALUES (?, ?)').bind('p-late', 1)];
    delay.before = 0; // the transaction's read answers in time; its batch does not
    const transact = store.transact(storeKey('webhook', 'evt_late'), () => {
      delay.before = 1_500;
      return effect();
    });
    expect(await caught(transact)).toBeInstanceOf(StoreTimeoutError);
    await eventually(async () => calls.landed === calls.batches);
    delay.before = 0;
    expect(await store.read([key, storeKey('webhook', 'evt_late')])).toEqual([undefined, undefined]);
    expect(await count(db, 'SELECT COUNT(*) AS n FROM ledger WHERE payment_uuid = ?', 'p-late')).toBe(0);
  });

  it("a Worker clock set back after D1's time was measured refuses nothing: the store measures again and retries once", async () => {
    const { db } = await startD1();
    const { db: counted, calls } = slowed(db);
    const store = d1Store(counted, { table: 'stepped' });
    const key = storeKey('bulk', 'b-step', 'row-1');
    await store.read([key]); // D1's time measured against this clock
    const real = performance.now.bind(performance);
    vi.spyOn(performance, 'now').mockImplementation(() => real() - 60_000);
    try {
      let before = calls.batches;
      // The first deadline falls a minute early by D1's clock: the answer says so, and the claim is tried again.
      expect((await store.claim([{ key, owner: 'o', leaseMs: 60_000 }]))[0]).toMatchObject({ state: 'claimed', record: { claims: 1 } });
      expect(calls.batches - before).toBe(2);
      before = calls.batches;
      // Measured again: no more retries.
      expect(await store.renew(key, 'o', 60_000)).toBe(true);
      expect(calls.batches - before).toBe(1);
    } finally {
      vi.restoreAllMocks();
    }
    // Set back once more, further: settle, release and transact correct themselves too.
    vi.spyOn(performance, 'now').mockImplementation(() => real() - 120_000);
    try {
      expect(await store.settle(key, 'o', { ok: true })).toBe(true);
    } finally {
      vi.restoreAllMocks();
    }
    vi.spyOn(performance, 'now').mockImplementation(() => real() - 180_000);
    try {
      const other = storeKey('bulk', 'b-step', 'row-2');
      await store.claim([{ key: other, owner: 'o', leaseMs: 60_000 }]);
      vi.spyOn(performance, 'now').mockImplementation(() => real() - 240_000);
      expect(await store.release(other, 'o', { n: 1 })).toBe(true);
      vi.spyOn(performance, 'now').mockImplementation(() => real() - 300_000);
      expect(
        await store.transact(storeKey('webhook', 'evt_step'), () => [
          db.prepare('INSERT INTO ledger (payment_uuid, amount) VALUES (?, ?)').bind('p-step', 1),
        ]),
      ).toEqual({ state: 'done' });
      expect(await count(db, 'SELECT COUNT(*) AS n FROM ledger WHERE payment_uuid = ?', 'p-step')).toBe(1);
    } finally {
      vi.restoreAllMocks();
    }
    expect(await store.read([key])).toEqual([expect.objectContaining({ settled: true, claims: 1, result: { ok: true } })]);
  });

  it('a claim granted by D1 whose answer came after the call timed out is given back', async () => {
    const { db } = await startD1();
    const { db: slow, delay } = slowed(db);
    const store = d1Store(slow, { table: 'late_answer', timeoutMs: 1_000 });
    const key = storeKey('bulk', 'b-late', 'row-2');
    await store.read([key]);
    delay.after = 1_500;
    expect(await caught(store.claim([{ key, owner: 'o', leaseMs: 60_000 }]))).toBeInstanceOf(StoreTimeoutError);
    delay.after = 0;
    await eventually(async () => (await store.read([key]))[0]?.claims === 1 && (await store.read([key]))[0]?.owner === undefined);
    expect((await store.claim([{ key, owner: 'next', leaseMs: 60_000 }]))[0]?.state).toBe('claimed');
  });

  it('tries to create its table again after a failure', async () => {
    const { db } = await startD1();
    let failures = 1;
    const flaky: D1DatabaseLike = {
      prepare: (sql) => db.prepare(sql),
      batch: (statements: D1PreparedStatementLike[]) =>
        failures-- > 0 ? Promise.reject(new Error('D1 unreachable')) : db.batch(statements),
    };
    const store = d1Store(flaky, { table: 'flaky' });
    expect((await caught(store.read(['webhook:evt_f']))).message).toBe('D1 unreachable');
    expect((await store.claim([{ key: 'webhook:evt_f', owner: 'o', leaseMs: 1_000 }]))[0]?.state).toBe('claimed');
  });
});

/**
 * The contract suite, from Node, on one Miniflare whose two Workers bind one D1 database: the second
 * instance of a case is a store on the other Worker's binding. Each case gets a table of its own.
 */
let contractD1: Promise<{ mf: Miniflare; one: D1DatabaseLike; two: D1DatabaseLike }> | undefined;
let contractTables = 0;
const startContractD1 = () => {
  contractD1 ??= (async () => {
    const worker = (name: string) => ({
      name,
      modules: true,
      script: 'export default { fetch: () => new Response(null, { status: 404 }) };',
      d1Databases: { DB: 'payments-store-contract' },
    });
    const mf = new Miniflare({ compatibilityDate: '2026-01-01', d1Persist: persist, workers: [worker('one'), worker('two')] });
    const one = pinned((await mf.getD1Database('DB', 'one')) as unknown as D1DatabaseLike);
    const two = pinned((await mf.getD1Database('DB', 'two')) as unknown as D1DatabaseLike);
    await one.prepare('CREATE TABLE IF NOT EXISTS contract_effects (tag TEXT NOT NULL)').run();
    return { mf, one, two };
  })();
  return contractD1;
};
afterAll(async () => {
  if (contractD1) await (await contractD1).mf.dispose();
});

describeStoreContract(
  'd1Store (contract)',
  async () => {
    const { one, two } = await startContractD1();
    const table = `contract_${++contractTables}`;
    return {
      // From Node, each prepare and bind is a round trip to workerd through Miniflare's proxy: a claim
      // of 200 keys takes seconds here that it does not take in a Worker.
      store: d1Store(one, { table, timeoutMs: 20_000 }),
      makeSecond: async () => d1Store(two, { table, timeoutMs: 20_000 }),
      cleanup: async () => {
        await one.batch([one.prepare(`DROP TABLE IF EXISTS "${table}"`), one.prepare('DELETE FROM contract_effects')]);
      },
    };
  },
  {
    shared: true,
    transact: {
      effect: (tag) => async () => {
        const { one } = await startContractD1();
        return [one.prepare('INSERT INTO contract_effects (tag) VALUES (?)').bind(tag)];
      },
      count: async (tag) => {
        const { one } = await startContractD1();
        return count(one, 'SELECT COUNT(*) AS n FROM contract_effects WHERE tag = ?', tag);
      },
    },
  },
);
