/**
 * d1DedupeStore against a real D1: Miniflare's (workerd's SQLite), persisted in a temporary
 * directory, so that a new Miniflare instance on the same directory is a restarted Worker.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Miniflare } from 'miniflare';
import { PaymentsError } from 'payments-sdk';
import { type D1DatabaseLike, d1DedupeStore, webhookHandler } from 'payments-sdk/webhooks';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import { bundle } from '../helpers/bundle.js';
import { deliveryHeaders, eventBody, SECRET } from '../helpers/webhook-deliveries.js';

const persist = mkdtempSync(join(tmpdir(), 'payments-sdk-d1-'));
const running: Miniflare[] = [];

/** A Worker's D1 binding, persisted under `persist`: a second call after `stop()` is a restart. */
async function startD1(): Promise<{ db: D1DatabaseLike; stop: () => Promise<void> }> {
  const mf = new Miniflare({
    modules: true,
    script: 'export default { fetch: () => new Response(null, { status: 404 }) };',
    compatibilityDate: '2026-01-01',
    d1Databases: ['DB'],
    d1Persist: persist,
  });
  running.push(mf);
  const db = (await mf.getD1Database('DB')) as unknown as D1DatabaseLike;
  return {
    db,
    stop: async () => {
      running.splice(running.indexOf(mf), 1);
      await mf.dispose();
    },
  };
}

const tables = async (db: D1DatabaseLike) =>
  (await db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE '\\_%' ESCAPE '\\' ORDER BY name").first()) as {
    name: string;
  } | null;

afterEach(async () => {
  for (const mf of running.splice(0)) await mf.dispose();
});
afterAll(() => rmSync(persist, { recursive: true, force: true }));

describe('d1DedupeStore on Miniflare D1', () => {
  it('creates its table on first use, then claims once, completes, and says so', async () => {
    const { db } = await startD1();
    const store = d1DedupeStore(db, { table: 'first_use' });
    expect(await db.prepare("SELECT name FROM sqlite_master WHERE name = 'first_use'").first()).toBeNull();
    expect(await store.claim('evt_1')).toBe(true);
    expect(await db.prepare("SELECT name FROM sqlite_master WHERE name = 'first_use'").first()).toEqual({ name: 'first_use' });
    expect(await store.claim('evt_1')).toBe(false);
    expect(await store.isComplete?.('evt_1')).toBe(false);
    await store.complete?.('evt_1');
    expect(await store.isComplete?.('evt_1')).toBe(true);
    expect(await store.claim('evt_1')).toBe(false);
    // A row holds the id, its state and expiry: nothing else.
    const row = await db.prepare('SELECT * FROM first_use WHERE id = ?').bind('evt_1').first();
    expect(Object.keys(row as object).sort()).toEqual(['expires_at', 'id', 'state']);
  });

  it('of 20 simultaneous claims of one id, from two stores (two isolates) on one database, exactly one wins', async () => {
    // Run inside workerd, where a Worker's claims run: Miniflare's Node-side proxy of D1 is not
    // made for many statements in flight at once.
    const script = await bundle(`
      import { d1DedupeStore } from 'payments-sdk/webhooks';
      export default {
        async fetch(request: Request, env: { DB: any }) {
          const rounds = [];
          for (let round = 0; round < 5; round++) {
            const stores = [d1DedupeStore(env.DB, { table: 'race' }), d1DedupeStore(env.DB, { table: 'race' })];
            const claims = await Promise.all(Array.from({ length: 20 }, (_, i) => stores[i % 2].claim('evt_race_' + round)));
            rounds.push(claims.filter(Boolean).length);
          }
          return Response.json(rounds);
        },
      };
    `);
    const mf = new Miniflare({ modules: true, script, compatibilityDate: '2026-01-01', d1Databases: ['DB'], d1Persist: persist });
    running.push(mf);
    const response = await mf.dispatchFetch('http://worker.local/');
    expect(await response.json()).toEqual([1, 1, 1, 1, 1]);
  });

  it('release frees an in-flight claim, never a completed one', async () => {
    const { db } = await startD1();
    const store = d1DedupeStore(db, { table: 'releases' });
    expect(await store.claim('evt_r')).toBe(true);
    await store.release('evt_r');
    expect(await store.claim('evt_r')).toBe(true);
    await store.complete?.('evt_r');
    await store.release('evt_r');
    expect(await store.claim('evt_r')).toBe(false);
  });

  it('releases only the claim made with the same token: a delivery whose claim ran out leaves the newer one', async () => {
    const { db } = await startD1();
    vi.useFakeTimers({ toFake: ['Date'], now: Date.UTC(2026, 10, 20, 10) });
    try {
      const store = d1DedupeStore(db, { table: 'own_release', leaseMs: 30_000 });
      expect(await store.claim('evt_own', 'delivery-1')).toBe(true);
      vi.advanceTimersByTime(30_000);
      expect(await store.claim('evt_own', 'delivery-2')).toBe(true);
      await store.release('evt_own', 'delivery-1');
      expect(await store.claim('evt_own', 'delivery-3')).toBe(false);
      await store.release('evt_own', 'delivery-2');
      expect(await store.claim('evt_own', 'delivery-3')).toBe(true);
      // Without a token, the claim in flight is released, whoever made it; a handled id never is.
      await store.release('evt_own');
      expect(await store.claim('evt_own')).toBe(true);
      await store.complete?.('evt_own');
      await store.release('evt_own');
      expect(await store.isComplete?.('evt_own')).toBe(true);
    } finally {
      vi.useRealTimers();
    }
  });

  it('a lease whose instance died frees the id after leaseMs; a handled id is kept for ttlMs', async () => {
    const { db } = await startD1();
    // The store reads the time from Date.now(): moved by hand, so D1's own latency does not count.
    vi.useFakeTimers({ toFake: ['Date'], now: Date.UTC(2026, 10, 20, 10) });
    try {
      const store = d1DedupeStore(db, { table: 'expiry', leaseMs: 30_000, ttlMs: 3_600_000 });
      expect(await store.claim('evt_lease')).toBe(true);
      vi.advanceTimersByTime(29_000);
      expect(await store.claim('evt_lease')).toBe(false);
      vi.advanceTimersByTime(1_000);
      expect(await store.claim('evt_lease')).toBe(true);
      await store.complete?.('evt_lease');
      vi.advanceTimersByTime(3_599_000);
      expect(await store.claim('evt_lease')).toBe(false);
      expect(await store.isComplete?.('evt_lease')).toBe(true);
      vi.advanceTimersByTime(1_000);
      expect(await store.isComplete?.('evt_lease')).toBe(false);
      // The expired row is deleted by the next claim's round trip, which then takes the id.
      expect(await store.claim('evt_lease')).toBe(true);
      expect(await db.prepare('SELECT COUNT(*) AS n FROM expiry').first()).toEqual({ n: 1 });
    } finally {
      vi.useRealTimers();
    }
  });

  it('survives a restart: a new Miniflare on the same D1 directory sees the handled ids', async () => {
    const first = await startD1();
    const onEvent = vi.fn();
    const body = eventBody({ id: 'evt_restart' });
    const deliver = (db: D1DatabaseLike) =>
      webhookHandler({ secret: SECRET, onEvent, dedupe: d1DedupeStore(db), onError: () => {} })(
        new Request('http://127.0.0.1/webhooks', { method: 'POST', body, headers: deliveryHeaders(body) }),
      );
    expect((await deliver(first.db)).status).toBe(200);
    await first.stop();

    const second = await startD1();
    expect(await tables(second.db)).not.toBeNull();
    const again = await deliver(second.db);
    expect(again.status).toBe(200);
    expect(await again.json()).toEqual({ received: true, duplicate: true });
    expect(onEvent).toHaveBeenCalledOnce();
  });

  it('a D1 that does not answer costs a 503 within dedupeTimeoutMs, without calling onEvent', async () => {
    const { db } = await startD1();
    const stalled: D1DatabaseLike = {
      prepare: (query) => db.prepare(query),
      batch: () => new Promise(() => {}),
    };
    const onEvent = vi.fn();
    const body = eventBody({ id: 'evt_stalled' });
    const started = performance.now();
    const answer = await webhookHandler({
      secret: SECRET,
      onEvent,
      dedupe: d1DedupeStore(stalled),
      dedupeTimeoutMs: 200,
      onError: () => {},
    })(new Request('http://127.0.0.1/webhooks', { method: 'POST', body, headers: deliveryHeaders(body) }));
    expect(answer.status).toBe(503);
    expect(performance.now() - started).toBeLessThan(1500);
    expect(onEvent).not.toHaveBeenCalled();
  });

  it('tries to create its table again after a failure', async () => {
    const { db } = await startD1();
    let failures = 1;
    const flaky: D1DatabaseLike = {
      prepare: (query) => db.prepare(query),
      batch: (statements) => (failures-- > 0 ? Promise.reject(new Error('D1 unreachable')) : db.batch(statements)),
    };
    const store = d1DedupeStore(flaky, { table: 'flaky' });
    await expect(store.claim('evt_f')).rejects.toThrow('D1 unreachable');
    expect(await store.claim('evt_f')).toBe(true);
  });

  it('refuses what is not a D1 binding, and a table name that is not a plain identifier', () => {
    expect(() => d1DedupeStore(undefined as unknown as D1DatabaseLike)).toThrow(PaymentsError);
    expect(() => d1DedupeStore({} as D1DatabaseLike)).toThrow(/D1 database binding/);
    const db = { prepare: () => ({}), batch: async () => [] } as unknown as D1DatabaseLike;
    for (const table of ['x; DROP TABLE y', '1abc', '', 'a'.repeat(64)]) {
      expect(() => d1DedupeStore(db, { table })).toThrow(/table must be a name/);
    }
    expect(() => d1DedupeStore(db, { leaseMs: 0 })).toThrow(/leaseMs/);
    // Every bad option at once.
    expect(() => d1DedupeStore(db, { table: '1abc', ttlMs: -1, leaseMs: 1.5 })).toThrow(
      'd1DedupeStore: table must be a name of letters, digits and _ (not starting with a digit), at most 63 long; ttlMs must be a positive integer, got -1; leaseMs must be a positive integer, got 1.5.',
    );
  });
});
