/**
 * `npm run bench:cli` (= `tsup --silent && node bench/cli-export.ts`; also `npm run bench`'s `export`
 * part): does `payments-sdk export` grow in memory with the number of rows no more than the platform
 * `fetch` it runs on does over the same pages, with Node's default flags? The built bin exports
 * payments to CSV from a list served on 127.0.0.1 by this process (pages made on request, so the
 * service holds nothing), at three sizes: one page (Node, the modules and the first page: the
 * baseline), 100,000 and 1,000,000 rows. Each run is a child process; its peak RSS is read from the
 * child at exit.
 *
 * The platform `fetch` alone is measured the same way: a child that walks the same pages with
 * `fetch`, `text()` and `JSON.parse` and keeps nothing. With `fetch`, each page's socket buffers stay
 * allocated until a full collection, which V8 starts when memory outside the heap has grown by its
 * external allocation limit, so the export cannot grow less than the stack it runs on does.
 *
 *   growth(N) = peak RSS of the N-row run − peak RSS of the one-page run, in the same round
 *   growth ratio = growth(1,000,000) ÷ growth(100,000), for the export and for fetch alone
 *   goal: median over rounds of (export's growth ratio ÷ fetch's growth ratio) ≤ 1
 *
 * Every run of a round is interleaved (export and fetch alone side by side at each size, the order
 * reversed from one round to the next), so that a slow patch of the machine falls on both. The wall
 * time of the 100,000-row export is also set against a bare `for await` over the SDK that writes the
 * same bytes (checked), for scale.
 *
 *   BENCH_QUICK=1          one round instead of three
 *
 * Writes bench/cli-results.json and prints a Markdown table.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createWriteStream, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { currencyExponent, PaymentsClient } from 'payments-sdk';

const root = fileURLToPath(new URL('..', import.meta.url));
const self = fileURLToPath(import.meta.url);

// ------------------------------------------------------------------------------ the bare loop
// `node bench/cli-export.ts --bare <out.csv>`: the reference for wall time. The payment columns of
// the CLI's CSV, amounts followed by their formatted value, minimal CSV quoting.
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

// ------------------------------------------------------------------------------ fetch alone
// `node bench/cli-export.ts --fetch-only`: every page of PAYMENTS_BASE_URL's payments with the
// platform fetch, each body read whole and parsed, nothing kept: the floor under the export.
if (process.argv[2] === '--fetch-only') {
  let next: string | null = `${process.env.PAYMENTS_BASE_URL}/api/v1/payments?per_page=100`;
  while (next) {
    const response = await fetch(next);
    const page = JSON.parse(await response.text()) as { links: { next: string | null } };
    next = page.links.next;
  }
  process.exit(0);
}

// ------------------------------------------------------------------------------ the list served
const { benchPayment } = (await import(new URL('./fixtures.ts', import.meta.url).href)) as typeof import('./fixtures.js');
const PER_PAGE = 100;
const SIZES = { one: 100, tenth: 100_000, full: 1_000_000 } as const;
type Size = keyof typeof SIZES;

/** Payment `n` of the list: the bench fixture, one in four in GHS (two decimals) so both formats are exercised. */
const paymentAt = (n: number) => ({ ...benchPayment(n), ...(n % 4 === 0 ? { currency: 'GHS' } : {}) });

// One listener per size: the path's first segment says how many rows its list has.
const server = createServer((req, res) => {
  const url = new URL(req.url ?? '/', 'http://127.0.0.1');
  const size = SIZES[url.pathname.split('/')[1] as Size];
  const page = Number(url.searchParams.get('page') ?? '1');
  if (!size || !url.pathname.endsWith('/api/v1/payments')) {
    res.writeHead(404, { 'content-type': 'application/json' }).end('{"message":"Not Found"}');
    return;
  }
  const lastPage = Math.ceil(size / PER_PAGE);
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}${url.pathname}`;
  const first = (page - 1) * PER_PAGE;
  const data = Array.from({ length: Math.max(0, Math.min(PER_PAGE, size - first)) }, (_, i) => paymentAt(first + i + 1));
  const body = JSON.stringify({
    data,
    links: {
      first: `${base}?page=1`,
      last: `${base}?page=${lastPage}`,
      prev: null,
      next: page < lastPage ? `${base}?page=${page + 1}` : null,
    },
    meta: { current_page: page, last_page: lastPage, per_page: PER_PAGE, total: size },
  });
  res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) }).end(body);
});
server.keepAliveTimeout = 120_000;
server.listen(0, '127.0.0.1');
await once(server, 'listening');
const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

// ------------------------------------------------------------------------------ the runs
const ROUNDS = process.env.BENCH_QUICK === '1' ? 1 : 3;
const dir = mkdtempSync(join(os.tmpdir(), 'bench-cli-'));
// Peak RSS of the child (KB), read by the child itself at exit: VmHWM of /proc/self/status, its own
// high-water mark since exec. Not getrusage's maxRSS: on Linux that starts at the parent's RSS at
// the fork, and this process's RSS grows with the pages it serves.
const PROBE =
  'data:text/javascript,import {readFileSync} from "node:fs";process.on("exit",()=>{let kb;' +
  'try{kb=/VmHWM:\\s*(\\d+)/.exec(readFileSync("/proc/self/status","utf8"))[1]}catch{kb=process.resourceUsage().maxRSS}' +
  'process.stderr.write("maxrss="+kb+"\\n")})';

interface Run {
  ms: number;
  maxRssMB: number;
}

async function run(args: string[], size: Size): Promise<Run> {
  const env = { ...process.env, PAYMENTS_API_KEY: 'sk_test_bench', PAYMENTS_BASE_URL: `${origin}/${size}` };
  const started = performance.now();
  // Node as a merchant runs it: no flag but the probe.
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

const outOf = (size: Size) => join(dir, `${size}.csv`);
const cli = (size: Size) => run([join(root, 'dist/cli.js'), 'export', 'payments', '--out', outOf(size), '--locale', 'en'], size);
const bare = () => run([self, '--bare', join(dir, 'bare.csv')], 'tenth');
const fetchOnly = (size: Size) => run([self, '--fetch-only'], size);

// Warm-up, and the checks: the row counts, and the bare loop writes the same bytes as the CLI.
await cli('tenth');
await bare();
const same = readFileSync(outOf('tenth')).equals(readFileSync(join(dir, 'bare.csv')));
if (!same) throw new Error('the CLI and the bare loop wrote different files: the wall-time comparison would be unfair');

const loadStart = os.loadavg();
const benchStarted = performance.now();
const runs: Record<Size | 'bare', Run[]> = { one: [], tenth: [], full: [], bare: [] };
const fetchRuns: Record<Size, Run[]> = { one: [], tenth: [], full: [] };
type Step = [Size, 'export' | 'fetch'] | ['bare'];
const steps: Step[] = [
  ['one', 'export'],
  ['one', 'fetch'],
  ['tenth', 'export'],
  ['tenth', 'fetch'],
  ['bare'],
  ['full', 'export'],
  ['full', 'fetch'],
];
for (let round = 0; round < ROUNDS; round++) {
  // Each round in the other order, so that no run always follows the same one.
  for (const step of round % 2 === 0 ? steps : [...steps].reverse()) {
    if (step[0] === 'bare') runs.bare.push(await bare());
    else if (step[1] === 'export') runs[step[0]].push(await cli(step[0]));
    else fetchRuns[step[0]].push(await fetchOnly(step[0]));
  }
  const rows = readFileSync(outOf('full'), 'utf8').split('\n').length - 2;
  if (rows !== SIZES.full) throw new Error(`expected ${SIZES.full} rows, got ${rows}`);
  console.error(
    `round ${round + 1}/${ROUNDS}: peak RSS one page ${runs.one.at(-1)?.maxRssMB.toFixed(1)} MB, 100k ${runs.tenth.at(-1)?.maxRssMB.toFixed(1)} MB, 1M ${runs.full.at(-1)?.maxRssMB.toFixed(1)} MB; fetch alone ${fetchRuns.one.at(-1)?.maxRssMB.toFixed(1)}, ${fetchRuns.tenth.at(-1)?.maxRssMB.toFixed(1)}, ${fetchRuns.full.at(-1)?.maxRssMB.toFixed(1)} MB`,
  );
}
const benchSeconds = (performance.now() - benchStarted) / 1000;
server.close();
rmSync(dir, { recursive: true, force: true });

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? (s[m] as number) : ((s[m - 1] as number) + (s[m] as number)) / 2;
};
const peak = (size: Size) => median(runs[size].map((r) => r.maxRssMB));
const wall = (what: Size | 'bare') => median(runs[what].map((r) => r.ms)) / 1000;
const growthTenth = peak('tenth') - peak('one');
const growthFull = peak('full') - peak('one');
const ratio = growthFull / growthTenth;
const fetchPeak = (size: Size) => median(fetchRuns[size].map((r) => r.maxRssMB));
const fetchGrowthTenth = fetchPeak('tenth') - fetchPeak('one');
const fetchGrowthFull = fetchPeak('full') - fetchPeak('one');
const fetchRatio = fetchGrowthFull / fetchGrowthTenth;
// The guard, paired per round: each round's export growth ratio against that round's fetch alone.
const roundRatio = (from: Record<Size, Run[]>, r: number) => {
  const rss = (size: Size) => from[size][r]?.maxRssMB as number;
  return (rss('full') - rss('one')) / (rss('tenth') - rss('one'));
};
const perRound = Array.from({ length: ROUNDS }, (_, r) => {
  const exportRatio = roundRatio(runs, r);
  const fetchAloneRatio = roundRatio(fetchRuns, r);
  return { exportRatio, fetchRatio: fetchAloneRatio, comparison: exportRatio / fetchAloneRatio };
});
const comparison = median(perRound.map((p) => p.comparison));
const met = comparison <= 1;
const results = {
  node: process.version,
  cpus: os.cpus().length,
  loadAverage: { start: loadStart, end: os.loadavg() },
  rounds: ROUNDS,
  peakRssMB: { onePage: peak('one'), rows100k: peak('tenth'), rows1M: peak('full') },
  growthMB: { rows100k: growthTenth, rows1M: growthFull },
  growthRatio: ratio,
  guard: { exportRatioOverFetchRatio: comparison, goal: 1, met, perRound },
  wallSeconds: { rows100k: wall('tenth'), rows1M: wall('full'), bareLoop100k: wall('bare') },
  fetchAlone: {
    peakRssMB: { onePage: fetchPeak('one'), rows100k: fetchPeak('tenth'), rows1M: fetchPeak('full') },
    growthMB: { rows100k: fetchGrowthTenth, rows1M: fetchGrowthFull },
    growthRatio: fetchRatio,
    all: fetchRuns,
  },
  benchSeconds,
  all: runs,
};
writeFileSync(join(root, 'bench/cli-results.json'), `${JSON.stringify(results, null, 2)}\n`);

const f1 = (n: number) => n.toFixed(1);
const span = (xs: number[]) => `${Math.min(...xs).toFixed(2)}–${Math.max(...xs).toFixed(2)}`;
const range = (size: Size, from: Record<Size, Run[]> = runs) => {
  const xs = from[size].map((r) => r.maxRssMB);
  return `${f1(Math.min(...xs))}–${f1(Math.max(...xs))}`;
};
console.log(`
| export payments → CSV, Node's defaults (${process.version}, ${ROUNDS} rounds) | median | min–max |
| --- | --- | --- |
| peak RSS, one page | ${f1(peak('one'))} MB | ${range('one')} MB |
| peak RSS, 100,000 rows | ${f1(peak('tenth'))} MB | ${range('tenth')} MB |
| peak RSS, 1,000,000 rows | ${f1(peak('full'))} MB | ${range('full')} MB |
| growth, 100,000 rows | ${f1(growthTenth)} MB | |
| growth, 1,000,000 rows | ${f1(growthFull)} MB | |
| growth ratio 1M / 100k, of the medians | ${ratio.toFixed(2)} | per round ${span(perRound.map((p) => p.exportRatio))} |
| wall time: 100k rows / 1M rows / bare loop 100k | ${wall('tenth').toFixed(2)} s / ${wall('full').toFixed(2)} s / ${wall('bare').toFixed(2)} s | |
| platform fetch alone, peak RSS one page / 100k / 1M | ${f1(fetchPeak('one'))} / ${f1(fetchPeak('tenth'))} / ${f1(fetchPeak('full'))} MB | ${range('one', fetchRuns)} / ${range('tenth', fetchRuns)} / ${range('full', fetchRuns)} MB |
| platform fetch alone, growth 100k / 1M, ratio of the medians | ${f1(fetchGrowthTenth)} / ${f1(fetchGrowthFull)} MB, ${fetchRatio.toFixed(2)} | per round ${span(perRound.map((p) => p.fetchRatio))} |
| guard: export's growth ratio ÷ fetch alone's, median of per-round (goal ≤ 1) | ${comparison.toFixed(2)} | ${met ? 'met' : 'MISSED'}; per round ${span(perRound.map((p) => p.comparison))} |
| whole bench | ${benchSeconds.toFixed(0)} s | load average ${loadStart[0]?.toFixed(2)} at the start, ${os.loadavg()[0]?.toFixed(2)} at the end |
`);
