/**
 * A bulk payout run by a child process (bundled by esbuild from src/, run by the crash and workers
 * tests) over a file store (`BULK_STORE`) or a Redis store (`BULK_REDIS_URL`, through node-redis or,
 * with `BULK_REDIS_CLIENT=ioredis`, ioredis): settings from the environment, one line per result on
 * stdout (`R <index> <status>`), then `S <summary JSON>`.
 */
import IORedis from 'ioredis';
import { createClient } from 'redis';
import { PaymentsClient } from '../../src/index.js';
import { fileStore, redisStore, type Store } from '../../src/stores/index.js';

const env = (name: string) => {
  const value = process.env[name];
  if (value === undefined) throw new Error(`${name} is not set`);
  return value;
};

const rowsCount = Number(env('BULK_ROWS'));
const client = new PaymentsClient({
  apiKey: env('BULK_API_KEY'),
  baseUrl: env('BULK_BASE_URL'),
  timeout: Number(process.env.BULK_TIMEOUT_MS ?? 5000),
  maxRetries: 10,
  headers: { 'x-runner': env('BULK_RUNNER') },
});

let store: Store;
let closeStore = async () => {};
if (process.env.BULK_REDIS_URL) {
  if (process.env.BULK_REDIS_CLIENT === 'ioredis') {
    const redis = new IORedis(process.env.BULK_REDIS_URL);
    store = redisStore(redis, { prefix: 'bulk-test:' });
    closeStore = async () => void redis.disconnect();
  } else {
    const redis = await createClient({ url: process.env.BULK_REDIS_URL }).connect();
    store = redisStore(redis, { prefix: 'bulk-test:' });
    closeStore = async () => void (await redis.close());
  }
} else {
  const file = fileStore(env('BULK_STORE'));
  store = file;
  closeStore = async () => file.close?.();
}

function* rows() {
  for (let i = 0; i < rowsCount; i++) {
    yield {
      amount: 1000 + i,
      currency: 'XOF',
      destination: { type: 'mobile_money', country: 'SEN', provider: 'orange', phone: '221771234567' },
      reference: `emp-${i}`,
    };
  }
}

const batch = client.payouts.createMany(() => rows(), {
  batchId: env('BULK_BATCH_ID'),
  key: (row) => row.reference,
  store,
  concurrency: Number(process.env.BULK_CONCURRENCY ?? 8),
  leaseMs: Number(process.env.BULK_LEASE_MS ?? 30_000),
  retryBackoff: { initialMs: 2, maxMs: 20 },
});
for await (const r of batch) process.stdout.write(`R ${r.index} ${r.status}\n`);
process.stdout.write(`S ${JSON.stringify(await batch.summary())}\n`);
await closeStore();
