/**
 * `redisJournal` against a real redis-server, with node-redis and ioredis: the shared journals'
 * contract (test/helpers/journal-contract.ts: the claim, its lease and its takeover, renewals,
 * outcomes, the row hash, retries, reads, racing runners); then two child processes running one
 * 2,000-row batch together (one on each client), and the same with one of them SIGKILLed mid-way.
 * Without redis-server these tests skip with one line saying why, except under CI=true, where they
 * fail (test/helpers/redis.ts).
 */
import IORedis from 'ioredis';
import { redisJournal } from 'payments-sdk';
import type { MockService } from 'payments-sdk/testing';
import { createClient } from 'redis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { allPayouts, liveClient, payoutMock } from '../helpers/bulk.js';
import { expectOnePayoutPerRow, servedFaultyMock, workerEnv } from '../helpers/bulk-workers.js';
import { journalContract, lateOutcomeContract } from '../helpers/journal-contract.js';
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

  for (const which of ['node-redis', 'ioredis'] as const) {
    describe(which, () => {
      journalContract(async (name) => redisJournal(which === 'ioredis' ? io : node, { prefix: `${which}:${name}:` }));
      lateOutcomeContract(async (name) => redisJournal(which === 'ioredis' ? io : node, { prefix: `${which}:${name}:` }));
    });
  }

  const servedMock = (faultShare: number) => servedFaultyMock(faultShare, 77);
  const envFor = (mock: MockService, proxy: FaultProxy, batchId: string, runner: string, client: string) =>
    workerEnv(mock, proxy, { rows: ROWS, batchId, runner }, { BULK_REDIS_URL: redis.url, BULK_REDIS_CLIENT: client });

  it(`two processes (node-redis and ioredis) run one ${ROWS}-row batch together: no duplicates, each row sent by one process`, async () => {
    const { mock, server, proxy } = await servedMock(0.1);
    try {
      const a = runChild(child.file, envFor(mock, proxy, 'together', 'A', 'node-redis'));
      const b = runChild(child.file, envFor(mock, proxy, 'together', 'B', 'ioredis'));
      const [endA, endB] = await Promise.all([a.exited, b.exited]);
      expect(endA.code, a.stderr).toBe(0);
      expect(endB.code, b.stderr).toBe(0);
      await expectOnePayoutPerRow(mock, ROWS);
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
      await expectOnePayoutPerRow(mock, ROWS);
      // Rows sent by both: only those A had in flight when it died (at most its concurrency).
      const shared = [...proxy.senders.values()].filter((s) => s.size > 1).length;
      expect(shared).toBeLessThanOrEqual(6);
    } finally {
      await proxy.close();
      await server.close();
    }
  }, 120_000);
});
