/**
 * The Postgres store in a real merchant process (test/stores/postgres-child.ts) whose effect freezes
 * inside `transact` past the server's bound: the process stops (SIGSTOP) or blocks its event loop
 * while the server ends its session for idling in a transaction. The process must survive, the
 * transact fail with a StoreTimeoutError, its write never land, and the next transact succeed (a Pool,
 * postgres.js) or fail saying the single Client is dead.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import pg from 'pg';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { bundleScript } from '../helpers/bundle-script.js';
import { describePostgres, type PostgresServer, startPostgresServer } from '../helpers/postgres.js';

let server: PostgresServer;
let admin: pg.Pool;
let bundle: { file: string; cleanup(): Promise<void> };
const children = new Set<ChildProcess>();
const TIMEOUT_MS = 1000;

interface Run {
  child: ChildProcess;
  lines: string[];
  /** Resolves once a line starting with `prefix` is printed. */
  line(prefix: string): Promise<string>;
  exited: Promise<{ code: number | null; signal: string | null }>;
}

function start(driver: string, freeze: 'stop' | 'block'): Run {
  const child = spawn(process.execPath, [bundle.file], {
    env: {
      ...process.env,
      STORE_DATABASE_URL: server.url,
      STORE_DRIVER: driver,
      STORE_FREEZE: freeze,
      STORE_TIMEOUT_MS: String(TIMEOUT_MS),
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.add(child);
  const lines: string[] = [];
  const waiters: Array<{ prefix: string; resolve: (line: string) => void }> = [];
  let stderr = '';
  child.stderr?.on('data', (chunk) => (stderr += chunk));
  createInterface({ input: child.stdout as NodeJS.ReadableStream }).on('line', (line) => {
    lines.push(line);
    for (const waiter of waiters) if (line.startsWith(waiter.prefix)) waiter.resolve(line);
  });
  const exited = new Promise<{ code: number | null; signal: string | null }>((resolve) =>
    child.once('exit', (code, signal) => {
      if (code !== 0) lines.push(`stderr: ${stderr}`);
      resolve({ code, signal });
    }),
  );
  return {
    child,
    lines,
    exited,
    line: (prefix) =>
      Promise.race([
        new Promise<string>((resolve) => {
          const found = lines.find((line) => line.startsWith(prefix));
          if (found) resolve(found);
          else waiters.push({ prefix, resolve });
        }),
        exited.then(() => {
          throw new Error(`the child exited before printing ${prefix}: ${lines.join('\n')}`);
        }),
      ]),
  };
}

/** Waits until the server has ended every session left idle in a transaction after writing `child_effects`. */
async function serverEndedTheSession(): Promise<void> {
  const deadline = Date.now() + 15_000;
  for (;;) {
    const { rows } = await admin.query(
      "SELECT count(*)::int AS n FROM pg_stat_activity WHERE state LIKE 'idle in transaction%' AND query LIKE '%child_effects%'",
    );
    if (rows[0]?.n === 0) return;
    if (Date.now() > deadline) throw new Error('the server did not end the idle transaction');
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describePostgres('postgresStore in a process that freezes inside transact', () => {
  beforeAll(async () => {
    server = await startPostgresServer();
    admin = new pg.Pool({ connectionString: server.url, max: 2 });
    admin.on('error', () => {});
    await admin.query('CREATE TABLE child_effects (key text NOT NULL)');
    bundle = await bundleScript('test/stores/postgres-child.ts');
    const { postgresStore } = await import('../../src/stores/postgres/store.js');
    await postgresStore(admin, { table: 'child_store' }).migrate();
  }, 60_000);
  afterAll(async () => {
    for (const child of children) child.kill('SIGKILL');
    await admin?.end();
    await server?.stop();
    await bundle?.cleanup();
  });
  beforeEach(async () => {
    await admin.query('TRUNCATE child_effects, child_store');
  });

  for (const driver of ['pool', 'postgres.js', 'client']) {
    describe(driver, () => {
      for (const freeze of ['stop', 'block'] as const) {
        it(`${freeze === 'stop' ? 'stopped (SIGSTOP)' : 'its event loop blocked'} past the server's bound: the process survives, nothing lands, the next call ${driver === 'client' ? 'says the Client is dead' : 'succeeds'}`, async () => {
          const run = start(driver, freeze);
          await run.line('I');
          if (freeze === 'stop') {
            await serverEndedTheSession();
            run.child.kill('SIGCONT');
          }
          const { code } = await run.exited;
          expect(run.lines.join('\n')).toMatch(/^F error StoreTimeoutError /m);
          expect(code, run.lines.join('\n')).toBe(0);
          const next = run.lines.find((line) => line.startsWith('N ')) ?? '';
          const landed = (await admin.query('SELECT key FROM child_effects ORDER BY key')).rows.map((row) => row.key);
          const settled = (await admin.query('SELECT key FROM child_store WHERE settled ORDER BY key')).rows.map((row) => row.key);
          if (driver === 'client') {
            expect(next).toMatch(/^N error StoreUnavailableError .*pg Client's connection has ended.*pass a pg Pool/);
            expect(landed).toEqual([]);
            expect(settled).toEqual([]);
          } else {
            expect(next).toBe('N done done');
            expect(landed).toEqual(['k2']);
            expect(settled).toEqual(['k2']);
          }
        }, 40_000);
      }
    });
  }
});
