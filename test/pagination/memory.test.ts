/**
 * "Memory stays flat however many pages are walked" (README "Pagination"), checked structurally:
 * after walking many pages, the pages already left behind are garbage-collectable. Collection is
 * only deterministic with `--expose-gc`, which the test workers do not have, so the walk runs in a
 * child Node process (the SDK bundled from src/ by esbuild, pages served by a `fetch` function:
 * no socket at all). Heap figures over long walks belong to the benchmarks.
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

const PAGES = 40;

const SCRIPT = `
import { PaymentsClient } from ${JSON.stringify(SRC_INDEX)};

const PAGES = ${PAGES};
const item = (n) => ({
  uuid: 'p-' + n, checkout_session: null, gross_amount: 5000, psp_fee_amount: 75, platform_fee_amount: 25,
  net_amount_to_merchant: 4900, currency: 'XOF', payment_method: 'mobile_money', mobile_money_country: 'SEN',
  mobile_money_provider: 'orange', psp_reference: 'r-' + n, status: 'succeeded', failure_reason: null,
  created_at: '2026-11-20T10:15:00+00:00', note: 'x'.repeat(200),
});
const fetchPage = async (input) => {
  const url = new URL(typeof input === 'string' ? input : input.url);
  const page = Number(url.searchParams.get('page') ?? '1');
  const link = (p) => 'http://127.0.0.1:4020/api/v1/payments?page=' + p;
  const body = {
    data: Array.from({ length: 100 }, (_, i) => item((page - 1) * 100 + i)),
    links: { first: link(1), last: link(PAGES), prev: page > 1 ? link(page - 1) : null, next: page < PAGES ? link(page + 1) : null },
    meta: { current_page: page, last_page: PAGES, per_page: 100, total: PAGES * 100 },
  };
  return new Response(JSON.stringify(body), { status: 200, headers: { 'content-type': 'application/json' } });
};
const client = new PaymentsClient({ apiKey: 'sk_test_memory', baseUrl: 'http://127.0.0.1:4020', fetch: fetchPage });
const settle = () => new Promise((resolve) => setTimeout(resolve, 0));

async function walk(mode) {
  const pages = [];
  const items = [];
  let n = 0;
  if (mode === 'pages') {
    for await (const page of client.payments.list({ per_page: 100 }).pages()) {
      pages.push(new WeakRef(page));
      items.push(new WeakRef(page.data[0]));
      if (++n === PAGES) break;
    }
  } else {
    for await (const payment of client.payments.list({ per_page: 100 })) {
      if (n % 100 === 0) items.push(new WeakRef(payment));
      n++;
    }
  }
  // Leave the current job (WeakRef targets read in it are kept), then collect.
  await settle();
  globalThis.gc();
  await settle();
  globalThis.gc();
  // The first page is held by the PagePromise (it is what \`await list()\` gives), the last two may
  // still be referenced by the iterator's last step: every page in between must be gone.
  const middle = (refs) => refs.slice(1, -2).filter((ref) => ref.deref() !== undefined).length;
  return { walked: mode === 'pages' ? n : n / 100, alivePages: middle(pages), aliveItems: middle(items) };
}

console.log(JSON.stringify({ pages: await walk('pages'), items: await walk('items') }));
`;

let dir = '';
let bundle = '';

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'payments-sdk-memory-'));
  await writeFile(join(dir, 'walk.mjs'), SCRIPT);
  bundle = join(dir, 'walk.bundle.mjs');
  await build({ entryPoints: [join(dir, 'walk.mjs')], bundle: true, platform: 'node', format: 'esm', outfile: bundle, logLevel: 'error' });
});

afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('memory stays flat over many pages', () => {
  it(`after ${PAGES} pages, the pages and items left behind are collectable (pages() and for await over items)`, async () => {
    const { stdout } = await run(process.execPath, ['--expose-gc', bundle], { timeout: 60_000 });
    const result = JSON.parse(stdout.trim().split('\n').pop() ?? '{}');
    expect(result.pages.walked).toBe(PAGES);
    expect(result.items.walked).toBe(PAGES);
    expect(result.pages.alivePages).toBe(0);
    expect(result.pages.aliveItems).toBe(0);
    expect(result.items.aliveItems).toBe(0);
  });
});
