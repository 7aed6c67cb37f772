/**
 * The store contract (test/helpers/store-contract.ts) against `redisStore` on a real redis-server,
 * through node-redis (RESP2, and RESP3, whose replies differ) and ioredis; the second instance of the cross-instance cases
 * is a new connection of the other client, so both read and write the same records. Without
 * redis-server these tests skip with one line saying why, except under CI=true, where they fail
 * (test/helpers/redis.ts).
 */
import { Redis } from 'ioredis';
import { createClient } from 'redis';
import { afterAll, beforeAll } from 'vitest';
import { type RedisStoreClient, redisStore } from '../../src/stores/redis.js';
import { describeRedis, type RedisServer, startRedisServer } from '../helpers/redis.js';
import { describeStoreContract } from '../helpers/store-contract.js';

type Which = 'node-redis' | 'node-redis RESP3' | 'ioredis';

describeRedis('redisStore contract', () => {
  let redis: RedisServer;
  const clients = new Map<Which, RedisStoreClient>();
  let tests = 0;

  /** A new connection of `which`, and how to close it. */
  async function connect(which: Which): Promise<{ client: RedisStoreClient; close(): Promise<void> }> {
    if (which === 'ioredis') {
      const client = new Redis(redis.port, '127.0.0.1');
      return { client, close: async () => void (await client.quit()) };
    }
    const client = createClient({ url: redis.url, ...(which === 'node-redis RESP3' && { RESP: 3 as const }) });
    await client.connect();
    return { client, close: () => client.close() };
  }

  const closers: Array<() => Promise<void>> = [];
  beforeAll(async () => {
    redis = await startRedisServer();
    for (const which of ['node-redis', 'node-redis RESP3', 'ioredis'] as const) {
      const { client, close } = await connect(which);
      clients.set(which, client);
      closers.push(close);
    }
  });

  afterAll(async () => {
    for (const close of closers) await close();
    await redis?.stop();
  });

  for (const which of ['node-redis', 'node-redis RESP3', 'ioredis'] as const) {
    const other: Which = which === 'ioredis' ? 'node-redis' : 'ioredis';
    describeStoreContract(
      `redisStore (${which})`,
      async () => {
        // A prefix per test: each starts empty.
        const prefix = `contract:${which}:${++tests}:`;
        const opened: Array<() => Promise<void>> = [];
        return {
          store: redisStore(clients.get(which) as RedisStoreClient, { prefix }),
          async makeSecond() {
            const { client, close } = await connect(other);
            opened.push(close);
            return redisStore(client, { prefix });
          },
          async cleanup() {
            for (const close of opened) await close();
          },
        };
      },
      { shared: true },
    );
  }
});
