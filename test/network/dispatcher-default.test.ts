/**
 * Node's own default dispatcher: once anything in the process has used `fetch`, Node's bundled
 * undici puts its default `Agent` at `Symbol.for('undici.globalDispatcher.1')` (Node 24's undici 7
 * puts the same one at `.2`; no npm undici is imported in this file, unlike node-exchange.test.ts).
 * The client must still take node:http then: that is the state of most merchant processes.
 */
import { PaymentsClient } from 'payments-sdk';
import { afterAll, expect, it } from 'vitest';
import { API_KEY, payment } from '../helpers/fixtures.js';
import { startServer, type TestServer } from './server.js';

let server: TestServer | undefined;
afterAll(() => server?.close());

it('node:http while the dispatcher is the default Agent Node installed on first fetch', async () => {
  server = await startServer((x) => x.server.json(x.res, 200, { data: payment() }));
  // A fetch of the program's own, before the client's call.
  await (await fetch(`${server.origin}/warm-up`)).text();
  const dispatchers = globalThis as Record<symbol, { constructor?: { name?: string } } | undefined>;
  expect(dispatchers[Symbol.for('undici.globalDispatcher.1')]?.constructor?.name).toBe('Agent');
  const second = dispatchers[Symbol.for('undici.globalDispatcher.2')];
  expect(second === undefined || second === dispatchers[Symbol.for('undici.globalDispatcher.1')]).toBe(true);
  await new PaymentsClient({ apiKey: API_KEY, baseUrl: server.origin, maxRetries: 0 }).payments.retrieve('p-1');
  // undici's fetch sends sec-fetch-mode on every request; node:http never does.
  expect(server.requests.map((r) => `${r.url} ${r.headers['sec-fetch-mode'] ?? 'no sec-fetch-mode'}`)).toEqual([
    '/warm-up cors',
    '/api/v1/payments/p-1 no sec-fetch-mode',
  ]);
});
