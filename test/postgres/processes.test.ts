/**
 * Webhook endpoints on one `postgresStore` across processes: real child processes, each a real
 * `node:http` endpoint on the same PostgreSQL. The same deliveries sent to both at once run each effect once; a process killed
 * (SIGKILL) while `onEvent` is inside its transaction leaves nothing, and the redelivery runs it once.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { postgresStore } from 'payments-sdk/stores';
import pg from 'pg';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { bundleScript } from '../helpers/bundle-script.js';
import { describePostgres, type PostgresServer, startPostgresServer } from '../helpers/postgres.js';
import { deliveryHeaders, eventBody, SECRET } from '../helpers/webhook-deliveries.js';

let server: PostgresServer;
let admin: pg.Pool;
let bundle: { file: string; cleanup(): Promise<void> };
const children = new Set<ChildProcess>();

interface Endpoint {
  child: ChildProcess;
  port: number;
  /** Resolves with the id of the first event `onEvent` is inside of, for INBOX_HANG_EVENT. */
  inside: Promise<string>;
  exited: Promise<unknown>;
}

async function startEndpoint(driver: string, hangEvent = ''): Promise<Endpoint> {
  const child = spawn(process.execPath, [bundle.file], {
    env: { ...process.env, INBOX_DATABASE_URL: server.url, INBOX_DRIVER: driver, INBOX_SECRET: SECRET, INBOX_HANG_EVENT: hangEvent },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  children.add(child);
  const exited = new Promise((resolve) => child.once('exit', resolve));
  let onInside: (id: string) => void = () => {};
  const inside = new Promise<string>((resolve) => {
    onInside = resolve;
  });
  const port = await new Promise<number>((resolve, reject) => {
    child.once('exit', () => reject(new Error('the endpoint exited before listening')));
    createInterface({ input: child.stdout as NodeJS.ReadableStream }).on('line', (line) => {
      if (line.startsWith('L ')) resolve(Number(line.slice(2)));
      if (line.startsWith('I ')) onInside(line.slice(2));
    });
  });
  return { child, port, inside, exited };
}

function send(port: number, body: string): Promise<number> {
  return fetch(`http://127.0.0.1:${port}/webhooks`, { method: 'POST', body, headers: deliveryHeaders(body) }).then(async (response) => {
    await response.arrayBuffer();
    return response.status;
  });
}

function paymentEvent(id: string, uuid: string): string {
  const body = JSON.parse(eventBody({ id })) as { data: Record<string, unknown> };
  return JSON.stringify({ ...body, data: { ...body.data, uuid } });
}

describePostgres('postgresStore webhook endpoints across processes', () => {
  beforeAll(async () => {
    server = await startPostgresServer();
    admin = new pg.Pool({ connectionString: server.url, max: 2 });
    // The server ends idle connections as it stops: the pool replaces them, nothing to report.
    admin.on('error', () => {});
    await admin.query('CREATE TABLE effects (n serial PRIMARY KEY, event_id text NOT NULL, pid int NOT NULL)');
    bundle = await bundleScript('test/postgres/webhook-child.ts');
  }, 60_000);
  afterAll(async () => {
    for (const child of children) child.kill('SIGKILL');
    await admin?.end();
    await server?.stop();
    await bundle?.cleanup();
  });
  beforeEach(async () => {
    await admin.query('DROP TABLE IF EXISTS payments_sdk');
    await admin.query('TRUNCATE effects');
    await postgresStore(admin).migrate();
  });

  for (const driver of ['pg', 'postgres.js']) {
    describe(driver, () => {
      it('the same deliveries sent to two processes at once: one effect per event', async () => {
        const [a, b] = await Promise.all([startEndpoint(driver), startEndpoint(driver)]);
        try {
          const bodies = Array.from({ length: 30 }, (_, i) => paymentEvent(`evt_${i}`, `pay-${i}`));
          const statuses = await Promise.all(bodies.flatMap((body) => [send(a.port, body), send(b.port, body)]));
          expect(statuses.every((status) => status === 200)).toBe(true);
          const { rows } = await admin.query('SELECT event_id, count(*)::int AS n FROM effects GROUP BY event_id');
          expect(rows).toHaveLength(30);
          expect(rows.every((row) => row.n === 1)).toBe(true);
        } finally {
          a.child.kill('SIGKILL');
          b.child.kill('SIGKILL');
        }
      });

      it('SIGKILL while onEvent is inside its transaction, then redelivery: exactly one effect', async () => {
        const body = paymentEvent('evt_killed', 'pay-killed');
        const dying = await startEndpoint(driver, 'evt_killed');
        const answer = send(dying.port, body).catch(() => 'no answer');
        expect(await dying.inside).toBe('evt_killed');
        // The effect's row was written inside the transaction, which is still open.
        dying.child.kill('SIGKILL');
        await dying.exited;
        expect(await answer).toBe('no answer');
        const survivor = await startEndpoint(driver);
        try {
          // Postgres notices the dead connection and rolls back: the redelivery finds no record.
          let status = 0;
          for (let attempt = 0; attempt < 20 && status !== 200; attempt++) status = await send(survivor.port, body);
          expect(status).toBe(200);
          expect(await send(survivor.port, body)).toBe(200);
          const { rows } = await admin.query("SELECT pid FROM effects WHERE event_id = 'evt_killed'");
          expect(rows).toEqual([{ pid: survivor.child.pid }]);
        } finally {
          survivor.child.kill('SIGKILL');
        }
      });
    });
  }
});
