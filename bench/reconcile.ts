/**
 * `npm run bench:reconcile` (= `tsup --silent && node bench/reconcile.ts`): the rate of
 * `payments-sdk reconcile` against `payments-sdk export payments`, both the built CLI as child
 * processes, on the same testing-kit service on 127.0.0.1 holding the same payments.
 *
 * Goal: reconciling a window reads each page once, so its rate (payments read per second of wall
 * time) is at least 0.9 × the export's. Both read every payment of the window: the export in one
 * list, reconcile in one list per status (succeeded, failed, pending, processing). Runs alternate
 * (export, reconcile, then reconcile, export, …); the ratio is the median of per-round ratios, with
 * min–max. Both write CSV to a file. Both ask for the same window (`--from`): the kit's service
 * answers a filtered list by scanning every payment it holds, once per page, for both commands
 * alike, so at 100,000 payments that scan, not the SDK, sets most of the wall time.
 *
 *   BENCH_RECONCILE_ROWS=20000   fewer payments (a smoke run)
 *   BENCH_QUICK=1                fewer rounds
 *
 * Writes bench/reconcile-results.json and prints a Markdown table for BENCHMARKS.md.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createMockService } from 'payments-sdk/testing';

const root = fileURLToPath(new URL('..', import.meta.url));
const ROWS = Number(process.env.BENCH_RECONCILE_ROWS ?? 100_000);
const ROUNDS = process.env.BENCH_QUICK === '1' ? 2 : 5;
const dir = mkdtempSync(join(os.tmpdir(), 'bench-reconcile-'));
const old = new Date(Date.now() - 2 * 3_600_000).toISOString();

const mock = createMockService({
  seed: {
    payments: Array.from({ length: ROWS }, (_, i) => ({
      gross_amount: 500 + ((i * 7919) % 250_000),
      currency: i % 4 === 0 ? 'GHS' : 'XOF',
      // 1 in 10 failed, 1 in 100 still pending (two hours old: stale).
      status: i % 10 === 0 ? ('failed' as const) : i % 100 === 1 ? ('pending' as const) : ('succeeded' as const),
      failure_reason: i % 10 === 0 ? 'declined' : null,
      created_at: old,
    })),
  },
});
const server = await mock.listen();
const env = { ...process.env, PAYMENTS_API_KEY: mock.apiKey, PAYMENTS_BASE_URL: server.url };
const day = old.slice(0, 10);

async function run(args: string[], okCodes: number[]): Promise<number> {
  const started = performance.now();
  const child = spawn(process.execPath, [join(root, 'dist/cli.js'), ...args], { env, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (c: string) => {
    stderr += c;
  });
  const [code] = (await once(child, 'close')) as [number];
  const ms = performance.now() - started;
  if (!okCodes.includes(code)) throw new Error(`${args.join(' ')} exited ${code}: ${stderr}`);
  return ms;
}

const exportOut = join(dir, 'export.csv');
const reconcileOut = join(dir, 'reconcile.csv');
const exportRun = () => run(['export', 'payments', '--from', day, '--out', exportOut, '--locale', 'en'], [0]);
// Exit 1: there are findings (every final payment, without an inbox).
const reconcileRun = () => run(['reconcile', '--from', day, '--out', reconcileOut], [1]);

// Warm-up, and both read every payment: the export's rows, reconcile's findings (every final one and the stale ones).
await exportRun();
await reconcileRun();
const rows = (path: string) => readFileSync(path, 'utf8').split('\n').length - 2;
if (rows(exportOut) !== ROWS) throw new Error(`export wrote ${rows(exportOut)} rows, expected ${ROWS}`);
if (rows(reconcileOut) !== ROWS) throw new Error(`reconcile wrote ${rows(reconcileOut)} findings, expected ${ROWS}`);

const ratios: number[] = [];
const exportMs: number[] = [];
const reconcileMs: number[] = [];
for (let round = 0; round < ROUNDS; round++) {
  let e: number;
  let r: number;
  if (round % 2 === 0) {
    e = await exportRun();
    r = await reconcileRun();
  } else {
    r = await reconcileRun();
    e = await exportRun();
  }
  exportMs.push(e);
  reconcileMs.push(r);
  // Both read ROWS payments: the rate ratio is the inverse of the time ratio.
  ratios.push(e / r);
  console.error(`round ${round + 1}/${ROUNDS}: export ${e.toFixed(0)} ms, reconcile ${r.toFixed(0)} ms, rate ratio ${(e / r).toFixed(3)}`);
}
await server.close();
rmSync(dir, { recursive: true, force: true });

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? (s[m] as number) : ((s[m - 1] as number) + (s[m] as number)) / 2;
};
const rate = (ms: number) => Math.round(ROWS / (ms / 1000));
const results = {
  rows: ROWS,
  rounds: ROUNDS,
  node: process.version,
  cpus: os.cpus().length,
  loadAverage: os.loadavg(),
  exportPerSecond: { median: rate(median(exportMs)), min: rate(Math.max(...exportMs)), max: rate(Math.min(...exportMs)) },
  reconcilePerSecond: { median: rate(median(reconcileMs)), min: rate(Math.max(...reconcileMs)), max: rate(Math.min(...reconcileMs)) },
  ratio: { median: median(ratios), min: Math.min(...ratios), max: Math.max(...ratios), goal: 0.9 },
};
writeFileSync(join(root, 'bench/reconcile-results.json'), `${JSON.stringify(results, null, 2)}\n`);

console.log(`
| ${ROWS.toLocaleString('en')} payments, CLI to CSV | median | min–max | goal | result |
| --- | --- | --- | --- | --- |
| rate, reconcile / export (per-round ratio, ${ROUNDS} rounds) | ${results.ratio.median.toFixed(3)} | ${results.ratio.min.toFixed(3)}–${results.ratio.max.toFixed(3)} | ≥ 0.90 | ${results.ratio.median >= 0.9 ? 'ok' : 'MISSED'} |
| reconcile, payments/s | ${results.reconcilePerSecond.median} | ${results.reconcilePerSecond.min}–${results.reconcilePerSecond.max} | | |
| export, payments/s | ${results.exportPerSecond.median} | ${results.exportPerSecond.min}–${results.exportPerSecond.max} | | |
| load average (1, 5, 15 min) at the end | ${results.loadAverage.map((l) => l.toFixed(1)).join(', ')} on ${results.cpus} CPUs | | | |
`);
