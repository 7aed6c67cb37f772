/**
 * A runner that lost its row in a `redisJournal` (its lease ended, another runner claimed the row;
 * its late outcome is checked by the journal contract in redis.test.ts): a late release leaves no
 * stray key, with node-redis and ioredis; and the send engine never sends a row whose lease renewal
 * answered that it was lost, against the testing kit's mock. Without redis-server these tests skip with one line saying why, except under CI=true, where
 * they fail (test/helpers/redis.ts).
 */
import IORedis from 'ioredis';
import { type BulkJournal, bulkIdempotencyKey, PaymentsClient, redisJournal } from 'payments-sdk';
import { createClient } from 'redis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { allPayouts, countByRow, liveClient, payoutMock, row, rows } from '../helpers/bulk.js';
import { describeRedis, type RedisServer, startRedisServer } from '../helpers/redis.js';
import { signal } from '../helpers/signal.js';

describeRedis('redisJournal: a runner that lost its row', () => {
  let redis: RedisServer;
  let node: ReturnType<typeof createClient>;
  let io: IORedis;

  beforeAll(async () => {
    redis = await startRedisServer();
    node = createClient({ url: redis.url });
    await node.connect();
    io = new IORedis(redis.url);
  });

  afterAll(async () => {
    await node?.close();
    io?.disconnect();
    await redis?.stop();
  });

  for (const which of ['node-redis', 'ioredis'] as const) {
    describe(which, () => {
      const journal = (prefix: string): BulkJournal => redisJournal(which === 'ioredis' ? io : node, { prefix });

      it('a late release of a row Redis no longer holds leaves no stray key behind', async () => {
        const j = journal(`${which}:stale:`);
        await j.release('b', 'emp-3', 'A', { name: 'APIConnectionError', message: 'reset' });
        expect(await io.exists(`${which}:stale:1:b:emp-3`)).toBe(0);
      });
    });
  }

  it('a row whose lease another runner took while it waited for a send slot is not sent again: it is claimed again and skipped as done', async () => {
    const mock = payoutMock();
    const prefix = 'lease-lost:';
    // The first runner's send of row 0 is held at the service until `answered` fires.
    const answered = signal();
    const row0Sent = signal();
    const fetch = async (input: RequestInfo | URL, init?: RequestInit) => {
      const request = new Request(input, init);
      if (request.method === 'POST' && (await request.clone().json()).amount === 1000) {
        row0Sent.fire();
        await answered.fired;
      }
      return mock.fetch(request);
    };
    const first = new PaymentsClient({ apiKey: mock.liveApiKey as string, baseUrl: mock.baseUrl, fetch, timeout: 20_000 });
    // Its renewals of row 1 fail (as if they could not reach Redis) until `stalled` is lifted.
    const real = redisJournal(io, { prefix });
    let stalled = true;
    const row1Claimed = signal();
    const row1Lost = signal();
    const journal: BulkJournal = {
      ...real,
      async claim(request) {
        const claim = await real.claim(request);
        if (request.rowKey === 'emp-1' && claim.state === 'claimed') row1Claimed.fire();
        return claim;
      },
      async renew(batchId, key, owner, leaseMs, now) {
        if (key === 'emp-1' && stalled) throw new Error('Redis did not answer');
        const held = (await real.renew?.(batchId, key, owner, leaseMs, now)) === true;
        if (key === 'emp-1' && !held) row1Lost.fire();
        return held;
      },
    };
    const options = { batchId: 'lease-lost', concurrency: 1, leaseMs: 300 };
    const firstRun = first.payouts.createMany(rows(2), { ...options, key: (r) => r.reference, journal }).summary();
    // Row 0 is on the wire; row 1 is claimed and waits for the send slot.
    await Promise.all([row0Sent.fired, row1Claimed.fired]);
    await new Promise((resolve) => setTimeout(resolve, 450));
    // Row 1's lease ended: a second runner takes it over and pays it.
    const second = await liveClient(mock)
      .payouts.createMany([row(1)], { ...options, key: (r) => r.reference, journal: redisJournal(io, { prefix }) })
      .summary();
    expect(second).toMatchObject({ total: 1, created: 1 });
    stalled = false;
    await row1Lost.fired;
    answered.fire();
    expect(await firstRun).toMatchObject({ total: 2, created: 1, skipped: 1, replayed: 0 });
    // The service saw row 1 once: from the second runner only.
    const row1Key = await bulkIdempotencyKey('lease-lost', 'emp-1');
    expect(mock.requests.filter((r) => r.method === 'POST' && r.idempotencyKey === row1Key)).toHaveLength(1);
    expect(countByRow(await allPayouts(liveClient(mock)))).toEqual(
      new Map([
        [0, 1],
        [1, 1],
      ]),
    );
  });
});
