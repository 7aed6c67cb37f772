/**
 * A bulk payout run by a child process (bundled by esbuild from src/, run by the crash, Redis and
 * Postgres tests): settings from the environment, one line per result on stdout (`R <index> <status>`),
 * then `S <summary JSON>`.
 */

import IORedis from 'ioredis';
import pg from 'pg';
import postgres from 'postgres';
import { createClient } from 'redis';
import { type BulkJournal, fileJournal, PaymentsClient, redisJournal } from '../../src/index.js';
import { postgresJournal } from '../../src/postgres/index.js';

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

let journal: BulkJournal;
let closeStore = async () => {};
if (process.env.BULK_PG_URL) {
  // The Postgres journal, through a pg Pool or a postgres.js sql (BULK_PG_CLIENT=postgres.js).
  const leaseMs = Number(process.env.BULK_LEASE_MS ?? 30_000);
  if (process.env.BULK_PG_CLIENT === 'postgres.js') {
    const sql = postgres(process.env.BULK_PG_URL, { max: 4, onnotice: () => {} });
    journal = postgresJournal(sql, { leaseMs });
    closeStore = () => sql.end({ timeout: 1 });
  } else {
    const pool = new pg.Pool({ connectionString: process.env.BULK_PG_URL, max: 4 });
    journal = postgresJournal(pool, { leaseMs });
    closeStore = () => pool.end();
  }
} else if (process.env.BULK_REDIS_URL) {
  if (process.env.BULK_REDIS_CLIENT === 'ioredis') {
    const redis = new IORedis(process.env.BULK_REDIS_URL);
    journal = redisJournal(redis, { prefix: 'bulk-test:' });
    closeStore = async () => void redis.disconnect();
  } else {
    const redis = await createClient({ url: process.env.BULK_REDIS_URL }).connect();
    journal = redisJournal(redis, { prefix: 'bulk-test:' });
    closeStore = async () => void (await redis.close());
  }
} else {
  journal = fileJournal(env('BULK_JOURNAL'));
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
  journal,
  concurrency: Number(process.env.BULK_CONCURRENCY ?? 8),
  leaseMs: Number(process.env.BULK_LEASE_MS ?? 30_000),
  retryBackoff: { initialMs: 2, maxMs: 20 },
});
for await (const r of batch) process.stdout.write(`R ${r.index} ${r.status}\n`);
process.stdout.write(`S ${JSON.stringify(await batch.summary())}\n`);
await closeStore();
