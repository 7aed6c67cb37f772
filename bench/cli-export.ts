/**
 * `npm run bench:cli` (= `tsup --silent && node bench/cli-export.ts`): `payments-sdk export payments`
 * of 100,000 payments from the testing kit's service on 127.0.0.1 to CSV, against a bare
 * `for await` over the SDK that writes the same rows (same columns, same bytes: checked).
 *
 * Goals (issue 16): the CLI's RSS grows by less than 50 MB (median peak RSS of the full export minus
 * median peak RSS of a one-page export, same bin, both in every round), and its wall time is within 1.10×
 * of the bare loop's.
 * Both run as child processes on the built package (each pays Node's start-up), in interleaved
 * rounds (bare, cli, then cli, bare, …); the ratio is the median of per-round ratios, with min–max.
 *
 *   BENCH_CLI_ROWS=20000   fewer payments (a smoke run)
 *   BENCH_QUICK=1          fewer rounds
 *
 * Writes bench/cli-results.json and prints a Markdown table for BENCHMARKS.md.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createWriteStream, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { currencyExponent, PaymentsClient } from 'payments-sdk';

const root = fileURLToPath(new URL('..', import.meta.url));
const self = fileURLToPath(import.meta.url);

// ------------------------------------------------------------------------------ the bare loop
// `node bench/cli-export.ts --bare <out.csv>`: the reference the CLI is compared with. The payment
// columns of the CLI's CSV, amounts followed by their formatted value, minimal CSV quoting.
if (process.argv[2] === '--bare') {
  const out = createWriteStream(process.argv[3] as string);
  const client = new PaymentsClient();
  const amounts = ['gross_amount', 'psp_fee_amount', 'platform_fee_amount', 'net_amount_to_merchant'];
  const fields = [
    'uuid',
    'created_at',
    'status',
    'checkout_session',
    'currency',
    ...amounts,
    'payment_method',
    'mobile_money_country',
    'mobile_money_provider',
    'psp_reference',
    'failure_reason',
  ];
  const columns = fields.flatMap((f) => (amounts.includes(f) ? [f, `${f}_formatted`] : [f]));
  const formatters = new Map<string, Intl.NumberFormat>();
  const quote = (v: string) => (/[",\r\n]/.test(v) ? `"${v.replaceAll('"', '""')}"` : v);
  out.write(`${columns.join(',')}\n`);
  for await (const p of client.payments.list({ per_page: 100 })) {
    const row = p as unknown as Record<string, unknown>;
    let nf = formatters.get(p.currency);
    if (!nf) {
      const e = currencyExponent(p.currency);
      nf = new Intl.NumberFormat('en', { style: 'currency', currency: p.currency, minimumFractionDigits: e, maximumFractionDigits: e });
      formatters.set(p.currency, nf);
    }
    const f = nf;
    const exponent = 10 ** currencyExponent(p.currency);
    const cells = fields.flatMap((name) => {
      const v = row[name];
      const text = v === null || v === undefined ? '' : String(v);
      return amounts.includes(name) ? [quote(text), quote(f.format((v as number) / exponent))] : [quote(text)];
    });
    if (!out.write(`${cells.join(',')}\n`)) await once(out, 'drain');
  }
  out.end();
  await once(out, 'finish');
  process.exit(0);
}

// ------------------------------------------------------------------------------ the harness
const { createMockService } = await import('payments-sdk/testing');
const ROWS = Number(process.env.BENCH_CLI_ROWS ?? 100_000);
const ROUNDS = process.env.BENCH_QUICK === '1' ? 2 : 5;
const dir = mkdtempSync(join(os.tmpdir(), 'bench-cli-'));
// Peak RSS of the child (KB on Linux), read from the child itself at exit.
const PROBE = `data:text/javascript,process.on("exit",()=>process.stderr.write("maxrss="+process.resourceUsage().maxRSS+"\\n"))`;

const mock = createMockService({
  seed: {
    payments: Array.from({ length: ROWS }, (_, i) => ({
      gross_amount: 500 + ((i * 7919) % 250_000),
      currency: i % 4 === 0 ? 'GHS' : 'XOF',
      // 1 in 10 failed (the tenth-size export), 1 in 1000 canceled (the one-page export).
      status: i % 10 === 0 ? ('failed' as const) : i % 1000 === 1 ? ('canceled' as const) : ('succeeded' as const),
      failure_reason: i % 10 === 0 ? 'declined' : null,
    })),
  },
});
const server = await mock.listen();
const env = { ...process.env, PAYMENTS_API_KEY: mock.apiKey, PAYMENTS_BASE_URL: server.url };

interface Run {
  ms: number;
  maxRssMB: number;
}

async function run(args: string[]): Promise<Run> {
  const started = performance.now();
  const child = spawn(process.execPath, ['--import', PROBE, ...args], { env, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (c: string) => {
    stderr += c;
  });
  const [code] = (await once(child, 'close')) as [number];
  const ms = performance.now() - started;
  if (code !== 0) throw new Error(`${args.join(' ')} exited ${code}: ${stderr}`);
  const kb = Number(/maxrss=(\d+)/.exec(stderr)?.[1]);
  return { ms, maxRssMB: kb / 1024 };
}

const cliOut = join(dir, 'cli.csv');
const bareOut = join(dir, 'bare.csv');
const cli = () => run([join(root, 'dist/cli.js'), 'export', 'payments', '--out', cliOut, '--locale', 'en']);
const bare = () => run([self, '--bare', bareOut]);

// Warm-up: the mock sorts its list once; both files must be the same bytes.
await cli();
await bare();
const same = readFileSync(cliOut).equals(readFileSync(bareOut));
if (!same) throw new Error(`the CLI and the bare loop wrote different files (${cliOut}, ${bareOut}): the comparison would be unfair`);
const lines = readFileSync(cliOut, 'utf8').split('\n').length - 2;
if (lines !== ROWS) throw new Error(`expected ${ROWS} rows, got ${lines}`);

const one = () => run([join(root, 'dist/cli.js'), 'export', 'payments', '--status', 'canceled', '--out', join(dir, 'one.csv')]);
const tenth = await run([join(root, 'dist/cli.js'), 'export', 'payments', '--status', 'failed', '--out', join(dir, 'tenth.csv')]);
const ratios: number[] = [];
const cliRuns: Run[] = [];
const bareRuns: Run[] = [];
// The one-page export's peak varies by 10-20 MB from run to run: it is measured in every round too.
const oneRuns: Run[] = [];
for (let round = 0; round < ROUNDS; round++) {
  oneRuns.push(await one());
  let c: Run;
  let b: Run;
  if (round % 2 === 0) {
    b = await bare();
    c = await cli();
  } else {
    c = await cli();
    b = await bare();
  }
  cliRuns.push(c);
  bareRuns.push(b);
  ratios.push(c.ms / b.ms);
  console.error(`round ${round + 1}/${ROUNDS}: cli ${c.ms.toFixed(0)} ms, bare ${b.ms.toFixed(0)} ms, ratio ${(c.ms / b.ms).toFixed(3)}`);
}
await server.close();
rmSync(dir, { recursive: true, force: true });

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? (s[m] as number) : ((s[m - 1] as number) + (s[m] as number)) / 2;
};
const fullPeaks = cliRuns.map((r) => r.maxRssMB);
const onePeaks = oneRuns.map((r) => r.maxRssMB);
// Growth: median full-export peak − median one-page peak; its range pairs the extremes.
const growth = median(fullPeaks) - median(onePeaks);
const growthMin = Math.min(...fullPeaks) - Math.max(...onePeaks);
const growthMax = Math.max(...fullPeaks) - Math.min(...onePeaks);
const results = {
  rows: ROWS,
  rounds: ROUNDS,
  node: process.version,
  cpus: os.cpus().length,
  identicalFiles: same,
  cliMs: {
    median: median(cliRuns.map((r) => r.ms)),
    min: Math.min(...cliRuns.map((r) => r.ms)),
    max: Math.max(...cliRuns.map((r) => r.ms)),
  },
  bareMs: {
    median: median(bareRuns.map((r) => r.ms)),
    min: Math.min(...bareRuns.map((r) => r.ms)),
    max: Math.max(...bareRuns.map((r) => r.ms)),
  },
  ratio: { median: median(ratios), min: Math.min(...ratios), max: Math.max(...ratios), goal: 1.1 },
  rss: {
    onePageMB: { median: median(onePeaks), min: Math.min(...onePeaks), max: Math.max(...onePeaks) },
    tenthMB: tenth.maxRssMB,
    fullMB: { median: median(fullPeaks), min: Math.min(...fullPeaks), max: Math.max(...fullPeaks) },
    growthMB: { median: growth, min: growthMin, max: growthMax },
    bareMaxMB: Math.max(...bareRuns.map((r) => r.maxRssMB)),
    goalMB: 50,
  },
};
writeFileSync(join(root, 'bench/cli-results.json'), `${JSON.stringify(results, null, 2)}\n`);

const f1 = (n: number) => n.toFixed(1);
console.log(`
| ${ROWS.toLocaleString('en')} payments → CSV | median | min–max | goal | result |
| --- | --- | --- | --- | --- |
| wall time, CLI / bare \`for await\` (per-round ratio, ${ROUNDS} rounds) | ${results.ratio.median.toFixed(3)} | ${results.ratio.min.toFixed(3)}–${results.ratio.max.toFixed(3)} | ≤ 1.10 | ${results.ratio.median <= 1.1 ? 'ok' : 'MISSED'} |
| CLI wall time | ${(results.cliMs.median / 1000).toFixed(2)} s | ${(results.cliMs.min / 1000).toFixed(2)}–${(results.cliMs.max / 1000).toFixed(2)} s | | |
| bare loop wall time | ${(results.bareMs.median / 1000).toFixed(2)} s | ${(results.bareMs.min / 1000).toFixed(2)}–${(results.bareMs.max / 1000).toFixed(2)} s | | |
| CLI peak RSS growth (full export − one-page export) | ${f1(growth)} MB | ${f1(growthMin)}–${f1(growthMax)} MB | < 50 MB | ${growth < 50 ? 'ok' : 'MISSED'} |
| CLI peak RSS, full export | ${f1(median(fullPeaks))} MB | ${f1(Math.min(...fullPeaks))}–${f1(Math.max(...fullPeaks))} MB | | |
| CLI peak RSS, one-page export | ${f1(median(onePeaks))} MB | ${f1(Math.min(...onePeaks))}–${f1(Math.max(...onePeaks))} MB | | |
| CLI peak RSS, full export − a ${(ROWS / 10).toLocaleString('en')}-row export (flatness) | ${f1(median(fullPeaks) - tenth.maxRssMB)} MB | | | |
| bare loop peak RSS | ${f1(results.rss.bareMaxMB)} MB | | | |
`);
