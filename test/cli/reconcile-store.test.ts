/**
 * `payments-sdk reconcile` with a store (`PAYMENTS_STORE_URL` or `--store`), the built bin as a
 * child process, against a real PostgreSQL server holding the webhook endpoint's store and the
 * testing kit served on 127.0.0.1: the kit delivers to a `webhookHandler({ store })` and loses 30 %
 * of the deliveries; the command lists exactly the lost ones (exit 1), nothing once they are
 * reconciled (exit 0), takes the URL from the environment (the flag wins over it), never prints the
 * URL's password, and says `npm install pg` when no Postgres driver is installed.
 */

import { spawn } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Payment, PaymentsClient } from 'payments-sdk';
import { postgresStore } from 'payments-sdk/stores';
import { createMockService, type MockHttpServer } from 'payments-sdk/testing';
import { webhookHandler } from 'payments-sdk/webhooks';
import pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describePostgres, type PostgresServer, startPostgresServer } from '../helpers/postgres.js';
import { decidePayments } from '../helpers/reconcile.js';
import { freePort } from '../helpers/redis.js';
import { childEnv, collect, root, runCli } from './support.js';

const DAY = new Date().toISOString().slice(0, 10);

describePostgres('payments-sdk reconcile with a store (PAYMENTS_STORE_URL or --store)', () => {
  let server: PostgresServer;
  let pool: pg.Pool;
  let http: MockHttpServer;
  let env: Record<string, string>;
  let lost: Array<{ uuid: string; type: string }>;
  let client: PaymentsClient;
  const store = () => postgresStore(pool);

  beforeAll(async () => {
    server = await startPostgresServer();
    pool = new pg.Pool({ connectionString: server.url, max: 4 });
    pool.on('error', () => {});
    await store().migrate();
    let secret = '';
    const handle = (request: Request) => webhookHandler({ secret, store: store(), onEvent: () => {}, onError: () => {} })(request);
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

  it('takes the URL from PAYMENTS_STORE_URL alone; --store wins when both are set', async () => {
    const help = (await runCli(['reconcile', '--help'])).stdout.replace(/\s+/g, ' ');
    expect(help).toContain('(default: PAYMENTS_STORE_URL; prefer the environment)');
    expect(help).toContain('Give a URL in PAYMENTS_STORE_URL rather than --store');
    const fromEnvironment = await runCli(['reconcile', '--from', DAY, '--format', 'jsonl'], {
      ...env,
      PAYMENTS_STORE_URL: server.url,
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
    const flagWins = await runCli(['reconcile', '--from', DAY, '--format', 'jsonl', '--store', server.url], {
      ...env,
      PAYMENTS_STORE_URL: closed,
    });
    expect(flagWins.stderr).toContain(`${lost.length} missed, 0 stale`);
    expect(uuids(flagWins.stdout)).toEqual(new Set(lost.map((l) => l.uuid)));
    const badFlag = await runCli(['reconcile', '--from', DAY, '--store', 'mysql://x'], {
      ...env,
      PAYMENTS_STORE_URL: server.url,
    });
    expect(badFlag.stderr).toContain(
      '--store must be a file path, or a redis://, rediss://, postgres:// or postgresql:// URL (it has mysql://)',
    );
    expect(badFlag.code).toBe(2);

    // An empty variable is no store: every final payment is listed, as without one.
    const empty = await runCli(['reconcile', '--from', DAY, '--format', 'jsonl'], { ...env, PAYMENTS_STORE_URL: '' });
    expect(empty.code).toBe(1);
    expect(empty.stdout.trim().split('\n')).toHaveLength(30);
  });

  it("never prints a bad PAYMENTS_STORE_URL's password, even when the server echoes it", async () => {
    const password = 'Tr0ub4dor-s3cret';
    // Percent-escaped in the URL: neither the escaped nor the decoded form may show.
    const escaped = 's3cret%40pass';
    const port = new URL(server.url).port;
    const cases: Array<{ url: string; code: number; says: string }> = [
      { url: `mysql://shop:${password}@127.0.0.1/shop`, code: 2, says: 'PAYMENTS_STORE_URL must be a file path, or a redis://' },
      { url: `postgres://postgres:${password}@127.0.0.1:99999/postgres`, code: 4, says: 'Invalid URL' },
      { url: `postgres://postgres:${password}@127.0.0.1:${await freePort()}/postgres`, code: 4, says: 'ECONNREFUSED' },
      // The server names the database it lacks: here the password, as in a dev setup where both are "shop".
      { url: `postgres://postgres:${password}@127.0.0.1:${port}/${password}`, code: 4, says: 'database "[redacted]" does not exist' },
      { url: `postgres://postgres:${escaped}@127.0.0.1:${port}/s3cret@pass`, code: 4, says: 'database "[redacted]" does not exist' },
    ];
    for (const { url, code, says } of cases) {
      for (const flags of [[], ['--debug'], ['--json']]) {
        const result = await runCli([...flags, 'reconcile', '--from', DAY], { ...env, PAYMENTS_STORE_URL: url });
        const printed = result.stdout + result.stderr;
        expect(printed, url).toContain(says);
        expect(result.code, url).toBe(code);
        for (const secret of [password, escaped, 's3cret@pass', url]) expect(printed, url).not.toContain(secret);
      }
    }
  });

  it('a usage error keeps its exit code with a store URL set (the redaction of its secrets changes no exit code)', async () => {
    const out = join(mkdtempSync(join(tmpdir(), 'reconcile-out-')), 'missing-dir', 'findings.csv');
    const without = await runCli(['reconcile', '--from', DAY, '--out', out], env);
    const withDatabase = await runCli(['reconcile', '--from', DAY, '--out', out], { ...env, PAYMENTS_STORE_URL: server.url });
    expect(without.stderr).toContain(`cannot write ${out}`);
    expect(without.code).toBe(2);
    expect(withDatabase.stderr).toContain(`cannot write ${out}`);
    expect(withDatabase.code).toBe(2);
  });

  it('a service error reads the same with a store URL set: its HTTP status stays in the line', async () => {
    const badKey = { ...env, PAYMENTS_API_KEY: 'sk_test_not_a_key_of_the_mock' };
    const without = await runCli(['reconcile', '--from', DAY], badKey);
    const withDatabase = await runCli(['reconcile', '--from', DAY], { ...badKey, PAYMENTS_STORE_URL: server.url });
    expect(without.stderr).toMatch(/\(HTTP 401\)/);
    expect(withDatabase.stderr).toBe(without.stderr);
    expect(withDatabase.code).toBe(without.code);
  });

  it('lists exactly the payments whose delivery was lost (exit 1); once reconciled, none (exit 0)', async () => {
    expect(lost.length).toBeGreaterThan(3);
    expect(lost.length).toBeLessThan(20);
    const result = await runCli(['reconcile', '--from', DAY, '--format', 'jsonl', '--store', server.url], env);
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

    let handled = 0;
    for await (const finding of client.payments.reconcile({ from: DAY, store: store(), onEvent: () => {} })) {
      if (finding.kind === 'missed' && finding.handled) handled += 1;
    }
    expect(handled).toBe(lost.length);
    const none = await runCli(['reconcile', '--from', DAY, '--store', server.url], env);
    expect(none.stderr).toContain('0 missed, 0 stale');
    expect(none.code).toBe(0);
    // Without a store every final payment is listed, as before.
    const all = await runCli(['reconcile', '--from', DAY, '--format', 'jsonl'], env);
    expect(all.code).toBe(1);
    expect(all.stdout.trim().split('\n')).toHaveLength(30);
  });

  it('without a Postgres driver installed, it says npm install pg', async () => {
    // A merchant project with the built package and its dependencies, but neither pg nor postgres.
    const project = mkdtempSync(join(tmpdir(), 'cli-no-pg-'));
    const pkg = join(project, 'node_modules', 'payments-sdk');
    mkdirSync(pkg, { recursive: true });
    cpSync(join(root, 'dist'), join(pkg, 'dist'), { recursive: true });
    cpSync(join(root, 'package.json'), join(pkg, 'package.json'));
    for (const name of readdirSync(join(root, 'node_modules'))) {
      if (name === 'pg' || name === 'postgres' || name === 'payments-sdk' || name.startsWith('.')) continue;
      symlinkSync(join(root, 'node_modules', name), join(project, 'node_modules', name));
    }
    writeFileSync(join(project, 'package.json'), '{"type":"module"}');
    const child = spawn(process.execPath, [join(pkg, 'dist', 'cli.js'), 'reconcile', '--from', DAY, '--store', server.url], {
      env: childEnv(env),
      cwd: project,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const result = await collect(child);
    expect(result.stderr).toMatch(/--store needs the pg or postgres package, neither is installed: npm install pg/);
    expect(result.code).toBe(2);
  });
});
