/**
 * A merchant's webhook endpoint in its own process, for the cross-process store tests: a real
 * `node:http` server with `expressWebhook` and a `postgresStore`, settings from the environment.
 * Prints `L <port>` once listening, and `I <event id>` when `onEvent` is inside its transaction
 * for the event named by INBOX_HANG_EVENT, which then never finishes (the test kills the process).
 */
import { createServer } from 'node:http';
import pg from 'pg';
import postgres from 'postgres';
import { postgresStore } from '../../src/stores/index.js';
import { expressWebhook } from '../../src/webhooks/index.js';

const url = process.env.INBOX_DATABASE_URL ?? '';
const db =
  process.env.INBOX_DRIVER === 'postgres.js'
    ? postgres(url, { max: 4, onnotice: () => {} })
    : new pg.Pool({ connectionString: url, max: 4 });
const store = postgresStore(db, { timeoutMs: 4000 });

const handler = expressWebhook({
  secret: process.env.INBOX_SECRET,
  store,
  onError: () => {},
  onEvent: async (event, { tx }) => {
    await tx.query('INSERT INTO effects (event_id, pid) VALUES ($1, $2)', [event.id, process.pid]);
    if (event.id === process.env.INBOX_HANG_EVENT) {
      process.stdout.write(`I ${event.id}\n`);
      await new Promise(() => {});
    }
  },
});

const server = createServer((req, res) => void handler(req, res));
server.listen(0, '127.0.0.1', () => {
  const address = server.address();
  if (address && typeof address === 'object') process.stdout.write(`L ${address.port}\n`);
});
