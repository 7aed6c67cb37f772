/**
 * Several worker processes (test/bulk/child.ts) on one batch through one `redisStore` on a real
 * redis-server, against the testing kit's mock served on 127.0.0.1 behind a fault-injecting proxy:
 * two processes (node-redis and ioredis) share a 2,000-row batch, each row sent by one of them; one
 * of them SIGKILLed mid-way, its rows taken over with the same keys; and a worker SIGSTOPped while
 * its rows wait for a send slot, resumed after another took them over, sends none of them. Without
 * redis-server these tests skip with one line saying why, except under CI=true, where they fail
 * (test/helpers/redis.ts).
 */
import IORedis from 'ioredis';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { redisStore } from '../../src/stores/index.js';
import { storeKey } from '../../src/stores/store.js';
import { allPayouts, liveClient, payoutMock } from '../helpers/bulk.js';
import { expectOnePayoutPerRow, servedFaultyMock, workerEnv } from '../helpers/bulk-workers.js';
import { describeRedis, type RedisServer, startRedisServer } from '../helpers/redis.js';
import { startFaultProxy } from './fault-proxy.js';
import { bundleChild, runChild } from './processes.js';

const ROWS = 2000;

describeRedis('workers sharing a redisStore', () => {
  let redis: RedisServer;
  let io: IORedis;
  let child: { file: string; cleanup(): Promise<void> };

  beforeAll(async () => {
    redis = await startRedisServer();
    io = new IORedis(redis.url);
    child = await bundleChild();
  });

  afterAll(async () => {
    io?.disconnect();
    await redis?.stop();
    await child?.cleanup();
  });

  const storeEnv = (client: string) => ({ BULK_REDIS_URL: redis.url, BULK_REDIS_CLIENT: client });

  it(`two processes (node-redis and ioredis) run one ${ROWS}-row batch together: no duplicates, each row sent by one process`, async () => {
    const { mock, server, proxy } = await servedFaultyMock(0.1, 77);
    try {
      const a = runChild(child.file, workerEnv(mock, proxy, { rows: ROWS, batchId: 'together', runner: 'A' }, storeEnv('node-redis')));
      const b = runChild(child.file, workerEnv(mock, proxy, { rows: ROWS, batchId: 'together', runner: 'B' }, storeEnv('ioredis')));
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
      const dump = await Promise.all(keys.map(async (k) => ((await io.type(k)) === 'hash' ? io.hgetall(k) : io.get(k))));
      expect(JSON.stringify(dump)).not.toContain(mock.liveApiKey as string);
      expect(JSON.stringify(dump)).toContain('bulk1_');
      // On the wire: every Idempotency-Key came from one process only.
      expect(proxy.senders.size).toBe(ROWS);
      expect([...proxy.senders.values()].filter((s) => s.size > 1)).toEqual([]);
    } finally {
      await proxy.close();
      await server.close();
    }
  }, 120_000);

  it('one of the two SIGKILLed mid-way: the other takes its rows over when their leases expire, with the same keys: no duplicates', async () => {
    const { mock, server, proxy } = await servedFaultyMock(0.1, 78);
    try {
      const a = runChild(
        child.file,
        workerEnv(mock, proxy, { rows: ROWS, batchId: 'takeover', runner: 'A' }, storeEnv('ioredis')),
        (run) => {
          if (run.lines === 300) run.child.kill('SIGKILL');
        },
      );
      const b = runChild(child.file, workerEnv(mock, proxy, { rows: ROWS, batchId: 'takeover', runner: 'B' }, storeEnv('node-redis')));
      const [endA, endB] = await Promise.all([a.exited, b.exited]);
      expect(endA.signal, a.stderr).toBe('SIGKILL');
      expect(endB.code, b.stderr).toBe(0);
      expect(b.lines).toBe(ROWS);
      expect(b.summary).toMatchObject({ total: ROWS, failed: 0, needs_reconciliation: 0 });
      await expectOnePayoutPerRow(mock, ROWS);
      // Rows sent by both: only those A had in flight when it died, or had sent without its answer
      // recorded yet (at most twice its concurrency); each was replayed under its one key.
      expect([...proxy.senders.values()].filter((s) => s.size > 1).length).toBeLessThanOrEqual(12);
    } finally {
      await proxy.close();
      await server.close();
    }
  }, 120_000);

  it('a worker SIGSTOPped while its rows wait for a send slot, resumed after another took them over, sends none of them', async () => {
    const mock = payoutMock();
    const server = await mock.listen();
    // Every answer takes 1.5 s: A (one send at a time) holds its other claimed rows waiting for the slot.
    const proxy = await startFaultProxy(server.url, { seed: 1, mix: {}, holdMs: 0, delayMs: 1500 });
    const env = (runner: string, client: string, concurrency: string) => ({
      ...workerEnv(mock, proxy, { rows: 6, batchId: 'stopped', runner }, storeEnv(client)),
      BULK_CONCURRENCY: concurrency,
      BULK_LEASE_MS: '600',
    });
    const a = runChild(child.file, env('A', 'node-redis', '1'));
    try {
      // A's first send is on the wire: freeze A.
      const deadline = Date.now() + 10_000;
      while (proxy.senders.size === 0) {
        expect(Date.now()).toBeLessThan(deadline);
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      a.child.kill('SIGSTOP');
      // Its leases end by Redis's clock.
      const store = redisStore(io, { prefix: 'bulk-test:' });
      const keys = Array.from({ length: 6 }, (_, i) => storeKey('bulk', 'stopped', `emp-${i}`));
      while ((await store.read(keys)).some((record) => record?.owner !== undefined)) {
        expect(Date.now()).toBeLessThan(deadline);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      // B takes every row over and pays them.
      const b = runChild(child.file, env('B', 'ioredis', '6'));
      const endB = await b.exited;
      expect(endB.code, b.stderr).toBe(0);
      expect(b.summary).toMatchObject({ total: 6, failed: 0 });
    } finally {
      a.child.kill('SIGCONT');
    }
    const endA = await a.exited;
    try {
      expect(endA.code, a.stderr).toBe(0);
      // A, resumed, sent nothing more: its one send was the one on the wire when it was frozen.
      const fromA = [...proxy.senders].filter(([, s]) => s.has('A'));
      expect(fromA).toHaveLength(1);
      expect(a.summary).toMatchObject({ total: 6, failed: 0 });
      expect([...a.results.values()].filter((s) => s === 'skipped')).toHaveLength(5);
      expect(await allPayouts(liveClient(mock))).toHaveLength(6);
    } finally {
      await proxy.close();
      await server.close();
    }
  }, 60_000);
});
