/**
 * Bulk payouts that never pay twice: `npm run build && node examples/bulk-payouts.ts`.
 *
 * With no configuration it runs against the built-in mock service (`payments-sdk/testing`), with a
 * rate limit of 50 requests a second: a payroll of 120 rows is started, stopped after 40 results
 * (as a crash or a deploy would), and run again from its store file. The second run skips what
 * the first finished and sends the rest; the service ends with exactly one payout per row.
 *
 * With PAYMENTS_API_KEY (a live key: payouts need one) and PAYMENTS_BASE_URL set, it pays real
 * money: it refuses to run that way unless BULK_EXAMPLE_REAL=yes.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { type BulkSummary, PaymentsClient, type PayoutCreateParams } from 'payments-sdk';
import { fileStore } from 'payments-sdk/stores';
import { createMockService } from 'payments-sdk/testing';

/** One line of a payroll file. */
interface PayrollLine extends PayoutCreateParams {
  /** The employee's reference: the row's key, stable from one run to the next. */
  reference: string;
}

export async function main(
  log: (line: string) => void = console.log,
): Promise<{ first: BulkSummary; second: BulkSummary; payouts: number }> {
  const real = Boolean(process.env.PAYMENTS_API_KEY && process.env.PAYMENTS_BASE_URL);
  if (real && process.env.BULK_EXAMPLE_REAL !== 'yes')
    throw new Error('This example pays real money with a live key: set BULK_EXAMPLE_REAL=yes to mean it.');
  const mock = real ? undefined : createMockService({ rateLimit: { requests: 50 } });
  mock?.seed({ wallets: [{ currency: 'XOF', balance: 100_000_000 }] }, { apiKey: mock.liveApiKey });
  const client = mock ? new PaymentsClient({ apiKey: mock.liveApiKey, baseUrl: mock.baseUrl, fetch: mock.fetch }) : new PaymentsClient();

  const payroll: PayrollLine[] = Array.from({ length: 120 }, (_, i) => ({
    reference: `EMP-${String(i + 1).padStart(4, '0')}`,
    amount: 150_000 + i * 1_000,
    currency: 'XOF',
    destination: { type: 'mobile_money', country: 'SEN', provider: 'orange', phone: `22177${String(1_000_000 + i).padStart(7, '0')}` },
  }));

  const dir = await mkdtemp(join(tmpdir(), 'payroll-'));
  const storePath = join(dir, 'payroll-2026-11.store');
  const options = { batchId: 'payroll-2026-11', key: (line: PayrollLine) => line.reference, concurrency: 8 };
  try {
    // First run: stopped after 40 results. Sends in flight finish and are recorded.
    const stop = new AbortController();
    const firstStore = fileStore(storePath);
    const first = client.payouts.createMany(payroll, { ...options, store: firstStore, signal: stop.signal });
    let seen = 0;
    for await (const r of first) {
      if (r.status === 'failed') log(`${r.key}: ${r.error?.message}`);
      if (++seen === 40) stop.abort();
    }
    const firstSummary = await first.summary();
    await firstStore.close?.();
    log(`first run:  ${JSON.stringify(firstSummary)}`);

    // Second run (a new process, say), same batchId and store file: done rows are skipped, the others sent.
    const secondStore = fileStore(storePath);
    const second = client.payouts.createMany(payroll, {
      ...options,
      store: secondStore,
      onProgress: (p) => {
        if (p.done % 40 === 0) log(`  ${p.done}/${p.total}: ${p.created} created, ${p.skipped} skipped, concurrency ${p.concurrency}`);
      },
    });
    const secondSummary = await second.summary();
    await secondStore.close?.();
    log(`second run: ${JSON.stringify(secondSummary)}`);
    const payouts = mock ? (await client.payouts.list({ per_page: 100 }).toArray({ limit: 10_000 })).length : Number.NaN;
    if (mock) log(`payouts in the service: ${payouts} for ${payroll.length} rows`);
    return { first: firstSummary, second: secondSummary, payouts };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) await main();
