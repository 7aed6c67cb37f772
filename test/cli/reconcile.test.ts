/**
 * `payments-sdk reconcile` and `payments-sdk mock --drop-deliveries`, both built bins as child
 * processes on 127.0.0.1: the mock loses a share of the deliveries to a real endpoint, and
 * reconcile lists every final payment of the window (no inbox yet: for the merchant to compare)
 * and the stuck ones apart; exit 1 with findings and 0 without; CSV with formulas escaped, JSON
 * lines, a progress bar on a terminal only; files whole or not at all; usage errors.
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import { PaymentsClient } from 'payments-sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCharge } from '../helpers/reconcile.js';
import { CliProcess, childEnv, cliPath, collect, runCli, WebhookEndpoint } from './support.js';

const dir = mkdtempSync(join(tmpdir(), 'cli-reconcile-'));
const CHARGES = 40;
const now = Date.now();
const ago = (ms: number) => new Date(now - ms).toISOString();
const FROM = ago(3 * 3_600_000).slice(0, 10);

type Row = Record<string, string>;

describe('payments-sdk mock --drop-deliveries, then payments-sdk reconcile', () => {
  const endpoint = new WebhookEndpoint();
  let mock: CliProcess;
  let env: Record<string, string>;
  let client: PaymentsClient;

  beforeAll(async () => {
    const url = await endpoint.listen();
    const seed = join(dir, 'seed.json');
    writeFileSync(
      seed,
      JSON.stringify({
        payments: [
          // A value a spreadsheet would run as a formula: the CSV must show it as text.
          { status: 'failed', failure_reason: '=HYPERLINK("http://127.0.0.1/x","click")', created_at: ago(3_600_000) },
          { uuid: '00000000-0000-4000-8000-00000000057a', status: 'pending', created_at: ago(2 * 3_600_000) },
          { status: 'pending', created_at: ago(60_000) },
        ],
      }),
    );
    mock = new CliProcess([
      'mock',
      '--port',
      '0',
      '--settle-after',
      '0',
      '--forward-to',
      url,
      '--drop-deliveries',
      '0.3',
      '--seed',
      seed,
      '--json',
    ]);
    const ready = JSON.parse(await mock.waitForLine((l) => l.includes('"ready"'), 'ready line')) as Record<string, string>;
    endpoint.secret = ready.webhookSecret as string;
    env = { PAYMENTS_API_KEY: ready.sandboxKey as string, PAYMENTS_BASE_URL: ready.baseUrl as string };
    client = new PaymentsClient({ apiKey: env.PAYMENTS_API_KEY, baseUrl: env.PAYMENTS_BASE_URL });
    for (let i = 0; i < CHARGES; i++) await createCharge(client, i);
    // Every charge settles at once; its first attempt is either received or lost.
    const deadline = Date.now() + 15_000;
    while (mock.json().filter((l) => l.type === 'delivery' && l.attempt === 1).length < CHARGES && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  });

  afterAll(async () => {
    await mock?.interrupt();
    await endpoint.close();
  });

  it('the mock loses about 30 % of the deliveries, every one it reports lost never reaches the endpoint', () => {
    const first = mock.json().filter((l) => l.type === 'delivery' && l.attempt === 1);
    expect(first).toHaveLength(CHARGES);
    const lost = first.filter((l) => l.lost === true);
    expect(lost.length).toBeGreaterThanOrEqual(4);
    expect(lost.length).toBeLessThanOrEqual(20);
    for (const l of lost) expect(l).toMatchObject({ ok: false, status: 0 });
    const received = new Set(endpoint.received.map((r) => r.id));
    for (const l of first) expect(received.has(l.id as string)).toBe(l.lost !== true);
    // A lost event is retried on the wall clock, one minute later.
    expect(new Date(lost[0]?.nextAttemptAt as string).getTime()).toBeGreaterThan(Date.now());
  });

  it('lists every final payment of the window as missed, the stuck one as stale, as JSON lines; exit 1', async () => {
    const result = await runCli(['reconcile', '--from', FROM, '--format', 'jsonl'], env);
    expect(result.code).toBe(1);
    const findings = result.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    const final = (await client.payments.list({ from: FROM, per_page: 100 }).toArray()).filter((p) =>
      ['succeeded', 'failed'].includes(p.status),
    );
    expect(final).toHaveLength(CHARGES + 1);
    const missed = findings.filter((f) => f.kind === 'missed');
    expect(new Set(missed.map((f) => f.payment.uuid))).toEqual(new Set(final.map((p) => p.uuid)));
    for (const f of missed) expect(f.expectedEvent).toBe(`payment.${f.payment.status}`);
    const stale = findings.filter((f) => f.kind === 'stale');
    expect(stale.map((f) => f.payment.uuid)).toEqual(['00000000-0000-4000-8000-00000000057a']);
    expect(findings.at(-1).kind).toBe('stale');
    expect(result.stderr).toContain(`${CHARGES + 1} missed, 1 stale`);
    expect(result.stderr).not.toContain(env.PAYMENTS_API_KEY as string);
  });

  it('writes a CSV file with the kind of each row and formulas escaped; --stale-after moves the threshold', async () => {
    const out = join(dir, 'findings.csv');
    const result = await runCli(['reconcile', '--from', FROM, '--out', out, '--stale-after', '0'], env);
    expect(result.code).toBe(1);
    const text = readFileSync(out, 'utf8');
    expect(text.split('\n')[0]).toBe(
      'kind,expected_event,uuid,created_at,status,checkout_session,currency,gross_amount,psp_fee_amount,platform_fee_amount,net_amount_to_merchant,payment_method,mobile_money_country,mobile_money_provider,psp_reference,failure_reason',
    );
    const rows = parse(text, { columns: true }) as Row[];
    expect(rows.filter((r) => r.kind === 'missed')).toHaveLength(CHARGES + 1);
    // Both pending payments are past a threshold of 0 minutes.
    expect(rows.filter((r) => r.kind === 'stale')).toHaveLength(2);
    const formula = rows.find((r) => r.failure_reason?.includes('HYPERLINK'));
    expect(formula?.failure_reason).toBe(`'=HYPERLINK("http://127.0.0.1/x","click")`);
    expect(formula).toMatchObject({ kind: 'missed', expected_event: 'payment.failed', status: 'failed' });
  });

  it('an empty window exits 0 with the header only; --json prints the summary', async () => {
    const out = join(dir, 'empty.csv');
    const result = await runCli(['--json', 'reconcile', '--from', '2020-01-01', '--to', '2020-01-31', '--out', out], env);
    expect(result.code).toBe(0);
    expect(readFileSync(out, 'utf8').trim().split('\n')).toHaveLength(1);
    expect(JSON.parse(result.stdout)).toMatchObject({ missed: 0, stale: 0, from: '2020-01-01', to: '2020-01-31', interrupted: false });
  });

  it('a run that fails leaves the earlier file untouched and no temporary file; exit 4', async () => {
    const out = join(dir, 'kept.csv');
    writeFileSync(out, 'earlier report\n');
    const result = await runCli(['reconcile', '--from', FROM, '--out', out], { ...env, PAYMENTS_BASE_URL: 'http://127.0.0.1:9' });
    expect(result.code).toBe(4);
    expect(readFileSync(out, 'utf8')).toBe('earlier report\n');
    expect(readdirSync(dir).filter((f) => f.includes('.partial'))).toEqual([]);
  });

  it('bad input is a usage error naming each problem, before any file or request', async () => {
    const out = join(dir, 'never.csv');
    const bad = await runCli(['reconcile', '--from', 'yesterday', '--to', '2026-1-1', '--format', 'xml', '--out', out], env);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--from must be a date YYYY-MM-DD.*--to must be a date YYYY-MM-DD.*--format must be csv or jsonl/);
    // A date of the right shape that is no date is named beside the other bad options.
    const impossible = await runCli(['reconcile', '--from', '2026-02-30', '--format', 'xml', '--out', out], env);
    expect(impossible.code).toBe(2);
    expect(impossible.stderr).toBe(
      'error: --from must be a date YYYY-MM-DD, got "2026-02-30"; --format must be csv or jsonl, got "xml".\n',
    );
    expect(existsSync(out)).toBe(false);
    expect((await runCli(['reconcile'], env)).code).toBe(2);
    const dropWithout = await runCli(['mock', '--port', '0', '--drop-deliveries', '0.3']);
    expect(dropWithout.code).toBe(2);
    expect(dropWithout.stderr).toMatch(/--drop-deliveries needs --forward-to/);
    const dropBad = await runCli(['mock', '--port', '0', '--forward-to', 'http://127.0.0.1:9/x', '--drop-deliveries', '1.5']);
    expect(dropBad.code).toBe(2);
    expect(dropBad.stderr).toMatch(/--drop-deliveries must be a number from 0 to 1/);
  });

  it('no progress bar in a pipe; a bar on a terminal', async () => {
    const piped = await runCli(['reconcile', '--from', FROM, '--out', join(dir, 'piped.csv')], env);
    expect(piped.stderr).not.toContain('\u001b[');
    if (spawnSync('script', ['--version']).status !== 0) {
      if (process.env.CI === 'true') throw new Error('util-linux `script` is needed for the TTY test (apt-get install bsdutils).');
      console.warn('skipped the TTY half: no util-linux `script` (apt-get install bsdutils) to make a pseudo-terminal');
      return;
    }
    const command = `'${process.execPath}' '${cliPath}' reconcile --from ${FROM} --out '${join(dir, 'tty.csv')}'`;
    const tty = await collect(
      spawn('script', ['-q', '-e', '-c', command, '/dev/null'], { env: childEnv(env), stdio: ['ignore', 'pipe', 'pipe'] }),
    );
    expect(tty.code).toBe(1);
    expect(tty.stdout).toMatch(/reconcile \[[#-]+\] \d+\/\d+ \| \d+\/s/);
  });
});
