/**
 * `payments.reconcile` walks a window of 100,000 payments in flat memory: a child Node process
 * (the SDK bundled from src/ by esbuild, pages made on the fly by a `fetch` function, no socket)
 * collects garbage deterministically (`--expose-gc`) every 100 pages and measures the heap; the
 * payments of findings already handed out must be collectable. Growth is compared with what the
 * window would weigh if it were held.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { build } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const run = promisify(execFile);
const SRC_INDEX = fileURLToPath(new URL('../../src/index.ts', import.meta.url));
const PAYMENTS = 100_000;

const SCRIPT = `
import { PaymentsClient } from ${JSON.stringify(SRC_INDEX)};

const TOTAL = ${PAYMENTS};
const PAGES = TOTAL / 100;
const item = (n) => ({
  uuid: '00000000-0000-4000-8000-' + String(n).padStart(12, '0'), checkout_session: null, gross_amount: 5000,
  psp_fee_amount: 75, platform_fee_amount: 25, net_amount_to_merchant: 4900, currency: 'XOF',
  payment_method: 'mobile_money', mobile_money_country: 'SEN', mobile_money_provider: 'orange',
  psp_reference: 'r-' + n, status: 'succeeded', failure_reason: null, created_at: '2026-11-20T10:15:00+00:00',
  note: 'x'.repeat(200),
});
const fetchPage = async (input) => {
  const url = new URL(typeof input === 'string' ? input : input.url);
  const status = url.searchParams.get('status');
  const page = Number(url.searchParams.get('page') ?? '1');
  const last = status === 'succeeded' ? PAGES : 1;
  const link = (p) => 'http://127.0.0.1:4020/api/v1/payments?status=' + status + '&page=' + p;
  const data = status === 'succeeded' ? Array.from({ length: 100 }, (_, i) => item((page - 1) * 100 + i)) : [];
  const body = {
    data,
    links: { first: link(1), last: link(last), prev: page > 1 ? link(page - 1) : null, next: page < last ? link(page + 1) : null },
    meta: { current_page: page, last_page: last, per_page: 100, total: status === 'succeeded' ? TOTAL : 0 },
  };
  return new Response(JSON.stringify(body), { status: 200, headers: { 'content-type': 'application/json' } });
};
const client = new PaymentsClient({ apiKey: 'sk_test_memory', baseUrl: 'http://127.0.0.1:4020', fetch: fetchPage });

const mode = process.argv[2];
const heap = [];
const refs = [];
let findings = 0;
let pages = 0;
// One payment in ten was never handled.
const handled = (uuid) => Number(uuid.slice(-12)) % 10 !== 0;
const options = {
  from: '2026-11-20',
  onProgress: () => {
    pages += 1;
    if (pages % 100 === 0) {
      globalThis.gc();
      heap.push(process.memoryUsage().heapUsed);
    }
  },
  // A store whose records say which payments were handled (its keys are payment:<uuid>:<type>).
  ...(mode === 'store'
    ? { store: { kind: 'test', claim: async () => [], renew: async () => false, settle: async () => false, release: async () => false,
        read: async (keys) => keys.map((key) => (handled(key.split(':')[1]) ? { key, settled: true, claims: 1, age: 0 } : undefined)) } }
    : { isHandled: (p) => handled(p.uuid) }),
};
for await (const finding of client.payments.reconcile(options)) {
  if (findings % 500 === 0) refs.push(new WeakRef(finding.payment));
  findings += 1;
}
await new Promise((resolve) => setTimeout(resolve, 0));
globalThis.gc();
const alive = refs.slice(0, -2).filter((r) => r.deref() !== undefined).length;
console.log(JSON.stringify({ findings, pages, heap, alive, maxRssMB: process.resourceUsage().maxRSS / 1024 }));
`;

let dir = '';
let bundle = '';

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'payments-sdk-reconcile-memory-'));
  await writeFile(join(dir, 'walk.mjs'), SCRIPT);
  bundle = join(dir, 'walk.bundle.mjs');
  await build({ entryPoints: [join(dir, 'walk.mjs')], bundle: true, platform: 'node', format: 'esm', outfile: bundle, logLevel: 'error' });
});

afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('payments.reconcile over 100,000 payments keeps memory flat', () => {
  for (const mode of ['isHandled', 'store']) {
    it(`with ${mode}: the heap after each 100 pages stays within 5 MB of the first measure, findings handed out are collectable`, async () => {
      const { stdout } = await run(process.execPath, ['--expose-gc', bundle, mode], { timeout: 120_000 });
      const result = JSON.parse(stdout.trim().split('\n').pop() ?? '{}');
      expect(result.findings).toBe(PAYMENTS / 10);
      expect(result.heap).toHaveLength(10);
      const growthMB = (Math.max(...result.heap) - result.heap[0]) / 2 ** 20;
      // Held, the window would weigh well over 50 MB (100,000 payments of ~600 bytes of JSON each).
      expect(growthMB).toBeLessThan(5);
      expect(result.alive).toBe(0);
      // A loose cap (about 135 MB measured, 185 MB with every page held): the heap is the precise measure.
      expect(result.maxRssMB).toBeLessThan(200);
    }, 120_000);
  }
});
