/**
 * `postgresJournal` against a real PostgreSQL server, through a pg Pool and a postgres.js sql: the
 * shared journals' contract (test/helpers/journal-contract.ts: the claim, its lease on the
 * database's clock and its takeover, renewals, outcomes, the row hash and the restart of a retryable
 * refusal, reads, rows sent too long ago, racing runners, a late outcome from a runner whose row was
 * taken over), and the journal's own `leaseMs` floor. Then worker processes running one batch
 * together through a fault-injecting proxy, one of them SIGKILLed mid-way, and a rerun: the service
 * holds exactly one payout per row.
 */
import type { BulkJournal } from 'payments-sdk';
import { type PostgresDatabase, postgresJournal } from 'payments-sdk/postgres';
import type { MockService } from 'payments-sdk/testing';
import pg from 'pg';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FaultProxy } from '../bulk/fault-proxy.js';
import { bundleChild, runChild } from '../bulk/processes.js';
import { claimRequest as request } from '../helpers/bulk.js';
import { expectOnePayoutPerRow, servedFaultyMock, workerEnv } from '../helpers/bulk-workers.js';
import { journalContract, lateOutcomeContract } from '../helpers/journal-contract.js';
import { describePostgres, type PostgresServer, startPostgresServer } from '../helpers/postgres.js';

const ROWS = 1200;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

let server: PostgresServer;
let admin: pg.Pool;
let sql: ReturnType<typeof postgres>;

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

      journalContract((name) => journal(name));
      lateOutcomeContract((name) => journal(name));

      it("never holds a row for less than the journal's leaseMs, even when the runner asks for less", async () => {
        const j = await journal('floor', 1000);
        await j.claim(request({ leaseMs: 50 }));
        await sleep(200);
        expect((await j.claim(request({ owner: 'B' }))).state).toBe('busy');
        expect(await j.renew('b', 'emp-1', 'A', 50, 0)).toBe(true);
        await sleep(200);
        expect((await j.claim(request({ owner: 'B' }))).state).toBe('busy');
      });
    });
  }

  const servedMock = (faultShare: number) => servedFaultyMock(faultShare, 25);
  const envFor = (mock: MockService, proxy: FaultProxy, batchId: string, runner: string, client: string) =>
    workerEnv(mock, proxy, { rows: ROWS, batchId, runner }, { BULK_PG_URL: server.url, BULK_PG_CLIENT: client });

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
      await expectOnePayoutPerRow(mock, ROWS);
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
