/**
 * `payments-sdk export`, the built bin as a child process against the testing kit's service on
 * 127.0.0.1: every page to CSV / JSON lines, the formatted amount columns, filters, the progress bar
 * on a terminal only (a pseudo-terminal from util-linux `script`), Ctrl-C mid-export, and keys
 * that never show.
 */
import { spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import { formatAmount } from 'payments-sdk';
import { createMockService } from 'payments-sdk/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type MockHttpServer, startServer } from '../../src/testing/node-server.js';
import { childEnv, cliPath, collect, nodes, runCli } from './support.js';

const dir = mkdtempSync(join(tmpdir(), 'cli-export-'));
const TOTAL = 250;
const mock = createMockService({
  seed: {
    payments: Array.from({ length: TOTAL }, (_, i) => ({
      gross_amount: 1000 + i,
      currency: i % 5 === 0 ? 'GHS' : 'XOF',
      status: i % 10 === 0 ? ('failed' as const) : ('succeeded' as const),
      failure_reason: i % 10 === 0 ? 'declined' : null,
    })),
    checkoutSessions: [{ amount: 2500, currency: 'XOF', description: 'Tea, "green"', metadata: { order: 7 } }],
  },
});

/** Set to hold the answer to page 3 until released, so that Ctrl-C lands mid-export. */
let stall: { reached: () => void; release: Promise<void> } | undefined;
let server: MockHttpServer;
let env: Record<string, string>;

beforeAll(async () => {
  server = await startServer(async (request) => {
    const hold = stall;
    if (hold && new URL(request.url).searchParams.get('page') === '3') {
      hold.reached();
      await hold.release;
    }
    return mock.fetch(request);
  });
  env = { PAYMENTS_API_KEY: mock.apiKey, PAYMENTS_BASE_URL: server.url };
});
afterAll(() => server.close());

type Row = Record<string, string>;
const readCsv = (path: string): Row[] => parse(readFileSync(path, 'utf8'), { columns: true }) as Row[];

describe('payments-sdk export', () => {
  it('writes every page of payments to a CSV file: minor units, a formatted column beside each amount', async () => {
    const out = join(dir, 'payments.csv');
    const result = await runCli(['export', 'payments', '--out', out, '--locale', 'en', '--per-page', '100'], env);
    expect(result.code).toBe(0);
    expect(result.stderr).toBe(`exported ${TOTAL} payments to ${out}\n`);
    const rows = readCsv(out);
    expect(rows).toHaveLength(TOTAL);
    expect(readFileSync(out, 'utf8').split('\n')[0]).toMatch(
      /^uuid,created_at,status,checkout_session,currency,gross_amount,gross_amount_formatted,psp_fee_amount,psp_fee_amount_formatted,/,
    );
    expect(new Set(rows.map((r) => r.uuid)).size).toBe(TOTAL);
    for (const row of rows) {
      expect(row.gross_amount_formatted).toBe(formatAmount(Number(row.gross_amount), row.currency as string, 'en'));
      expect(row.net_amount_to_merchant_formatted).toBe(formatAmount(Number(row.net_amount_to_merchant), row.currency as string, 'en'));
    }
    expect(rows.some((r) => r.currency === 'GHS' && r.gross_amount_formatted?.includes('.'))).toBe(true);
    expect(readFileSync(out, 'utf8')).not.toContain(mock.apiKey);
  });

  it('passes --status, --from and --to as list filters', async () => {
    const today = mock.now().toISOString().slice(0, 10);
    const result = await runCli(['export', 'payments', '--status', 'failed', '--from', today, '--to', today, '--format', 'jsonl'], env);
    expect(result.code).toBe(0);
    const lines = result.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { status: string });
    expect(lines).toHaveLength(TOTAL / 10);
    expect(lines.every((p) => p.status === 'failed')).toBe(true);
    const none = await runCli(['export', 'payments', '--from', '2001-01-01', '--to', '2001-01-02'], env);
    expect(none.code).toBe(0);
    expect(none.stdout.trim().split('\n')).toHaveLength(1);
  });

  it('exports checkout sessions with nested objects as JSON cells, and JSON lines keep every field', async () => {
    const csv = await runCli(['export', 'checkout-sessions', '--locale', 'en'], env);
    expect(csv.code).toBe(0);
    const [session] = parse(csv.stdout, { columns: true }) as Row[];
    expect(session).toMatchObject({ amount: '2500', description: 'Tea, "green"', metadata: '{"order":7}', status: 'created' });
    const jsonl = await runCli(['export', 'checkout-sessions', '--out', join(dir, 's.jsonl')], env);
    expect(jsonl.code).toBe(0);
    expect(JSON.parse(readFileSync(join(dir, 's.jsonl'), 'utf8'))).toMatchObject({ metadata: { order: 7 } });
  });

  it('no progress bar in a pipe; a bar with items of total, rate and ETA on a terminal', async () => {
    const piped = await runCli(['export', 'payments', '--out', join(dir, 'piped.csv')], env);
    expect(piped.stderr).not.toContain('ETA');
    expect(piped.stderr).not.toContain('\r');
    expect(piped.stderr).not.toContain('\u001b[');
    if (spawnSync('script', ['--version']).status !== 0) {
      if (process.env.CI === 'true') throw new Error('util-linux `script` is needed for the TTY test (apt-get install bsdutils).');
      console.warn('skipped the TTY half: no util-linux `script` (apt-get install bsdutils) to make a pseudo-terminal');
      return;
    }
    const command = `'${process.execPath}' '${cliPath}' export payments --per-page 10 --out '${join(dir, 'tty.csv')}'`;
    const tty = await collect(
      spawn('script', ['-q', '-e', '-c', command, '/dev/null'], { env: childEnv(env), stdio: ['ignore', 'pipe', 'pipe'] }),
    );
    expect(tty.code).toBe(0);
    expect(tty.stdout).toMatch(new RegExp(`export payments \\[[#-]+\\] \\d+/${TOTAL} \\| \\d+/s \\| ETA`));
    expect(readCsv(join(dir, 'tty.csv'))).toHaveLength(TOTAL);
  });

  it('Ctrl-C mid-export exits 130 and leaves a valid file ending on the last complete row; a rerun finishes', async () => {
    const out = join(dir, 'interrupted.csv');
    let release = () => {};
    const reached = new Promise<void>((resolve) => {
      stall = { reached: resolve, release: new Promise<void>((r) => (release = r)) };
    });
    const child = spawn(process.execPath, [cliPath, 'export', 'payments', '--out', out, '--per-page', '100'], {
      env: childEnv(env),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const done = collect(child);
    await reached;
    child.kill('SIGINT');
    const result = await done;
    stall = undefined;
    release();
    expect(result.code).toBe(130);
    expect(result.stderr).toContain(`Interrupted: exported 200 payments to ${out} (valid up to the last complete row)`);
    const text = readFileSync(out, 'utf8');
    expect(text.endsWith('\n')).toBe(true);
    expect(readCsv(out)).toHaveLength(200);

    const rerun = await runCli(['export', 'payments', '--out', out], env);
    expect(rerun.code).toBe(0);
    expect(readCsv(out)).toHaveLength(TOTAL);
  });

  it('a reader that goes away (`| head -1`) ends the export quietly with exit 0', async () => {
    const child = spawn(process.execPath, [cliPath, 'export', 'payments', '--per-page', '10'], {
      env: childEnv(env),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      stderr += chunk;
    });
    child.stdout.once('data', () => child.stdout.destroy());
    const [code] = (await once(child, 'close')) as [number | null];
    expect(stderr).toBe('');
    expect(code).toBe(0);
  });

  it('keys never show: a missing key is a usage error (2), a refused key a service error (4), one line each', async () => {
    const missing = await runCli(['export', 'payments'], { PAYMENTS_BASE_URL: server.url });
    expect(missing.code).toBe(2);
    expect(missing.stderr).toBe('error: missing an API key (PAYMENTS_API_KEY or --api-key).\n');
    const wrongKey = 'sk_test_wrong_key_that_must_not_be_printed';
    const refused = await runCli(['export', 'payments', '--api-key', wrongKey], { PAYMENTS_BASE_URL: server.url });
    expect(refused.code).toBe(4);
    expect(refused.stderr).toMatch(/^error: .*\(HTTP 401\)\n$/);
    const debug = await runCli(['export', 'payments', '--debug', '--json'], { PAYMENTS_API_KEY: wrongKey, PAYMENTS_BASE_URL: server.url });
    expect(debug.code).toBe(4);
    expect(JSON.parse(debug.stdout.trim())).toMatchObject({ exitCode: 4 });
    expect(debug.stdout + debug.stderr + refused.stdout + refused.stderr).not.toContain(wrongKey);
    const bad = await runCli(['export', 'refunds', '--from', 'yesterday'], env);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('unknown resource "refunds"');
    expect(bad.stderr).toContain('--from must be YYYY-MM-DD');
  });
});

describe('payments-sdk export, CSV quoting', () => {
  // Every field that holds a delimiter, a quote, \n or \r is quoted, and nothing else: the
  // export's csv-stringify options must quote exactly what its defaults quote.
  const descriptions = ['carriage\rreturn', 'two\nlines', 'crlf\r\nend', 'comma, here', 'say "hi"', 'plain'];
  const quoting = createMockService({
    seed: { checkoutSessions: descriptions.map((description) => ({ amount: 100, currency: 'XOF', description })) },
  });
  let quotingServer: MockHttpServer;
  beforeAll(async () => {
    quotingServer = await startServer((request) => quoting.fetch(request));
  });
  afterAll(() => quotingServer.close());

  it('quotes fields with a comma, a quote, \n or \r, as csv-stringify does by default, and they read back whole', async () => {
    const result = await runCli(['export', 'checkout-sessions', '--locale', 'en'], {
      PAYMENTS_API_KEY: quoting.apiKey,
      PAYMENTS_BASE_URL: quotingServer.url,
    });
    expect(result.code).toBe(0);
    for (const raw of ['"carriage\rreturn"', '"two\nlines"', '"crlf\r\nend"', '"comma, here"', '"say ""hi"""', ',plain,'])
      expect(result.stdout).toContain(raw);
    const rows = parse(result.stdout, { columns: true }) as Row[];
    expect(rows.map((r) => r.description).sort()).toEqual([...descriptions].sort());
  });
});

describe('payments-sdk export, memory', () => {
  // 500 pages: enough promoted garbage for at least one requested full collection (8 MB slack).
  const ROWS = 50_000;
  const big = createMockService({
    seed: { payments: Array.from({ length: ROWS }, (_, i) => ({ gross_amount: 500 + i, currency: i % 4 === 0 ? 'GHS' : 'XOF' })) },
  });
  let bigServer: MockHttpServer;
  beforeAll(async () => {
    bigServer = await startServer((request) => big.fetch(request));
  });
  afterAll(() => bigServer.close());

  it.each(nodes)(
    "keeps V8's young generation at 16 MB and collects the old generation as it grows, over a 500-page export, on $name",
    async ({ name, bin }) => {
      expect(existsSync(bin), `${bin} is a devDependency: run npm install`).toBe(true);
      const probe = capacityProbe();
      const out = join(dir, `big ${name}.csv`);
      // --trace-gc prints each collection on stdout (the CSV goes to a file); a requested full
      // collection shows as "Mark-Compact … testing". Unhelped, V8 grows the young generation towards
      // 128 MB and leaves the old generation uncollected over so short a run.
      const child = spawn(bin, ['--trace-gc', '--import', probe, cliPath, 'export', 'payments', '--out', out], {
        env: childEnv({ PAYMENTS_API_KEY: big.apiKey, PAYMENTS_BASE_URL: bigServer.url }),
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      const result = await collect(child);
      expect(result.code).toBe(0);
      expect(readCsv(out)).toHaveLength(ROWS);
      const capacity = Number(/capacity=(\d+)/.exec(result.stderr)?.[1]);
      expect(capacity).toBeGreaterThan(0);
      expect(capacity).toBeLessThanOrEqual(8 * 1024 * 1024);
      expect(result.stdout).toMatch(/Mark-Compact.*testing/);
      // The cap is a flag set at run time: a V8 that refused it says so on stderr.
      expect(result.stderr).not.toMatch(/unrecognized flag|illegal value/i);
    },
    60_000,
  );

  it('caps the young generation at once on a V8 whose heap statistics name no new space', async () => {
    const out = join(dir, 'big no new space.csv');
    const child = spawn(
      process.execPath,
      ['--import', capacityProbe({ hideNewSpace: true }), cliPath, 'export', 'payments', '--out', out],
      {
        env: childEnv({ PAYMENTS_API_KEY: big.apiKey, PAYMENTS_BASE_URL: bigServer.url }),
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    const result = await collect(child);
    expect(result.code).toBe(0);
    const capacity = Number(/capacity=(\d+)/.exec(result.stderr)?.[1]);
    expect(capacity).toBeGreaterThan(0);
    expect(capacity).toBeLessThanOrEqual(8 * 1024 * 1024);
  }, 60_000);
});

/**
 * An `--import` module that writes `capacity=<bytes>` to stderr as the process exits: the semi-space's
 * capacity, what it holds plus what it has left (the new space's `space_size` counts only committed
 * pages on V8 14). With `hideNewSpace`, the process's own code sees the new space under another name.
 */
function capacityProbe({ hideNewSpace = false } = {}): string {
  const hide = hideNewSpace
    ? 'v8.getHeapSpaceStatistics=()=>stats().map(s=>s.space_name==="new_space"?{...s,space_name:"young_space"}:s);'
    : '';
  return (
    'data:text/javascript,import v8 from "node:v8";const stats=v8.getHeapSpaceStatistics.bind(v8);' +
    hide +
    'process.on("exit",()=>{const n=stats().find(s=>s.space_name==="new_space");' +
    'process.stderr.write("capacity="+(n.space_used_size+n.space_available_size)+"\\n")})'
  );
}
