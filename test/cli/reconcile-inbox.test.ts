/**
 * `payments-sdk reconcile` with a database (`PAYMENTS_DATABASE_URL` or `--database-url`), the built
 * bin as a child process, against a real PostgreSQL server holding the webhook inbox's table and the
 * testing kit served on 127.0.0.1: the kit delivers to a `webhookHandler({ inbox })` and loses 30 %
 * of the deliveries; the command lists exactly the lost ones (exit 1), nothing once they are
 * reconciled (exit 0), reads the table named by --table, takes the URL from the environment (the flag
 * wins over it), never prints the URL's password, and says `npm install pg` when pg is not installed.
 */

import { spawn } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Payment, PaymentsClient } from 'payments-sdk';
import { postgresInbox } from 'payments-sdk/postgres';
import { createMockService, type MockHttpServer } from 'payments-sdk/testing';
import { webhookHandler } from 'payments-sdk/webhooks';
import pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describePostgres, type PostgresServer, startPostgresServer } from '../helpers/postgres.js';
import { decidePayments } from '../helpers/reconcile.js';
import { freePort } from '../helpers/redis.js';
import { childEnv, collect, root, runCli } from './support.js';

const DAY = new Date().toISOString().slice(0, 10);

describePostgres('payments-sdk reconcile with a database (PAYMENTS_DATABASE_URL or --database-url)', () => {
  let server: PostgresServer;
  let pool: pg.Pool;
  let http: MockHttpServer;
  let env: Record<string, string>;
  let lost: Array<{ uuid: string; type: string }>;
  let client: PaymentsClient;
  const inbox = () => postgresInbox(pool, { table: 'shop.webhook_inbox' });

  beforeAll(async () => {
    server = await startPostgresServer();
    pool = new pg.Pool({ connectionString: server.url, max: 4 });
    pool.on('error', () => {});
    await pool.query('CREATE SCHEMA shop');
    await inbox().migrate();
    let secret = '';
    const handle = (request: Request) => webhookHandler({ secret, inbox: inbox(), onEvent: () => {}, onError: () => {} })(request);
    const mock = createMockService({ webhooks: { endpoint: handle, dropRate: 0.3, seed: 3 } });
    secret = mock.webhookSecret;
    http = await mock.listen();
    env = { PAYMENTS_API_KEY: mock.apiKey, PAYMENTS_BASE_URL: http.url };
    client = new PaymentsClient({ apiKey: mock.apiKey, baseUrl: http.url });
    await decidePayments(client, mock, 30, 5);
    lost = mock.deliveries.filter((d) => d.dropped).map((d) => ({ uuid: (d.event.data as Payment).uuid, type: d.event.type }));
  }, 60_000);

  afterAll(async () => {
    await http?.close();
    await pool?.end();
    await server?.stop();
  });

  it('takes the URL from PAYMENTS_DATABASE_URL alone; --database-url wins when both are set', async () => {
    const help = (await runCli(['reconcile', '--help'])).stdout.replace(/\s+/g, ' ');
    expect(help).toContain('(default: PAYMENTS_DATABASE_URL; prefer the environment; needs the pg package)');
    expect(help).toContain('Give the URL in PAYMENTS_DATABASE_URL rather than --database-url');
    const table = ['--table', 'shop.webhook_inbox'];
    const fromEnvironment = await runCli(['reconcile', '--from', DAY, '--format', 'jsonl', ...table], {
      ...env,
      PAYMENTS_DATABASE_URL: server.url,
    });
    expect(fromEnvironment.stderr).toContain(`${lost.length} missed, 0 stale`);
    expect(fromEnvironment.code).toBe(1);
    const uuids = (stdout: string) =>
      new Set(
        stdout
          .trim()
          .split('\n')
          .map((l) => (JSON.parse(l) as { payment: Payment }).payment.uuid),
      );
    expect(uuids(fromEnvironment.stdout)).toEqual(new Set(lost.map((l) => l.uuid)));

    // A variable naming a port where nothing listens is not used when the flag is given.
    const closed = `postgres://postgres@127.0.0.1:${await freePort()}/postgres`;
    const flagWins = await runCli(['reconcile', '--from', DAY, '--format', 'jsonl', '--database-url', server.url, ...table], {
      ...env,
      PAYMENTS_DATABASE_URL: closed,
    });
    expect(flagWins.stderr).toContain(`${lost.length} missed, 0 stale`);
    expect(uuids(flagWins.stdout)).toEqual(new Set(lost.map((l) => l.uuid)));
    const badFlag = await runCli(['reconcile', '--from', DAY, '--database-url', 'mysql://x', ...table], {
      ...env,
      PAYMENTS_DATABASE_URL: server.url,
    });
    expect(badFlag.stderr).toContain('--database-url must be a postgres:// or postgresql:// URL');
    expect(badFlag.code).toBe(2);

    // An empty variable is no database: every final payment is listed, as without one.
    const empty = await runCli(['reconcile', '--from', DAY, '--format', 'jsonl'], { ...env, PAYMENTS_DATABASE_URL: '' });
    expect(empty.code).toBe(1);
    expect(empty.stdout.trim().split('\n')).toHaveLength(30);
  });

  it("never prints a bad PAYMENTS_DATABASE_URL's password, even when the server echoes it", async () => {
    const password = 'Tr0ub4dor-s3cret';
    // Percent-escaped in the URL: neither the escaped nor the decoded form may show.
    const escaped = 's3cret%40pass';
    const port = new URL(server.url).port;
    const cases: Array<{ url: string; code: number; says: string }> = [
      { url: `mysql://shop:${password}@127.0.0.1/shop`, code: 2, says: 'PAYMENTS_DATABASE_URL must be a postgres:// or postgresql:// URL' },
      { url: `postgres://postgres:${password}@127.0.0.1:99999/postgres`, code: 4, says: 'Invalid URL' },
      { url: `postgres://postgres:${password}@127.0.0.1:${await freePort()}/postgres`, code: 4, says: 'ECONNREFUSED' },
      // The server names the database it lacks: here the password, as in a dev setup where both are "shop".
      { url: `postgres://postgres:${password}@127.0.0.1:${port}/${password}`, code: 4, says: 'database "[redacted]" does not exist' },
      { url: `postgres://postgres:${escaped}@127.0.0.1:${port}/s3cret@pass`, code: 4, says: 'database "[redacted]" does not exist' },
    ];
    for (const { url, code, says } of cases) {
      for (const flags of [[], ['--debug'], ['--json']]) {
        const result = await runCli([...flags, 'reconcile', '--from', DAY], { ...env, PAYMENTS_DATABASE_URL: url });
        const printed = result.stdout + result.stderr;
        expect(printed, url).toContain(says);
        expect(result.code, url).toBe(code);
        for (const secret of [password, escaped, 's3cret@pass', url]) expect(printed, url).not.toContain(secret);
      }
    }
  });

  it('a usage error keeps its exit code with a database URL set (the redaction of its secrets changes no exit code)', async () => {
    const out = join(mkdtempSync(join(tmpdir(), 'reconcile-out-')), 'missing-dir', 'findings.csv');
    const database = `postgres://postgres:Tr0ub4dor-s3cret@127.0.0.1:${await freePort()}/postgres`;
    const without = await runCli(['reconcile', '--from', DAY, '--out', out], env);
    const withDatabase = await runCli(['reconcile', '--from', DAY, '--out', out], { ...env, PAYMENTS_DATABASE_URL: database });
    expect(without.stderr).toContain(`cannot write ${out}`);
    expect(without.code).toBe(2);
    expect(withDatabase.stderr).toContain(`cannot write ${out}`);
    expect(withDatabase.code).toBe(2);
  });

  it('a service error reads the same with a database URL set: its HTTP status stays in the line', async () => {
    const database = `postgres://postgres:Tr0ub4dor-s3cret@127.0.0.1:${await freePort()}/postgres`;
    const badKey = { ...env, PAYMENTS_API_KEY: 'sk_test_not_a_key_of_the_mock' };
    const without = await runCli(['reconcile', '--from', DAY], badKey);
    const withDatabase = await runCli(['reconcile', '--from', DAY], { ...badKey, PAYMENTS_DATABASE_URL: database });
    expect(without.stderr).toMatch(/\(HTTP 401\)/);
    expect(withDatabase.stderr).toBe(without.stderr);
    expect(withDatabase.code).toBe(without.code);
  });

  it('lists exactly the payments whose delivery was lost (exit 1); once reconciled, none (exit 0)', async () => {
    expect(lost.length).toBeGreaterThan(3);
    expect(lost.length).toBeLessThan(20);
    const result = await runCli(
      ['reconcile', '--from', DAY, '--format', 'jsonl', '--database-url', server.url, '--table', 'shop.webhook_inbox'],
      env,
    );
    expect(result.stderr).toContain(`${lost.length} missed, 0 stale`);
    expect(result.code).toBe(1);
    const findings = result.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { kind: string; expectedEvent: string; payment: Payment });
    expect(new Set(findings.map((f) => `${f.kind} ${f.payment.uuid} ${f.expectedEvent}`))).toEqual(
      new Set(lost.map((l) => `missed ${l.uuid} ${l.type}`)),
    );
    expect(findings).toHaveLength(lost.length);

    // The default table does not exist in this database: a clear failure, not an empty list.
    const missingTable = await runCli(['reconcile', '--from', DAY, '--database-url', server.url], env);
    expect(missingTable.code).toBe(4);
    expect(missingTable.stderr).toContain('the inbox table payments_inbox is not in that database');

    expect(await inbox().reconcile(client, { from: DAY, onEvent: () => {} })).toEqual({ handled: lost.length, stale: 0 });
    const none = await runCli(['reconcile', '--from', DAY, '--database-url', server.url, '--table', 'shop.webhook_inbox'], env);
    expect(none.stderr).toContain('0 missed, 0 stale');
    expect(none.code).toBe(0);
    // Without --database-url every final payment is listed, as before.
    const all = await runCli(['reconcile', '--from', DAY, '--format', 'jsonl'], env);
    expect(all.code).toBe(1);
    expect(all.stdout.trim().split('\n')).toHaveLength(30);
  });

  it('bad --database-url and --table are usage errors; without pg installed, it says npm install pg', async () => {
    const bad = await runCli(['reconcile', '--from', DAY, '--database-url', 'mysql://x', '--table', '1bad;drop'], env);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--table: .*--database-url must be a postgres/s);

    // A merchant project with the built package and its dependencies, but no pg.
    const project = mkdtempSync(join(tmpdir(), 'cli-no-pg-'));
    const pkg = join(project, 'node_modules', 'payments-sdk');
    mkdirSync(pkg, { recursive: true });
    cpSync(join(root, 'dist'), join(pkg, 'dist'), { recursive: true });
    cpSync(join(root, 'package.json'), join(pkg, 'package.json'));
    for (const name of readdirSync(join(root, 'node_modules'))) {
      if (name === 'pg' || name === 'payments-sdk' || name.startsWith('.')) continue;
      symlinkSync(join(root, 'node_modules', name), join(project, 'node_modules', name));
    }
    writeFileSync(join(project, 'package.json'), '{"type":"module"}');
    const child = spawn(process.execPath, [join(pkg, 'dist', 'cli.js'), 'reconcile', '--from', DAY, '--database-url', server.url], {
      env: childEnv(env),
      cwd: project,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const result = await collect(child);
    expect(result.stderr).toMatch(/--database-url needs the pg package, which is not installed: npm install pg/);
    expect(result.code).toBe(2);
  });
});
