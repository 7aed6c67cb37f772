/**
 * `postgresJournal` against a real PostgreSQL server, through a pg Pool and a postgres.js sql: the
 * claim, its lease (on the database's clock) and its takeover, renewals, outcomes, the row hash and
 * the restart of a retryable refusal, reads, and rows sent too long ago. Then worker processes
 * running one batch together through a fault-injecting proxy, one of them SIGKILLed mid-way, and a
 * rerun: the service holds exactly one payout per row.
 */
import type { BulkJournal } from 'payments-sdk';
import { type PostgresDatabase, postgresJournal } from 'payments-sdk/postgres';
import type { MockHttpServer, MockService } from 'payments-sdk/testing';
import pg from 'pg';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BulkClaimRequest } from '../../src/bulk/journal.js';
import { type FaultProxy, startFaultProxy } from '../bulk/fault-proxy.js';
import { bundleChild, runChild } from '../bulk/processes.js';
import { allPayouts, countByRow, liveClient, payoutMock } from '../helpers/bulk.js';
import { describePostgres, type PostgresServer, startPostgresServer } from '../helpers/postgres.js';

const ROWS = 1200;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

let server: PostgresServer;
let admin: pg.Pool;
let sql: ReturnType<typeof postgres>;

const request = (over: Partial<BulkClaimRequest> = {}): BulkClaimRequest => ({
  batchId: 'b',
  rowKey: 'emp-1',
  idempotencyKey: 'bulk1_k',
  index: 1,
  owner: 'A',
  now: 1_000_000,
  leaseMs: 150,
  sentBefore: 0,
  ...over,
});

describePostgres('postgresJournal', () => {
  let child: { file: string; cleanup(): Promise<void> };

  beforeAll(async () => {
    server = await startPostgresServer();
    admin = new pg.Pool({ connectionString: server.url, max: 4 });
    admin.on('error', () => {});
    sql = postgres(server.url, { max: 4, onnotice: () => {} });
    child = await bundleChild();
  }, 60_000);

  afterAll(async () => {
    await sql?.end({ timeout: 1 });
    await admin?.end();
    await server?.stop();
    await child?.cleanup();
  });

  it('refuses a bad table or leaseMs, and a db of the wrong shape, naming each', () => {
    expect(() => postgresJournal(admin, { table: 'a;drop', leaseMs: 1 })).toThrow(/table must be a name.*; leaseMs must be an integer/);
    expect(() => postgresJournal({} as PostgresDatabase)).toThrow(/postgresJournal: pass a pg Pool or Client/);
  });

  it('migrate() runs any number of times, from several callers at once, and creates what schemaSql() says', async () => {
    const journal = postgresJournal(admin, { table: 'public.migrated_journal' });
    await Promise.all([journal.migrate(), journal.migrate(), postgresJournal(sql, { table: 'public.migrated_journal' }).migrate()]);
    expect(journal.schemaSql()).toContain('CREATE TABLE IF NOT EXISTS "public"."migrated_journal"');
    const columns = await admin.query("SELECT column_name FROM information_schema.columns WHERE table_name = 'migrated_journal'");
    expect(columns.rows.map((r) => r.column_name)).toEqual(
      expect.arrayContaining(['batch_id', 'row_key', 'idempotency_key', 'lease_until']),
    );
  });

  for (const which of ['pg Pool', 'postgres.js'] as const) {
    describe(which, () => {
      const db = () => (which === 'pg Pool' ? admin : sql) as PostgresDatabase;
      const journal = async (table: string, leaseMs?: number): Promise<BulkJournal & { renew: NonNullable<BulkJournal['renew']> }> => {
        const j = postgresJournal(db(), { table: `${table}_${which === 'pg Pool' ? 'pg' : 'js'}`, ...(leaseMs && { leaseMs }) });
        await j.migrate();
        return j;
      };

      it('claims a row once: another owner finds it busy, then takes it over when the lease expires (same key, first send time kept)', async () => {
        const j = await journal('lease');
        const first = await j.claim(request());
        expect(first).toEqual({ state: 'claimed', record: { idempotencyKey: 'bulk1_k', index: 1, attempts: 1, sentAt: 1_000_000 } });
        expect((await j.claim(request({ owner: 'B', now: 1_000_050 }))).state).toBe('busy');
        // The owner itself may claim again (a retry).
        expect((await j.claim(request({ now: 1_000_060 }))).record?.attempts).toBe(2);
        await sleep(250);
        const taken = await j.claim(request({ owner: 'B', now: 2_000_000, idempotencyKey: 'other' }));
        expect(taken).toEqual({ state: 'claimed', record: { idempotencyKey: 'bulk1_k', index: 1, attempts: 3, sentAt: 1_000_000 } });
        // The old owner's release no longer drops B's claim.
        await j.release('b', 'emp-1', 'A', { name: 'APIConnectionError', message: 'reset' });
        expect((await j.claim(request({ owner: 'C', now: 2_000_001 }))).state).toBe('busy');
      });

      it("keeps leases on the database's clock: a runner whose clock is hours ahead takes over nothing", async () => {
        const j = await journal('clock');
        await j.claim(request({ leaseMs: 10_000 }));
        expect((await j.claim(request({ owner: 'B', now: 99_000_000_000 }))).state).toBe('busy');
      });

      it("never holds a row for less than the journal's leaseMs, even when the runner asks for less", async () => {
        const j = await journal('floor', 1000);
        await j.claim(request({ leaseMs: 50 }));
        await sleep(200);
        expect((await j.claim(request({ owner: 'B' }))).state).toBe('busy');
        expect(await j.renew('b', 'emp-1', 'A', 50, 0)).toBe(true);
        await sleep(200);
        expect((await j.claim(request({ owner: 'B' }))).state).toBe('busy');
      });

      it('renews a lease only for its owner and while it lasts; settles an outcome, after which every claim is done', async () => {
        const j = await journal('settle');
        await j.claim(request({ leaseMs: 100 }));
        expect(await j.renew('b', 'emp-1', 'B', 10_000, 0)).toBe(false);
        expect(await j.renew('b', 'emp-1', 'A', 10_000, 0)).toBe(true);
        await sleep(200);
        expect((await j.claim(request({ owner: 'B' }))).state).toBe('busy');
        await j.settle('b', 'emp-1', 'A', { status: 'created', at: 5, payout: { id: 'po_1', status: 'pending_approval' } });
        expect(await j.renew('b', 'emp-1', 'A', 10_000, 0)).toBe(false);
        expect(await j.claim(request({ owner: 'B' }))).toEqual({
          state: 'done',
          record: {
            idempotencyKey: 'bulk1_k',
            index: 1,
            attempts: 1,
            sentAt: 1_000_000,
            outcome: { status: 'created', at: 5, payout: { id: 'po_1', status: 'pending_approval' } },
          },
        });
        // A lease that ended is not renewed: another worker may have the row by then.
        await j.claim(request({ rowKey: 'emp-2', leaseMs: 50 }));
        await sleep(150);
        expect(await j.renew('b', 'emp-2', 'A', 10_000, 0)).toBe(false);
      });

      it('reports a row sent before the window without an outcome as expired, never claimed', async () => {
        const j = await journal('expired');
        await j.claim(request());
        await j.release('b', 'emp-1', 'A', { name: 'APITimeoutError', message: 'timed out' });
        const late = await j.claim(request({ owner: 'B', now: 90_000_000, sentBefore: 1_000_001 }));
        expect(late.state).toBe('expired');
        expect(late.record).toMatchObject({ sentAt: 1_000_000, lastError: { name: 'APITimeoutError' } });
        expect(late.record?.outcome).toBeUndefined();
      });

      it('keeps the row hash; restarts a retryable refusal once, at the next generation, under the new key; reads many records', async () => {
        const j = await journal('retry');
        await j.claim(request({ rowHash: 'h0' }));
        expect((await j.claim(request({ rowHash: 'other' }))).record?.rowHash).toBe('h0');
        await j.settle('b', 'emp-1', 'A', {
          status: 'failed',
          at: 1,
          error: { name: 'PermissionDeniedError', message: 'no', status: 403 },
          retryable: true,
        });
        expect((await j.claim(request({ owner: 'B' }))).state).toBe('done');
        expect((await j.claim(request({ owner: 'B', retry: { generation: 2, idempotencyKey: 'bulk1_r2' } }))).state).toBe('done');
        const restarted = await j.claim(
          request({ owner: 'B', now: 2_000_000, rowHash: 'h1', retry: { generation: 1, idempotencyKey: 'bulk1_r1' } }),
        );
        expect(restarted).toEqual({
          state: 'claimed',
          record: { idempotencyKey: 'bulk1_r1', index: 1, attempts: 1, sentAt: 2_000_000, rowHash: 'h1', generation: 1 },
        });
        expect((await j.claim(request({ owner: 'C', now: 2_000_001, retry: { generation: 1, idempotencyKey: 'bulk1_r1' } }))).state).toBe(
          'busy',
        );
        await j.settle('b', 'emp-1', 'B', { status: 'created', at: 2, payout: { id: 'po_1' } });
        expect((await j.claim(request({ owner: 'C', retry: { generation: 1, idempotencyKey: 'bulk1_r1' } }))).state).toBe('done');
        await j.claim(request({ rowKey: 'emp-2' }));
        await j.settle('b', 'emp-2', 'A', {
          status: 'failed',
          at: 1,
          error: { name: 'IdempotencyConflictError', message: 'x', status: 409 },
        });
        expect((await j.claim(request({ rowKey: 'emp-2', retry: { generation: 1, idempotencyKey: 'k' } }))).state).toBe('done');
        const read = await j.read('b', ['emp-1', 'nobody', 'emp-2']);
        expect(read[0]).toMatchObject({ idempotencyKey: 'bulk1_r1', generation: 1, outcome: { status: 'created' } });
        expect(read[1]).toBeUndefined();
        expect(read[2]).toMatchObject({ idempotencyKey: 'bulk1_k', outcome: { status: 'failed' } });
        // Batches are apart: the same row key in another batch is another row.
        expect(await j.read('other', ['emp-1'])).toEqual([undefined]);
        // Reads of more rows than one statement takes, in the order asked.
        const many = Array.from({ length: 2500 }, (_, i) => (i === 2400 ? 'emp-1' : `none-${i}`));
        const records = await j.read('b', many);
        expect(records).toHaveLength(2500);
        expect(records.flatMap((r, i) => (r ? [i] : []))).toEqual([2400]);
      });

      it('drops a late outcome from a worker whose row another took: a stale refusal never reopens a row paid at the next generation', async () => {
        const j = await journal('stale');
        await j.claim(request({ leaseMs: 50 }));
        await sleep(150);
        // A stopped answering; B takes the row over and records the service's refusal.
        expect((await j.claim(request({ owner: 'B' }))).state).toBe('claimed');
        const refused = {
          status: 'failed',
          at: 1,
          error: { name: 'PermissionDeniedError', message: 'no', status: 403 },
          retryable: true,
        } as const;
        await j.settle('b', 'emp-1', 'B', refused);
        // A rerun with retryFailed sends the row again under a new key, and it is paid.
        expect((await j.claim(request({ owner: 'C', retry: { generation: 1, idempotencyKey: 'bulk1_r1' } }))).state).toBe('claimed');
        await j.settle('b', 'emp-1', 'C', { status: 'created', at: 2, payout: { id: 'po_1' } });
        // A wakes up and records what it was answered for the old key.
        await j.settle('b', 'emp-1', 'A', refused);
        expect((await j.read('b', ['emp-1']))[0]).toMatchObject({ idempotencyKey: 'bulk1_r1', outcome: { status: 'created' } });
        expect((await j.claim(request({ owner: 'D', retry: { generation: 2, idempotencyKey: 'bulk1_r2' } }))).state).toBe('done');
      });

      it('many runners claiming one row at the same moment: exactly one holds it', async () => {
        const j = await journal('race', 10_000);
        const answers = await Promise.all(
          Array.from({ length: 12 }, (_, i) => j.claim(request({ rowKey: 'contended', owner: `R${i}`, leaseMs: 10_000 }))),
        );
        expect(answers.filter((a) => a.state === 'claimed')).toHaveLength(1);
        expect(answers.filter((a) => a.state !== 'claimed').every((a) => a.state === 'busy')).toBe(true);
      });
    });
  }

  async function servedMock(faultShare: number): Promise<{ mock: MockService; server: MockHttpServer; proxy: FaultProxy }> {
    const mock = payoutMock();
    const http = await mock.listen();
    const share = faultShare / 4;
    const proxy = await startFaultProxy(http.url, {
      seed: 25,
      mix: { 'reset-before': share, 'reset-after': share, 'created-502': share, '503': share },
      holdMs: 0,
    });
    return { mock, server: http, proxy };
  }

  const envFor = (mock: MockService, proxy: FaultProxy, batchId: string, runner: string, client: string) => ({
    BULK_API_KEY: mock.liveApiKey as string,
    BULK_BASE_URL: proxy.url,
    BULK_ROWS: String(ROWS),
    BULK_BATCH_ID: batchId,
    BULK_PG_URL: server.url,
    BULK_PG_CLIENT: client,
    BULK_RUNNER: runner,
    BULK_CONCURRENCY: '6',
    BULK_LEASE_MS: '1500',
  });

  it(`three worker processes (pg and postgres.js) on one ${ROWS}-row batch through injected faults, one SIGKILLed mid-way, then a rerun: one payout per row`, async () => {
    await postgresJournal(admin).migrate();
    const { mock, server: http, proxy } = await servedMock(0.1);
    try {
      const a = runChild(child.file, envFor(mock, proxy, 'workers', 'A', 'pg'), (run) => {
        if (run.lines === 200) run.child.kill('SIGKILL');
      });
      const b = runChild(child.file, envFor(mock, proxy, 'workers', 'B', 'postgres.js'));
      const c = runChild(child.file, envFor(mock, proxy, 'workers', 'C', 'pg'));
      const [endA, endB, endC] = await Promise.all([a.exited, b.exited, c.exited]);
      expect(endA.signal, a.stderr).toBe('SIGKILL');
      for (const [run, end] of [
        [b, endB],
        [c, endC],
      ] as const) {
        expect(end.code, run.stderr).toBe(0);
        expect(run.lines).toBe(ROWS);
        expect(run.summary).toMatchObject({ total: ROWS, failed: 0, needs_reconciliation: 0 });
      }
      const sentBy = (run: typeof a) => [...run.results].filter(([, s]) => s === 'created' || s === 'replayed').map(([i]) => i);
      expect(sentBy(b).length).toBeGreaterThan(0);
      expect(sentBy(c).length).toBeGreaterThan(0);
      // On the wire: only the rows A had in flight when it died were sent by two workers.
      const shared = [...proxy.senders.values()].filter((s) => s.size > 1);
      expect(shared.every((s) => s.has('A'))).toBe(true);
      expect(shared.length).toBeLessThanOrEqual(12);

      // A rerun finds every row done, and sends nothing.
      const before = proxy.senders.size;
      const rerun = runChild(child.file, envFor(mock, proxy, 'workers', 'D', 'postgres.js'));
      expect((await rerun.exited).code, rerun.stderr).toBe(0);
      expect(rerun.summary).toMatchObject({ total: ROWS, skipped: ROWS });
      expect(proxy.senders.size).toBe(before);

      // The service created exactly one payout per row.
      const payouts = await allPayouts(liveClient(mock));
      expect(payouts).toHaveLength(ROWS);
      const counts = countByRow(payouts);
      expect(counts.size).toBe(ROWS);
      expect([...counts.values()].every((n) => n === 1)).toBe(true);
      // The table holds no API key, and no held row is left.
      const table = await admin.query('SELECT * FROM payments_bulk_journal WHERE batch_id = $1', ['workers']);
      expect(table.rows).toHaveLength(ROWS);
      expect(JSON.stringify(table.rows)).not.toContain(mock.liveApiKey as string);
      expect(table.rows.filter((r) => r.owner !== null || r.outcome === null)).toEqual([]);
    } finally {
      await proxy.close();
      await http.close();
    }
  }, 180_000);
});
