/**
 * `payments-sdk payouts bulk`, the built bin as a child process against the testing kit's service on
 * 127.0.0.1: bad rows listed with their CSV lines and nothing sent, a results CSV, a rerun that
 * resumes (skips, never pays twice), a failed row's exit code, and Ctrl-C in the middle of a run.
 * Then what a finance team does to a file: no key column, rows added at the top, CRLF and LF mixed,
 * semicolons, formulas in cells, the results pointed at the input, two runs on one store at once.
 * And the rule every rerun keeps: a payroll started with the sandbox key (refused before anything is
 * sent), finished with the live key and --retry-failed, run again under another file name and again
 * without its store: each row is paid exactly once. And stores given by URL (Redis, Postgres), whose
 * passwords are never printed.
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import { PaymentsClient } from 'payments-sdk';
import { createMockService } from 'payments-sdk/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type MockHttpServer, startServer } from '../../src/testing/node-server.js';
import { describePostgres, type PostgresServer, startPostgresServer } from '../helpers/postgres.js';
import { describeRedis, type RedisServer, startRedisServer } from '../helpers/redis.js';
import { type CliResult, childEnv, cliPath, collect } from './support.js';

const dir = mkdtempSync(join(tmpdir(), 'cli-bulk-'));
const mock = createMockService();
mock.seed({ wallets: [{ currency: 'XOF', balance: 10_000_000 }] }, { apiKey: mock.liveApiKey });

/** Set to hold the answer to the Nth payout creation until released, so that Ctrl-C lands mid-run. */
let stall: { after: number; seen: number; reached: () => void; release: Promise<void> } | undefined;
let server: MockHttpServer;
/** Every payout creation that reached the service: its amount (which names the row) and the answer's status. */
const payoutPosts: Array<{ amount: number; status: number }> = [];
let env: Record<string, string>;

beforeAll(async () => {
  server = await startServer(async (request) => {
    const isPayout = request.method === 'POST' && new URL(request.url).pathname.endsWith('/payouts');
    const body = isPayout ? await request.clone().text() : '';
    const hold = stall;
    if (hold && request.method === 'POST' && new URL(request.url).pathname.endsWith('/payouts')) {
      hold.seen += 1;
      if (hold.seen > hold.after) {
        hold.reached();
        await hold.release;
      }
    }
    const response = await mock.fetch(request);
    if (isPayout) payoutPosts.push({ amount: Number(JSON.parse(body).amount), status: response.status });
    return response;
  });
  env = { PAYMENTS_API_KEY: mock.liveApiKey as string, PAYMENTS_BASE_URL: server.url };
});
afterAll(() => server.close());

/** Runs `payments-sdk <args>` in the test's directory (where the default store files go) to its end. */
function runCli(args: string[], env: Record<string, string | undefined> = {}): Promise<CliResult> {
  return collect(spawn(process.execPath, [cliPath, ...args], { cwd: dir, env: childEnv(env), stdio: ['ignore', 'pipe', 'pipe'] }));
}

/** The default store file of batch `batchId` (named after the batch id, in `.payments-sdk/` of the directory the command runs in). */
const storeFile = (batchId: string) => join(dir, '.payments-sdk', `${batchId}.store`);

function csv(name: string, rows: string[][]): string {
  const path = join(dir, name);
  writeFileSync(path, `${rows.map((r) => r.join(',')).join('\n')}\n`);
  return path;
}

const header = ['key', 'amount', 'currency', 'destination_country', 'destination_provider', 'destination_phone', 'employee'];
const good = (n: number, from = 1) =>
  Array.from({ length: n }, (_, i) => [
    `emp-${from + i}`,
    String(1000 * (from + i)),
    'XOF',
    'SEN',
    'wave',
    `2217712${String(from + i).padStart(5, '0')}`,
    `Name ${i}`,
  ]);
const posts = () => mock.requests.filter((r) => r.method === 'POST' && r.path.endsWith('/payouts')).length;
const payoutCount = () => mock.requests.filter((r) => r.method === 'POST' && r.path.endsWith('/payouts') && r.status === 201).length;
type Row = Record<string, string>;
const readResults = (path: string) => parse(readFileSync(path, 'utf8'), { columns: true }) as Row[];

describe('payments-sdk payouts bulk', () => {
  it('lists every bad row with its CSV line and sends nothing (exit 3)', async () => {
    const before = mock.requests.length;
    const file = csv('bad.csv', [
      header,
      ...good(1),
      ['emp-2', '12.5', 'XOF', 'SEN', 'wave', '221771200002', 'x'],
      ['emp-3', '3000', 'XOF', 'SEN', '', '221771200003', 'x'],
      ...good(1, 4),
      ['emp-5', '5000', 'XOF', 'SEN', 'wave', '+221771200005', 'x'],
      ['emp-1', '6000', 'XOF', 'SEN', 'wave', '221771200006', 'x'],
    ]);
    const result = await runCli(['payouts', 'bulk', file, '--batch-id', 'bad-1'], env);
    expect(result.code).toBe(3);
    const lines = result.stderr.trim().split('\n');
    expect(lines.filter((l) => l.startsWith('line '))).toEqual([
      expect.stringMatching(/^line 3 \(key "emp-2"\): amount: /),
      expect.stringMatching(/^line 4 \(key "emp-3"\): destination\.provider: /),
      expect.stringMatching(/^line 6 \(key "emp-5"\): destination\.phone: /),
      expect.stringMatching(/^line 7 \(key "emp-1"\): /),
    ]);
    expect(lines.at(-1)).toBe('error: 4 bad rows in the CSV (listed above): nothing was sent.');
    expect(mock.requests.length).toBe(before);
    expect(existsSync(`${file}.bad-1.results.csv`)).toBe(false);
  });

  it('a header without the required columns is refused (exit 3)', async () => {
    const file = csv('header.csv', [
      ['amount', 'currency'],
      ['100', 'XOF'],
    ]);
    const result = await runCli(['payouts', 'bulk', file, '--batch-id', 'h'], env);
    expect(result.code).toBe(3);
    expect(result.stderr).toMatch(/^error: the CSV has no "country", "provider", "phone" column/);
  });

  it('creates every row, writes the results CSV; a rerun skips them all and pays nothing twice', async () => {
    const file = csv('payroll.csv', [header, ...good(6)]);
    const before = payoutCount();
    const first = await runCli(['payouts', 'bulk', file, '--batch-id', 'payroll-1', '--json'], env);
    expect(first.stderr).toContain('payouts payroll-1: 6 rows: created 6');
    expect(first.code).toBe(0);
    expect(JSON.parse(first.stdout.trim())).toMatchObject({ batchId: 'payroll-1', created: 6, unpaid: 0, interrupted: false });
    expect(payoutCount() - before).toBe(6);
    const results = readResults(`${file}.payroll-1.results.csv`);
    expect(results.map((r) => r.key).sort()).toEqual(['emp-1', 'emp-2', 'emp-3', 'emp-4', 'emp-5', 'emp-6']);
    expect(results.every((r) => r.status === 'created' && r.payout_id !== '' && r.error === '')).toBe(true);
    expect(results.find((r) => r.key === 'emp-3')?.row).toBe('4');
    const store = readFileSync(storeFile('payroll-1'), 'utf8');
    expect(store).not.toContain(mock.liveApiKey);
    expect(store).toContain('bulk1_');

    const rerun = await runCli(['payouts', 'bulk', file, '--batch-id', 'payroll-1'], env);
    expect(rerun.code).toBe(0);
    expect(rerun.stderr).toContain('created 0, replayed 0, skipped 6');
    expect(payoutCount() - before).toBe(6);
    // Rewritten whole: each row's latest state, so rows created by the first run still read created.
    const again = readResults(`${file}.payroll-1.results.csv`);
    expect(again.map((r) => r.key)).toEqual(['emp-1', 'emp-2', 'emp-3', 'emp-4', 'emp-5', 'emp-6']);
    expect(again.map((r) => [r.status, r.payout_id])).toEqual(results.map((r) => ['created', r.payout_id]));
  });

  it('a row the service refuses is failed in the results, and the exit code is 1', async () => {
    const file = csv('too-much.csv', [header, ...good(2), ['emp-big', '999999999', 'XOF', 'SEN', 'wave', '221771299999', 'x']]);
    const result = await runCli(['payouts', 'bulk', file, '--batch-id', 'big-1', '--results', '-'], env);
    expect(result.code).toBe(1);
    const rows = parse(result.stdout, { columns: true }) as Row[];
    const failed = rows.find((r) => r.key === 'emp-big');
    expect(failed).toMatchObject({ status: 'failed', row: '4', payout_id: '' });
    expect(failed?.error).toMatch(/HTTP 422/);
    expect(rows.filter((r) => r.status === 'created')).toHaveLength(2);
  });

  it('Ctrl-C stops new sends, waits for those in flight, keeps the store; the rerun finishes without paying twice', async () => {
    const file = csv('interrupted.csv', [header, ...good(20, 100)]);
    const before = payoutCount();
    let release = () => {};
    const reached = new Promise<void>((resolve) => {
      stall = { after: 5, seen: 0, reached: resolve, release: new Promise<void>((r) => (release = r)) };
    });
    const child = spawn(process.execPath, [cliPath, 'payouts', 'bulk', file, '--batch-id', 'int-1', '--concurrency', '2'], {
      cwd: dir,
      env: childEnv(env),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const done = collect(child);
    const stopping = new Promise<void>((resolve) => {
      child.stderr?.on('data', (chunk: Buffer | string) => {
        if (String(chunk).includes('Stopping')) resolve();
      });
    });
    await reached;
    child.kill('SIGINT');
    // The sends in flight are answered only once the CLI took the interrupt: it must wait for them.
    await stopping;
    stall = undefined;
    release();
    const result = await done;
    expect(result.code).toBe(130);
    expect(result.stderr).toContain('Interrupted: payouts int-1');
    const paid = payoutCount() - before;
    expect(paid).toBeGreaterThanOrEqual(5);
    expect(paid).toBeLessThan(20);
    const partial = readResults(`${file}.int-1.results.csv`);
    expect(partial.filter((r) => r.status === 'created')).toHaveLength(paid);
    // The store is complete: every payout created has its outcome.
    const settled = new Set(
      readFileSync(storeFile('int-1'), 'utf8')
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as { k: string; s?: boolean })
        .filter((l) => l.s)
        .map((l) => l.k),
    );
    expect(settled.size).toBe(paid);

    const rerun = await runCli(['payouts', 'bulk', file, '--batch-id', 'int-1'], env);
    expect(rerun.code).toBe(0);
    expect(payoutCount() - before).toBe(20);
    // The interrupted run's file has one line per row: those it did not reach are not_sent.
    expect(partial).toHaveLength(20);
    expect(partial.filter((r) => r.status === 'not_sent').length).toBeGreaterThan(0);
    const final = readResults(`${file}.int-1.results.csv`);
    expect(final).toHaveLength(20);
    expect(final.map((r) => Number(r.row))).toEqual(Array.from({ length: 20 }, (_, i) => i + 2));
    expect(final.every((r) => r.status === 'created' && r.payout_id !== '')).toBe(true);
    // The rows paid before the interrupt keep their payout ids.
    for (const row of partial.filter((r) => r.status === 'created'))
      expect(final.find((r) => r.key === row.key)?.payout_id).toBe(row.payout_id);
  });

  it('no progress bar in a pipe, a bar on a terminal; --help lists the columns and exit codes', async () => {
    const file = csv('small.csv', [header, ...good(2, 300)]);
    const result = await runCli(['payouts', 'bulk', file, '--batch-id', 'small'], env);
    expect(result.code).toBe(0);
    expect(result.stderr).not.toContain('ETA');
    expect(result.stderr.trim().split('\n')).toHaveLength(2);
    if (spawnSync('script', ['--version']).status === 0) {
      const command = `'${process.execPath}' '${cliPath}' payouts bulk '${csv('tty.csv', [header, ...good(3, 400)])}' --batch-id tty`;
      const tty = await collect(
        spawn('script', ['-q', '-e', '-c', command, '/dev/null'], { cwd: dir, env: childEnv(env), stdio: ['ignore', 'pipe', 'pipe'] }),
      );
      expect(tty.code).toBe(0);
      expect(tty.stdout).toMatch(/payouts tty \[[#-]+\] \d\/3 \| \d+\/s \| ETA/);
    } else if (process.env.CI === 'true') throw new Error('util-linux `script` is needed for the TTY test (apt-get install bsdutils).');
    const help = await runCli(['payouts', 'bulk', '--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('--batch-id <id>');
    expect(help.stdout).toContain('130');
  });

  describe('rows need a stable identity', () => {
    const noKey = header.slice(1);
    const unkeyed = (n: number, from = 1) => good(n, from).map((r) => r.slice(1));

    it('a CSV without a key column is refused, naming the fix; nothing is sent', async () => {
      const before = posts();
      const file = csv('nokey.csv', [noKey, ...unkeyed(3, 2)]);
      const result = await runCli(['payouts', 'bulk', file, '--batch-id', 'nokey'], env);
      expect(result.code).toBe(3);
      expect(result.stderr).toMatch(/^error: the CSV has no "key" column: give each row a stable key .* Or pass --key-by-position/);
      expect(posts()).toBe(before);
      expect(existsSync(`${file}.nokey.results.csv`)).toBe(false);
    });

    it('an empty key cell is a bad row, listed with its line; nothing is sent', async () => {
      const before = posts();
      const file = csv('emptykey.csv', [header, ...good(1, 2), ['', '1000', 'XOF', 'SEN', 'wave', '221771200009', 'x']]);
      const result = await runCli(['payouts', 'bulk', file, '--batch-id', 'emptykey'], env);
      expect(result.code).toBe(3);
      expect(result.stderr).toContain(`line 3: key: the row's key must be a non-empty string of at most 1000 characters (it is empty)`);
      expect(posts()).toBe(before);
    });

    it('--key-by-position: a rerun after a row was added at the top is refused before any send, naming the lines', async () => {
      const file = csv('bypos.csv', [noKey, ...unkeyed(3, 2)]);
      const first = await runCli(['payouts', 'bulk', file, '--batch-id', 'bypos', '--key-by-position'], env);
      expect(first.code, first.stderr).toBe(0);
      expect(first.stderr).toContain('created 3');
      expect(readFileSync(storeFile('bypos'), 'utf8')).toMatch(/"rowHash":"[0-9a-f]{64}"/);

      const before = posts();
      csv('bypos.csv', [noKey, ...unkeyed(1, 9), ...unkeyed(3, 2)]);
      const shifted = await runCli(['payouts', 'bulk', file, '--batch-id', 'bypos', '--key-by-position'], env);
      expect(shifted.code).toBe(3);
      expect(shifted.stderr).toMatch(
        /^error: 3 rows of the CSV \(lines 2, 3, 4\) differ from the rows at the same positions in the earlier run of batch bypos: .*Nothing was sent/,
      );
      expect(posts()).toBe(before);

      // Restored: every row is skipped, nothing paid twice.
      csv('bypos.csv', [noKey, ...unkeyed(3, 2)]);
      const restored = await runCli(['payouts', 'bulk', file, '--batch-id', 'bypos', '--key-by-position'], env);
      expect(restored.code).toBe(0);
      expect(restored.stderr).toContain('created 0, replayed 0, skipped 3');
      expect(posts()).toBe(before);
    });
  });

  describe('strict CSV reading', () => {
    it('a header in CRLF and rows in LF, with an extra field on two lines: both listed by line, nothing sent', async () => {
      const before = posts();
      const path = join(dir, 'mixed-bad.csv');
      const [a, b, c] = good(3, 2).map((r) => r.join(','));
      writeFileSync(path, `${header.join(',')}\r\n${a}\r\n${b},extra\n${c},x,y\n`);
      const result = await runCli(['payouts', 'bulk', path, '--batch-id', 'mixed-bad'], env);
      expect(result.code).toBe(3);
      const lines = result.stderr.trim().split('\n');
      expect(lines.slice(0, 2)).toEqual(['line 3: 8 fields, the header has 7', 'line 4: 9 fields, the header has 7']);
      expect(lines.at(-1)).toMatch(
        /^error: 2 lines of the CSV \(listed above, read with separator "," \(detected\)\) do not have the header's 7 fields: nothing was sent/,
      );
      expect(posts()).toBe(before);
    });

    it('CRLF and LF mixed in a well-formed file: every row is read and paid', async () => {
      const path = join(dir, 'mixed.csv');
      const rows = good(4, 2).map((r) => r.join(','));
      writeFileSync(path, `${header.join(',')}\r\n${rows[0]}\r\n${rows[1]}\n${rows[2]}\r\n${rows[3]}\n`);
      const result = await runCli(['payouts', 'bulk', path, '--batch-id', 'mixed'], env);
      expect(result.code, result.stderr).toBe(0);
      expect(result.stderr).toContain('4 rows: created 4');
    });

    it('a semicolon or tab file is read by its detected separator; a wrong --delimiter is named in the error', async () => {
      for (const [name, sep] of [
        ['semi', ';'],
        ['tab', '\t'],
      ] as const) {
        const path = join(dir, `${name}.csv`);
        writeFileSync(path, `${[header, ...good(2, 2)].map((r) => r.join(sep)).join('\r\n')}\r\n`);
        const result = await runCli(['payouts', 'bulk', path, '--batch-id', name], env);
        expect(result.code, result.stderr).toBe(0);
        expect(result.stderr).toContain('2 rows: created 2');
      }
      const wrong = await runCli(['payouts', 'bulk', join(dir, 'semi.csv'), '--batch-id', 'semi-2', '--delimiter', ','], env);
      expect(wrong.code).toBe(3);
      expect(wrong.stderr).toContain('read with separator "," (from --delimiter), has 1 field: key;amount;currency');
      expect(wrong.stderr).toContain(`pass --delimiter ';' or --delimiter 'tab'`);
      const bad = await runCli(['payouts', 'bulk', join(dir, 'semi.csv'), '--batch-id', 'semi-3', '--delimiter', '|'], env);
      expect(bad.code).toBe(2);
      expect(bad.stderr).toContain('--delimiter must be ",", ";" or tab');
    });
  });

  describe('files', () => {
    it("results keep the input's separator, BOM and row order, one line per row, rewritten whole after each run", async () => {
      const path = join(dir, 'excel.csv');
      // Excel's "CSV UTF-8" where a comma is the decimal separator: a BOM, semicolons, CRLF.
      const rows = good(3, 500).reverse();
      writeFileSync(path, `\uFEFF${[header, ...rows].map((r) => r.join(';')).join('\r\n')}\r\n`);
      const first = await runCli(['payouts', 'bulk', path, '--batch-id', 'excel-1'], env);
      expect(first.code, first.stderr).toBe(0);
      const resultsPath = `${path}.excel-1.results.csv`;
      const bytes = readFileSync(resultsPath);
      expect([...bytes.subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
      const text = bytes.subarray(3).toString('utf8');
      expect(text.split('\n')[0]).toBe('row;key;payout_id;status;error');
      const read = () => parse(readFileSync(resultsPath), { columns: true, bom: true, delimiter: ';' }) as Row[];
      expect(read().map((r) => [r.row, r.key, r.status])).toEqual([
        ['2', 'emp-502', 'created'],
        ['3', 'emp-501', 'created'],
        ['4', 'emp-500', 'created'],
      ]);
      // A row added at the top: the rerun pays it alone; every line says what became of its row.
      writeFileSync(path, `\uFEFF${[header, ...good(1, 503), ...rows].map((r) => r.join(';')).join('\r\n')}\r\n`);
      const second = await runCli(['payouts', 'bulk', path, '--batch-id', 'excel-1'], env);
      expect(second.code, second.stderr).toBe(0);
      expect(second.stderr).toContain('4 rows: created 1, replayed 0, skipped 3');
      const after = read();
      expect(after.map((r) => [r.row, r.key, r.status])).toEqual([
        ['2', 'emp-503', 'created'],
        ['3', 'emp-502', 'created'],
        ['4', 'emp-501', 'created'],
        ['5', 'emp-500', 'created'],
      ]);
      expect(after.every((r) => r.payout_id !== '')).toBe(true);
      // Written beside its name and renamed: nothing is left behind.
      expect(readdirSync(dir).filter((name) => name.startsWith('excel.csv.') && !/\.(journal|results\.csv)$/.test(name))).toEqual([]);
    });

    it('counts in words that agree with their numbers: "1 row"', async () => {
      const file = csv('one.csv', [header, ...good(1, 600)]);
      const result = await runCli(['payouts', 'bulk', file, '--batch-id', 'one-1'], env);
      expect(result.code, result.stderr).toBe(0);
      expect(result.stderr).toContain('payouts one-1: 1 row: created 1,');
    });

    it('results escape spreadsheet formulas by default; --no-escape-formulas writes them as they are', async () => {
      const file = csv('formula.csv', [header, ['=SUM(1+2)', '1000', 'XOF', 'SEN', 'wave', '221771255501', 'x']]);
      const escaped = await runCli(['payouts', 'bulk', file, '--batch-id', 'f1', '--results', '-'], env);
      expect(escaped.code, escaped.stderr).toBe(0);
      expect((parse(escaped.stdout, { columns: true }) as Row[])[0]?.key).toBe("'=SUM(1+2)");
      const raw = await runCli(['payouts', 'bulk', file, '--batch-id', 'f1', '--results', '-', '--no-escape-formulas'], env);
      expect(raw.code).toBe(0);
      expect((parse(raw.stdout, { columns: true }) as Row[])[0]).toMatchObject({
        key: '=SUM(1+2)',
        status: 'created',
      });
    });

    it('--results or --store naming the input (even through a link), or each other, is refused before anything is sent or written', async () => {
      const file = csv('payroll-same.csv', [header, ...good(2, 2)]);
      const original = readFileSync(file, 'utf8');
      const link = join(dir, 'link-to-payroll.csv');
      symlinkSync(file, link);
      const before = posts();
      for (const [args, message] of [
        [['--results', file], `the CSV and --results name the same file`],
        [['--results', link], `the CSV and --results name the same file`],
        [['--store', file], `the CSV and --store name the same file`],
        [['--results', join(dir, 'j.store'), '--store', join(dir, 'j.store')], `--results and --store name the same file`],
      ] as const) {
        const result = await runCli(['payouts', 'bulk', file, '--batch-id', 'same', ...args], env);
        expect(result.code).toBe(2);
        expect(result.stderr).toContain(message);
      }
      expect(readFileSync(file, 'utf8')).toBe(original);
      expect(existsSync(join(dir, 'j.store'))).toBe(false);
      expect(existsSync(storeFile('same'))).toBe(false);
      expect(posts()).toBe(before);
    });
  });

  it('the payroll, run with the sandbox key, then the live key, renamed, and without its store: each row paid exactly once', async () => {
    const rows = [header, ...good(6, 70)];
    const file = csv('payroll-dec.csv', rows);
    const mine = () => payoutPosts.filter((p) => p.amount >= 70_000 && p.amount <= 75_000);
    const paid = () => mine().filter((p) => p.status === 201).length;
    const before = mock.requests.length;

    // The sandbox key: refused before any row is sent (no payout request at all), exit non-zero.
    const sandbox = await runCli(['payouts', 'bulk', file, '--batch-id', 'payroll-dec'], { ...env, PAYMENTS_API_KEY: mock.apiKey });
    expect(sandbox.code).not.toBe(0);
    expect(sandbox.stderr).toMatch(/Payouts need a live key; this client's key is a sandbox key/);
    expect(mine()).toHaveLength(0);
    expect(mock.requests.length).toBe(before);

    // The live key, with --retry-failed: every row paid once.
    const live = await runCli(['payouts', 'bulk', file, '--batch-id', 'payroll-dec', '--retry-failed'], env);
    expect(live.code, live.stderr).toBe(0);
    expect(live.stderr).toContain('created 6');
    expect(paid()).toBe(6);
    expect(existsSync(storeFile('payroll-dec'))).toBe(true);

    // The same payroll saved under another name: the store is named after the batch, so it is found.
    const renamed = csv('payroll-dec-final.csv', rows);
    const again = await runCli(['payouts', 'bulk', renamed, '--batch-id', 'payroll-dec', '--retry-failed'], env);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).toContain('created 0, replayed 0, skipped 6');
    // The results file reads each row's latest state: created in the live run, with its payout.
    expect(readResults(`${renamed}.payroll-dec.results.csv`).every((r) => r.status === 'created' && r.payout_id !== '')).toBe(true);

    // The store deleted: every row is sent again under its one key, and replayed by the service.
    rmSync(storeFile('payroll-dec'));
    const lost = await runCli(['payouts', 'bulk', renamed, '--batch-id', 'payroll-dec', '--retry-failed'], env);
    expect(lost.code, lost.stderr).toBe(0);
    expect(lost.stderr).toContain('created 0, replayed 6, skipped 0');
    expect(readResults(`${renamed}.payroll-dec.results.csv`).every((r) => r.status === 'replayed')).toBe(true);

    // Six payouts at the service, one per row.
    expect(paid()).toBe(6);
    expect(
      new Set(
        mine()
          .filter((p) => p.status === 201)
          .map((p) => p.amount),
      ).size,
    ).toBe(6);
    const payouts = await new PaymentsClient({ apiKey: mock.liveApiKey as string, baseUrl: server.url }).payouts
      .list({ per_page: 100 })
      .toArray();
    expect(payouts.filter((p) => Number(p.amount) >= 70_000 && Number(p.amount) <= 75_000)).toHaveLength(6);
  });

  it('--store takes another file, or a URL (PAYMENTS_STORE_URL too); a bad scheme is refused naming the source, never printing the URL', async () => {
    const file = csv('elsewhere.csv', [header, ...good(2, 80)]);
    const path = join(dir, 'elsewhere.store');
    const first = await runCli(['payouts', 'bulk', file, '--batch-id', 'elsewhere', '--store', path, '--json'], env);
    expect(first.code, first.stderr).toBe(0);
    expect(JSON.parse(first.stdout.trim())).toMatchObject({ created: 2, store: path });
    const fromEnvironment = await runCli(['payouts', 'bulk', file, '--batch-id', 'elsewhere'], { ...env, PAYMENTS_STORE_URL: path });
    expect(fromEnvironment.stderr).toContain('skipped 2');
    expect(existsSync(storeFile('elsewhere'))).toBe(false);
    const secret = 'hunter2-secret';
    for (const [args, extra, says] of [
      [
        ['--store', `mysql://shop:${secret}@127.0.0.1/shop`],
        {},
        '--store must be a file path, or a redis://, rediss://, postgres:// or postgresql:// URL',
      ],
      [[], { PAYMENTS_STORE_URL: `mysql://shop:${secret}@127.0.0.1/shop` }, 'PAYMENTS_STORE_URL must be a file path'],
    ] as const) {
      const result = await runCli(['payouts', 'bulk', file, '--batch-id', 'elsewhere', ...args], { ...env, ...extra });
      expect(result.code).toBe(2);
      expect(result.stderr).toContain(says);
      expect(result.stderr + result.stdout).not.toContain(secret);
    }
  });

  describeRedis('with a Redis store', () => {
    describe('through PAYMENTS_STORE_URL or --store', () => {
      let redis: RedisServer;
      beforeAll(async () => {
        redis = await startRedisServer();
      });
      afterAll(() => redis?.stop());

      it('PAYMENTS_STORE_URL=redis://… shares the batch: a rerun from another directory skips every row; a bad password is never printed', async () => {
        const file = csv('redis.csv', [header, ...good(3, 60)]);
        const first = await runCli(['payouts', 'bulk', file, '--batch-id', 'redis-1', '--json'], { ...env, PAYMENTS_STORE_URL: redis.url });
        expect(first.code, first.stderr).toBe(0);
        expect(JSON.parse(first.stdout.trim())).toMatchObject({ created: 3, store: 'redis (PAYMENTS_STORE_URL)' });
        expect(existsSync(storeFile('redis-1'))).toBe(false);
        const again = await runCli(['payouts', 'bulk', file, '--batch-id', 'redis-1', '--store', redis.url], env);
        expect(again.code, again.stderr).toBe(0);
        expect(again.stderr).toContain('created 0, replayed 0, skipped 3');

        const secret = 'redis-pass-7Hq';
        const closed = `redis://user:${secret}@127.0.0.1:1/0`;
        const refused = await runCli(['payouts', 'bulk', file, '--batch-id', 'redis-2'], { ...env, PAYMENTS_STORE_URL: closed });
        expect(refused.code).toBe(4);
        expect(refused.stderr).toMatch(/^error: the store \(PAYMENTS_STORE_URL\) cannot be opened: /);
        expect(refused.stderr + refused.stdout).not.toContain(secret);
      });
    });
  });

  describePostgres('with a Postgres store', () => {
    describe('through PAYMENTS_STORE_URL or --store', () => {
      let database: PostgresServer;
      beforeAll(async () => {
        database = await startPostgresServer();
      }, 60_000);
      afterAll(() => database?.stop());

      it('PAYMENTS_STORE_URL=postgres://… makes its table and shares the batch; a password is never printed', async () => {
        const file = csv('postgres.csv', [header, ...good(2, 64)]);
        const first = await runCli(['payouts', 'bulk', file, '--batch-id', 'pg-1'], { ...env, PAYMENTS_STORE_URL: database.url });
        expect(first.code, first.stderr).toBe(0);
        expect(first.stderr).toContain('created 2');
        const again = await runCli(['payouts', 'bulk', file, '--batch-id', 'pg-1', '--store', database.url], env);
        expect(again.code, again.stderr).toBe(0);
        expect(again.stderr).toContain('created 0, replayed 0, skipped 2');

        const secret = 'pg-pass-Zq81';
        const wrong = database.url.replace('postgres@', `postgres:${secret}@`).replace(/:(\d+)\//, ':1/');
        const refused = await runCli(['payouts', 'bulk', file, '--batch-id', 'pg-2'], { ...env, PAYMENTS_STORE_URL: wrong });
        expect(refused.code).toBe(4);
        expect(refused.stderr).toMatch(/^error: the store \(PAYMENTS_STORE_URL\) cannot be opened: /);
        expect(refused.stderr + refused.stdout).not.toContain(secret);
      }, 60_000);
    });
  });

  it('a second run on the same store while the first runs is refused, naming its process; the first finishes', async () => {
    const file = csv('locked.csv', [header, ...good(6, 2)]);
    let release = () => {};
    const reached = new Promise<void>((resolve) => {
      stall = { after: 1, seen: 0, reached: resolve, release: new Promise<void>((r) => (release = r)) };
    });
    const first = spawn(process.execPath, [cliPath, 'payouts', 'bulk', file, '--batch-id', 'locked', '--concurrency', '1'], {
      cwd: dir,
      env: childEnv(env),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const done = collect(first);
    try {
      await reached;
      const before = posts();
      const second = await runCli(['payouts', 'bulk', file, '--batch-id', 'locked'], env);
      expect(second.code).toBe(2);
      expect(second.stderr).toMatch(/^error: fileStore: .*locked\.store is in use by process (\d+)/);
      expect(second.stderr).toContain(`in use by process ${first.pid}`);
      expect(posts()).toBe(before);
    } finally {
      stall = undefined;
      release();
    }
    const result = await done;
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toContain('created 6');
    expect(existsSync(`${storeFile('locked')}.lock`)).toBe(false);
  });
});
