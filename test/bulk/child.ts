/**
 * A bulk payout run by a child process (bundled by esbuild from src/, run by the crash test) over a
 * file store: settings from the environment, one line per result on stdout (`R <index> <status>`),
 * then `S <summary JSON>`.
 */
import { PaymentsClient } from '../../src/index.js';
import { fileStore, type Store } from '../../src/stores/index.js';

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

const store: Store = fileStore(env('BULK_STORE'));
const closeStore = async () => store.close?.();

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
