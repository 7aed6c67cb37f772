/**
 * `redisJournal` against a real redis-server, with node-redis and ioredis: the claim, its lease and
 * its takeover; then two child processes running one 2,000-row batch together (one on each
 * client), and the same with one of them SIGKILLed mid-way. Without redis-server these tests skip
 * with one line saying why, except under CI=true, where they fail (test/helpers/redis.ts).
 */
import IORedis from 'ioredis';
import { type BulkJournal, redisJournal } from 'payments-sdk';
import type { MockHttpServer, MockService } from 'payments-sdk/testing';
import { createClient } from 'redis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BulkClaimRequest } from '../../src/bulk/journal.js';
import { allPayouts, countByRow, liveClient, payoutMock } from '../helpers/bulk.js';
import { describeRedis, type RedisServer, startRedisServer } from '../helpers/redis.js';
import { type FaultProxy, startFaultProxy } from './fault-proxy.js';
import { bundleChild, runChild } from './processes.js';

const ROWS = 2000;

describeRedis('redisJournal', () => {
  let redis: RedisServer;
  let node: ReturnType<typeof createClient>;
  let io: IORedis;
  let child: { file: string; cleanup(): Promise<void> };

  beforeAll(async () => {
    redis = await startRedisServer();
    node = createClient({ url: redis.url });
    await node.connect();
    io = new IORedis(redis.url);
    child = await bundleChild();
  });

  afterAll(async () => {
    await node?.close();
    io?.disconnect();
    await redis?.stop();
    await child?.cleanup();
  });

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

  for (const which of ['node-redis', 'ioredis'] as const) {
    describe(which, () => {
      const journal = (prefix: string): BulkJournal => redisJournal(which === 'ioredis' ? io : node, { prefix });

      it('claims a row once: another owner finds it busy, then takes it over when the lease expires (same key, first send time kept)', async () => {
        const j = journal(`${which}:lease:`);
        const first = await j.claim(request());
        expect(first).toEqual({ state: 'claimed', record: { idempotencyKey: 'bulk1_k', index: 1, attempts: 1, sentAt: 1_000_000 } });
        expect((await j.claim(request({ owner: 'B', now: 1_000_050 }))).state).toBe('busy');
        // The owner itself may claim again (a retry).
        expect((await j.claim(request({ now: 1_000_060 }))).record?.attempts).toBe(2);
        await new Promise((resolve) => setTimeout(resolve, 250));
        const taken = await j.claim(request({ owner: 'B', now: 2_000_000, idempotencyKey: 'other' }));
        expect(taken).toEqual({ state: 'claimed', record: { idempotencyKey: 'bulk1_k', index: 1, attempts: 3, sentAt: 1_000_000 } });
        // The old owner's release no longer drops B's claim.
        await j.release('b', 'emp-1', 'A', { name: 'APIConnectionError', message: 'reset' });
        expect((await j.claim(request({ owner: 'C', now: 2_000_001 }))).state).toBe('busy');
      });

      it('renews a lease only for its owner; settles an outcome, after which every claim is done', async () => {
        const j = journal(`${which}:settle:`);
        await j.claim(request({ leaseMs: 100 }));
        expect(await j.renew?.('b', 'emp-1', 'B', 10_000, 0)).toBe(false);
        expect(await j.renew?.('b', 'emp-1', 'A', 10_000, 0)).toBe(true);
        await new Promise((resolve) => setTimeout(resolve, 200));
        expect((await j.claim(request({ owner: 'B' }))).state).toBe('busy');
        await j.settle('b', 'emp-1', 'A', { status: 'created', at: 5, payout: { id: 'po_1', status: 'pending_approval' } });
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
      });

      it('reports a row sent before the window without an outcome as expired, never claimed', async () => {
        const j = journal(`${which}:expired:`);
        await j.claim(request());
        await j.release('b', 'emp-1', 'A', { name: 'APITimeoutError', message: 'timed out' });
        const late = await j.claim(request({ owner: 'B', now: 90_000_000, sentBefore: 1_000_001 }));
        expect(late.state).toBe('expired');
        expect(late.record).toMatchObject({ sentAt: 1_000_000, lastError: { name: 'APITimeoutError' } });
        expect(late.record?.outcome).toBeUndefined();
      });

      it('keeps the row hash; restarts a retryable refusal once, at the next generation, under the new key; reads many records', async () => {
        const j = journal(`${which}:retry:`);
        await j.claim(request({ rowHash: 'h0' }));
        await j.settle('b', 'emp-1', 'A', {
          status: 'failed',
          at: 1,
          error: { name: 'PermissionDeniedError', message: 'no', status: 403 },
          retryable: true,
        });
        // Without `retry`, or at a generation that is not the next one, the refusal stands.
        expect((await j.claim(request({ owner: 'B' }))).state).toBe('done');
        expect((await j.claim(request({ owner: 'B', retry: { generation: 2, idempotencyKey: 'bulk1_r2' } }))).state).toBe('done');
        const restarted = await j.claim(
          request({ owner: 'B', now: 2_000_000, rowHash: 'h1', retry: { generation: 1, idempotencyKey: 'bulk1_r1' } }),
        );
        expect(restarted).toEqual({
          state: 'claimed',
          record: { idempotencyKey: 'bulk1_r1', index: 1, attempts: 1, sentAt: 2_000_000, rowHash: 'h1', generation: 1 },
        });
        // A second runner asking for the same restart finds the row held, then done: never restarted twice.
        expect((await j.claim(request({ owner: 'C', now: 2_000_001, retry: { generation: 1, idempotencyKey: 'bulk1_r1' } }))).state).toBe(
          'busy',
        );
        await j.settle('b', 'emp-1', 'B', { status: 'created', at: 2, payout: { id: 'po_1' } });
        expect((await j.claim(request({ owner: 'C', retry: { generation: 1, idempotencyKey: 'bulk1_r1' } }))).state).toBe('done');
        // A refusal that is not retryable is never restarted.
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
      });
    });
  }

  async function servedMock(faultShare: number): Promise<{ mock: MockService; server: MockHttpServer; proxy: FaultProxy }> {
    const mock = payoutMock();
    const server = await mock.listen();
    const share = faultShare / 4;
    const proxy = await startFaultProxy(server.url, {
      seed: 77,
      mix: { 'reset-before': share, 'reset-after': share, 'created-502': share, '503': share },
      holdMs: 0,
    });
    return { mock, server, proxy };
  }

  const envFor = (mock: MockService, proxy: FaultProxy, batchId: string, runner: string, client: string) => ({
    BULK_API_KEY: mock.liveApiKey as string,
    BULK_BASE_URL: proxy.url,
    BULK_ROWS: String(ROWS),
    BULK_BATCH_ID: batchId,
    BULK_REDIS_URL: redis.url,
    BULK_REDIS_CLIENT: client,
    BULK_RUNNER: runner,
    BULK_CONCURRENCY: '6',
    BULK_LEASE_MS: '1500',
  });

  async function expectOnePayoutPerRow(mock: MockService) {
    const payouts = await allPayouts(liveClient(mock));
    expect(payouts).toHaveLength(ROWS);
    const counts = countByRow(payouts);
    expect(counts.size).toBe(ROWS);
    expect([...counts.values()].every((n) => n === 1)).toBe(true);
  }

  it(`two processes (node-redis and ioredis) run one ${ROWS}-row batch together: no duplicates, each row sent by one process`, async () => {
    const { mock, server, proxy } = await servedMock(0.1);
    try {
      const a = runChild(child.file, envFor(mock, proxy, 'together', 'A', 'node-redis'));
      const b = runChild(child.file, envFor(mock, proxy, 'together', 'B', 'ioredis'));
      const [endA, endB] = await Promise.all([a.exited, b.exited]);
      expect(endA.code, a.stderr).toBe(0);
      expect(endB.code, b.stderr).toBe(0);
      await expectOnePayoutPerRow(mock);
      // Each process reports every row: sent by itself, or skipped as done by the other.
      for (const run of [a, b]) {
        expect(run.lines).toBe(ROWS);
        expect(run.summary).toMatchObject({ total: ROWS, failed: 0, needs_reconciliation: 0 });
      }
      const sentBy = (run: typeof a) => [...run.results].filter(([, s]) => s === 'created' || s === 'replayed').map(([i]) => i);
      expect(sentBy(a).length).toBeGreaterThan(0);
      expect(sentBy(b).length).toBeGreaterThan(0);
      expect(new Set([...sentBy(a), ...sentBy(b)]).size).toBe(ROWS);
      // Nothing in Redis holds the API key.
      const keys = await io.keys('bulk-test:*');
      expect(keys.length).toBeGreaterThanOrEqual(ROWS);
      const dump = await Promise.all(keys.filter((k) => !k.endsWith(':lease')).map((k) => io.hgetall(k)));
      expect(JSON.stringify(dump)).not.toContain(mock.liveApiKey as string);
      expect(JSON.stringify(dump)).toContain('bulk1_');
      // On the wire: every Idempotency-Key came from one process only.
      expect(proxy.senders.size).toBe(ROWS);
      const shared = [...proxy.senders.values()].filter((s) => s.size > 1);
      expect(shared).toEqual([]);
    } finally {
      await proxy.close();
      await server.close();
    }
  }, 120_000);

  it('a row claimed and waiting for a send slot keeps its lease: a second process on a slow service never takes it over', async () => {
    const mock = payoutMock();
    const server = await mock.listen();
    // Every send takes 2.5 leases' time; each process claims one row ahead of the one it is sending.
    const proxy = await startFaultProxy(server.url, { seed: 1, mix: {}, holdMs: 0, delayMs: 1500 });
    try {
      const env = (runner: string, client: string) => ({
        ...envFor(mock, proxy, 'waiting', runner, client),
        BULK_ROWS: '6',
        BULK_CONCURRENCY: '1',
        BULK_LEASE_MS: '600',
      });
      const a = runChild(child.file, env('A', 'node-redis'));
      // B starts once A holds its first rows (one sending, one waiting).
      while (proxy.senders.size === 0) await new Promise((resolve) => setTimeout(resolve, 20));
      const b = runChild(child.file, env('B', 'ioredis'));
      const [endA, endB] = await Promise.all([a.exited, b.exited]);
      expect(endA.code, a.stderr).toBe(0);
      expect(endB.code, b.stderr).toBe(0);
      expect(proxy.senders.size).toBe(6);
      const shared = [...proxy.senders.entries()].filter(([, s]) => s.size > 1);
      expect(shared).toEqual([]);
      const payouts = await allPayouts(liveClient(mock));
      expect(payouts).toHaveLength(6);
    } finally {
      await proxy.close();
      await server.close();
    }
  }, 60_000);

  it('one of the two SIGKILLed mid-way: the other takes its rows over when their leases expire, with the same keys: no duplicates', async () => {
    const { mock, server, proxy } = await servedMock(0.1);
    try {
      const a = runChild(child.file, envFor(mock, proxy, 'takeover', 'A', 'ioredis'), (run) => {
        if (run.lines === 300) run.child.kill('SIGKILL');
      });
      const b = runChild(child.file, envFor(mock, proxy, 'takeover', 'B', 'node-redis'));
      const [endA, endB] = await Promise.all([a.exited, b.exited]);
      expect(endA.signal, a.stderr).toBe('SIGKILL');
      expect(endB.code, b.stderr).toBe(0);
      expect(b.lines).toBe(ROWS);
      expect(b.summary).toMatchObject({ total: ROWS, failed: 0, needs_reconciliation: 0 });
      await expectOnePayoutPerRow(mock);
      // Rows sent by both: only those A had in flight when it died (at most its concurrency).
      const shared = [...proxy.senders.values()].filter((s) => s.size > 1).length;
      expect(shared).toBeLessThanOrEqual(6);
    } finally {
      await proxy.close();
      await server.close();
    }
  }, 120_000);
});
