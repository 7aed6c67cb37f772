/**
 * `payments-sdk export`, the built bin as a child process against the testing kit's service on
 * 127.0.0.1: every page to CSV / JSON lines, the formatted amount columns, filters, the progress bar
 * on a terminal only (a pseudo-terminal from util-linux `script`), files that appear whole or not
 * at all (a refused key, a failure on page 2, Ctrl-C, a list that never ends), spreadsheet formulas
 * escaped, the byte-order mark, `--out` extensions, and keys that never show.
 */
import { spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
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
/** Set to answer some requests itself (a failing page, a list that never ends); `undefined` passes to the mock. */
let override: ((request: Request) => Response | undefined) | undefined;
let requests = 0;
let server: MockHttpServer;
let env: Record<string, string>;

beforeAll(async () => {
  server = await startServer(async (request) => {
    requests += 1;
    const answer = override?.(request);
    if (answer) return answer;
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
/** Temporary files an export left beside its target (there must be none once it ended). */
const leftovers = () => readdirSync(dir).filter((name) => name.endsWith('.partial'));

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

  it('Ctrl-C mid-export exits 130 and leaves --out as it was (whole or nothing); a rerun writes it whole', async () => {
    const out = join(dir, 'interrupted.csv');
    writeFileSync(out, 'last month\n');
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
    expect(result.stderr).toContain(`Interrupted: 200 payments read over 2 pages; ${out} not written (what it held before is untouched).`);
    expect(readFileSync(out, 'utf8')).toBe('last month\n');
    expect(leftovers()).toEqual([]);

    const rerun = await runCli(['export', 'payments', '--out', out], env);
    expect(rerun.code).toBe(0);
    expect(readCsv(out)).toHaveLength(TOTAL);
  });

  it('Ctrl-C on stdout stops after the current page, on a complete row', async () => {
    let release = () => {};
    const reached = new Promise<void>((resolve) => {
      stall = { reached: resolve, release: new Promise<void>((r) => (release = r)) };
    });
    const child = spawn(process.execPath, [cliPath, 'export', 'payments', '--per-page', '100'], {
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
    expect(result.stderr).toContain('Interrupted: 200 payments read over 2 pages; stdout ends on the last complete row.');
    expect(parse(result.stdout, { columns: true })).toHaveLength(200);
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
    expect(bad.stderr).toContain('--from must be a date YYYY-MM-DD');
    const impossible = await runCli(['export', 'refunds', '--from', '2026-02-30'], env);
    expect(impossible.stderr).toContain('unknown resource "refunds"');
    expect(impossible.stderr).toContain('--from must be a date YYYY-MM-DD, got "2026-02-30"');
  });
});

describe('payments-sdk export, whole files or none', () => {
  it('a refused key leaves an existing --out untouched: exit 4, one line saying it was not written', async () => {
    const out = join(dir, 'october.csv');
    writeFileSync(out, 'the October export\n');
    const result = await runCli(['export', 'payments', '--out', out, '--api-key', 'sk_test_refused_key'], {
      PAYMENTS_BASE_URL: server.url,
    });
    expect(result.code).toBe(4);
    expect(result.stderr).toMatch(/^error: .*\(HTTP 401\); .*october\.csv not written \(what it held before is untouched\)\.\n$/);
    expect(readFileSync(out, 'utf8')).toBe('the October export\n');
    expect(leftovers()).toEqual([]);
  });

  it('a failure on page 2 leaves the old file as it was, and says how many rows were read', async () => {
    const out = join(dir, 'page-two.csv');
    writeFileSync(out, 'before\n');
    override = (request) =>
      new URL(request.url).searchParams.get('page') === '2'
        ? Response.json({ message: 'Cette action est non autorisée.' }, { status: 403 })
        : undefined;
    try {
      const result = await runCli(['export', 'payments', '--out', out, '--per-page', '100'], env);
      expect(result.code).toBe(4);
      expect(result.stderr).toBe(
        `error: Cette action est non autorisée. (HTTP 403); 100 payments read over 1 page, ${out} not written (what it held before is untouched).\n`,
      );
      expect(readFileSync(out, 'utf8')).toBe('before\n');
      expect(leftovers()).toEqual([]);
      // On stdout the rows already written stay, and the message says the output holds only them.
      const piped = await runCli(['export', 'payments', '--per-page', '100'], env);
      expect(piped.code).toBe(4);
      expect(piped.stderr).toContain('; 100 payments read over 1 page, stdout holds only those rows.');
      expect(parse(piped.stdout, { columns: true })).toHaveLength(100);
    } finally {
      override = undefined;
    }
  });

  it('a list that never ends (always a new next link, empty pages) stops with a clear error; no file', async () => {
    const out = join(dir, 'endless.csv');
    override = (request) => {
      const url = new URL(request.url);
      if (!url.pathname.endsWith('/payments')) return undefined;
      const page = Number(url.searchParams.get('page') ?? '1');
      return Response.json({
        data: [],
        links: { first: null, last: null, prev: null, next: `${server.url}/api/v1/payments?page=${page + 1}&c=${page * 7}` },
        meta: { current_page: page, last_page: 1000, per_page: 100, total: 100_000 },
      });
    };
    requests = 0;
    try {
      const result = await runCli(['export', 'payments', '--out', out], env);
      expect(result.code).toBe(4);
      expect(result.stderr).toMatch(/^error: Pagination stopped: 3 empty pages in a row still name a next page .*endless\.csv not written/);
      expect(requests).toBeLessThanOrEqual(4);
      expect(existsSync(out)).toBe(false);
      expect(leftovers()).toEqual([]);
    } finally {
      override = undefined;
    }
  });

  it('refuses an --out whose extension does not match the format, before any request', async () => {
    requests = 0;
    const xlsx = await runCli(['export', 'payments', '--out', join(dir, 'x.xlsx')], env);
    expect(xlsx.code).toBe(2);
    expect(xlsx.stderr).toBe(
      `error: --out ${join(dir, 'x.xlsx')}: a CSV export goes to a .csv file, not .xlsx (exports are CSV or JSON lines; Excel opens a .csv: add --bom).\n`,
    );
    const mismatch = await runCli(['export', 'payments', '--out', join(dir, 'y.csv'), '--format', 'jsonl'], env);
    expect(mismatch.code).toBe(2);
    expect(mismatch.stderr).toContain('a JSON lines export goes to a .jsonl or .ndjson file, not .csv');
    const bomJsonl = await runCli(['export', 'payments', '--format', 'jsonl', '--bom'], env);
    expect(bomJsonl.code).toBe(2);
    expect(bomJsonl.stderr).toContain('--bom is for CSV files only');
    expect(requests).toBe(0);
    expect(existsSync(join(dir, 'x.xlsx'))).toBe(false);
    expect(existsSync(join(dir, 'y.csv'))).toBe(false);
  });
});

describe('payments-sdk export, spreadsheets', () => {
  // Text a customer typed (a payer's name, a description) that a spreadsheet would run as a formula.
  const hostile = ['=HYPERLINK("http://127.0.0.1:9/x","click")', '+33 1', '-2+3', '@SUM(A1)', '\tTab', '\rReturn', 'Awa Diop'];
  const sheet = createMockService({
    seed: {
      checkoutSessions: hostile.map((description, i) => ({ amount: 100 + i, currency: 'XOF', description, payer_name: 'Élodie N’Diaye' })),
    },
  });
  let sheetServer: MockHttpServer;
  let sheetEnv: Record<string, string>;
  beforeAll(async () => {
    sheetServer = await startServer((request) => sheet.fetch(request));
    sheetEnv = { PAYMENTS_API_KEY: sheet.apiKey, PAYMENTS_BASE_URL: sheetServer.url };
  });
  afterAll(() => sheetServer.close());

  it('escapes cells starting with =, +, -, @, tab or CR with a leading quote by default; numbers stay numbers', async () => {
    const result = await runCli(['export', 'checkout-sessions', '--locale', 'en'], sheetEnv);
    expect(result.code).toBe(0);
    const rows = parse(result.stdout, { columns: true }) as Row[];
    expect(rows.map((r) => r.description).sort()).toEqual(hostile.map((d) => (d === 'Awa Diop' ? d : `'${d}`)).sort());
    expect(rows.map((r) => r.amount).sort()).toEqual(hostile.map((_, i) => String(100 + i)).sort());
    // Quoting is as before: the escaped cell with a quote and a comma is quoted and doubled.
    expect(result.stdout).toContain(`"'=HYPERLINK(""http://127.0.0.1:9/x"",""click"")"`);
  });

  it('--no-escape-formulas writes them as they are; JSON lines are never altered', async () => {
    const raw = await runCli(['export', 'checkout-sessions', '--no-escape-formulas'], sheetEnv);
    expect(raw.code).toBe(0);
    expect((parse(raw.stdout, { columns: true }) as Row[]).map((r) => r.description).sort()).toEqual([...hostile].sort());
    const jsonl = await runCli(['export', 'checkout-sessions', '--format', 'jsonl'], sheetEnv);
    const descriptions = jsonl.stdout
      .trim()
      .split('\n')
      .map((l) => (JSON.parse(l) as { description: string }).description);
    expect(descriptions.sort()).toEqual([...hostile].sort());
  });

  it('--bom starts the file with a UTF-8 byte-order mark (Excel then reads accents right); none without it', async () => {
    const withBom = join(dir, 'bom.csv');
    const without = join(dir, 'no-bom.csv');
    expect((await runCli(['export', 'checkout-sessions', '--bom', '--out', withBom], sheetEnv)).code).toBe(0);
    expect((await runCli(['export', 'checkout-sessions', '--out', without], sheetEnv)).code).toBe(0);
    const bytes = readFileSync(withBom);
    expect([...bytes.subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
    expect(bytes.subarray(3).equals(readFileSync(without))).toBe(true);
    const rows = parse(bytes, { columns: true, bom: true }) as Row[];
    expect(rows[0]?.payer_name).toBe('Élodie N’Diaye');
    expect(Object.keys(rows[0] ?? {})[0]).toBe('reference');
  });

  it('--delimiter ";" writes what Excel opens where a comma is the decimal separator, with --bom; formulas stay escaped', async () => {
    const out = join(dir, 'semicolon.csv');
    const result = await runCli(['export', 'checkout-sessions', '--delimiter', ';', '--bom', '--locale', 'fr', '--out', out], sheetEnv);
    expect(result.code, result.stderr).toBe(0);
    const bytes = readFileSync(out);
    expect([...bytes.subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
    const text = bytes.subarray(3).toString('utf8');
    expect(text.split('\n')[0]).toMatch(/^reference;created_at;status;currency;amount;amount_formatted;description;/);
    const rows = parse(text, { columns: true, delimiter: ';' }) as Row[];
    expect(rows).toHaveLength(hostile.length);
    expect(rows.map((r) => r.description).sort()).toEqual(hostile.map((d) => (d === 'Awa Diop' ? d : `'${d}`)).sort());
    // A tab is accepted by name; any other separator is refused before a request.
    expect((await runCli(['export', 'checkout-sessions', '--delimiter', 'tab'], sheetEnv)).stdout.split('\n')[0]).toMatch(
      /^reference\tcreated_at\t/,
    );
    const bad = await runCli(['export', 'checkout-sessions', '--delimiter', '|'], sheetEnv);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--delimiter must be ",", ";" or tab, got "|"');
    const jsonl = await runCli(['export', 'checkout-sessions', '--format', 'jsonl', '--delimiter', ';'], sheetEnv);
    expect(jsonl.stderr).toContain('--delimiter is for CSV files only');
  });

  it('counts in words that agree with their numbers: 1 checkout session, 2 payments', async () => {
    const one = createMockService({ seed: { checkoutSessions: [{ amount: 100, currency: 'XOF' }] } });
    const oneServer = await startServer((request) => one.fetch(request));
    try {
      const out = join(dir, 'one.csv');
      const result = await runCli(['export', 'checkout-sessions', '--out', out], {
        PAYMENTS_API_KEY: one.apiKey,
        PAYMENTS_BASE_URL: oneServer.url,
      });
      expect(result.stderr).toBe(`exported 1 checkout session to ${out}\n`);
    } finally {
      await oneServer.close();
    }
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

describe('payments-sdk export, with Node as it comes', () => {
  it.each(nodes)(
    'exports on $name without setting a V8 flag or calling gc()',
    async ({ name, bin }) => {
      expect(existsSync(bin), `${bin} is a devDependency: run npm install`).toBe(true);
      const out = join(dir, `defaults ${name}.csv`);
      // The probe replaces both ways in (v8.setFlagsFromString, a gc function) with ones that say so.
      const probe =
        'data:text/javascript,import v8 from "node:v8";const real=v8.setFlagsFromString.bind(v8);' +
        'v8.setFlagsFromString=(f)=>{process.stderr.write("setFlagsFromString "+f+"\\n");real(f)};' +
        'globalThis.gc=()=>process.stderr.write("gc()\\n");';
      const child = spawn(bin, ['--import', probe, cliPath, 'export', 'payments', '--per-page', '20', '--out', out], {
        env: childEnv(env),
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      const result = await collect(child);
      expect(result.code).toBe(0);
      expect(result.stderr).toBe(`exported ${TOTAL} payments to ${out}\n`);
      expect(readCsv(out)).toHaveLength(TOTAL);
    },
    60_000,
  );
});
