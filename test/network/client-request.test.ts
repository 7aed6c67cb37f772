/**
 * `client.request` (an endpoint the SDK does not model) and `client.withOptions` (other defaults,
 * the same settings and connection pool), against real servers on 127.0.0.1.
 */
import {
  APIConnectionError,
  type ClientOptions,
  InternalServerError,
  InvalidParamsError,
  PaymentsClient,
  PaymentsError,
  ResponseValidationError,
  UnprocessableEntityError,
} from 'payments-sdk';
import { afterEach, describe, expect, it, vi } from 'vitest';
import * as zc from 'zod';
import * as z from 'zod/mini';
import { caught } from '../helpers/caught.js';
import { everythingIn, startServer, type TestServer } from './server.js';

const KEY = 'sk_test_request/EchoedKey42';

let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

function clientFor(s: TestServer, options: ClientOptions = {}) {
  return new PaymentsClient({ apiKey: KEY, baseUrl: s.origin, retryBackoff: { initialMs: 1, maxMs: 2 }, ...options });
}

const Refund = z.object({ data: z.object({ uuid: z.string(), amount: z.number() }) });

/** A refunds endpoint the SDK does not model: creations are idempotent by key, like the service's. */
async function refundsServer(failFirst: number[] = []): Promise<TestServer> {
  const failures = [...failFirst];
  const refunds = new Map<string, { uuid: string; amount: number }>();
  return startServer(({ req, res, seen, server: s }) => {
    const status = failures.shift();
    if (status !== undefined) return s.json(res, status, { message: 'busy' });
    if (req.method === 'POST' && seen.url === '/api/v1/refunds') {
      const key = String(seen.headers['idempotency-key']);
      const known = refunds.get(key);
      if (known) return s.json(res, 200, { data: known });
      const refund = { uuid: `r-${refunds.size + 1}`, amount: JSON.parse(seen.body).amount };
      refunds.set(key, refund);
      return s.json(res, 201, { data: refund });
    }
    if (req.method === 'GET' && seen.url.startsWith('/api/v1/refunds')) {
      return s.json(res, 200, { data: [...refunds.values()], links: { next: null }, meta: { total: refunds.size } });
    }
    s.json(res, 404, { message: 'No query results.' });
  });
}

describe('client.request: an endpoint the SDK does not model, as a modelled call', () => {
  it('GET: the path under /api/v1, the query, the SDK headers, no Idempotency-Key; the whole body, not unwrapped', async () => {
    server = await refundsServer();
    const client = clientFor(server, { headers: { 'X-Shop': 'dakar-1' } });
    const { data, response, idempotencyKey } = await client
      .request({
        method: 'GET',
        path: '/refunds',
        query: { status: 'done', from: new Date('2026-11-01T10:00:00Z'), page: 2, skip: undefined },
      })
      .withResponse();
    expect(data).toEqual({ data: [], links: { next: null }, meta: { total: 0 } });
    expect(response.status).toBe(200);
    expect(idempotencyKey).toBeUndefined();
    const seen = server.requests[0];
    expect(seen?.url).toBe('/api/v1/refunds?status=done&from=2026-11-01&page=2');
    expect(seen?.headers.authorization).toBe(`Bearer ${KEY}`);
    expect(seen?.headers['user-agent']).toMatch(/^payments-sdk\//);
    expect(seen?.headers['x-shop']).toBe('dakar-1');
    expect(seen?.headers['idempotency-key']).toBeUndefined();
  });

  it('POST: JSON body, an Idempotency-Key, the same on every retry; replayed when the service answers 200', async () => {
    server = await refundsServer([503, 502]);
    const client = clientFor(server);
    const first = await client.request({ method: 'POST', path: '/refunds', body: { amount: 500 }, schema: Refund }).withResponse();
    expect(first.data).toEqual({ data: { uuid: 'r-1', amount: 500 } });
    expect(first.replayed).toBe(false);
    expect(first.idempotencyKey).toMatch(/^[0-9a-f-]{36}$/);
    expect(server.requests.map((r) => r.headers['idempotency-key'])).toEqual([
      first.idempotencyKey,
      first.idempotencyKey,
      first.idempotencyKey,
    ]);
    expect(server.requests[0]?.headers['content-type']).toBe('application/json');
    expect(server.requests[0]?.body).toBe('{"amount":500}');

    const again = await client
      .request({ method: 'POST', path: '/refunds', body: { amount: 500 } }, { idempotencyKey: first.idempotencyKey as string })
      .withResponse();
    expect(again.replayed).toBe(true);
    expect(again.data).toEqual(first.data);
  });

  it('an error carries the POST key, with the class of its status; retries spent end in the last failure', async () => {
    server = await startServer(({ res, server: s }) => s.json(res, 422, { message: 'Montant invalide.', errors: { amount: ['too big'] } }));
    const error = await caught(() =>
      clientFor(server as TestServer).request({ method: 'POST', path: '/refunds', body: { amount: 1 } }, { idempotencyKey: 'refund-1042' }),
    );
    expect(error).toBeInstanceOf(UnprocessableEntityError);
    expect((error as UnprocessableEntityError).idempotencyKey).toBe('refund-1042');
    expect((error as UnprocessableEntityError).errors).toEqual({ amount: ['too big'] });
    expect(server.requests).toHaveLength(1);

    await server.close();
    server = await refundsServer([500, 500, 500]);
    const spent = await caught(() => clientFor(server as TestServer).request({ method: 'POST', path: '/refunds', body: { amount: 1 } }));
    expect(spent).toBeInstanceOf(InternalServerError);
    expect((spent as PaymentsError).idempotencyKey).toMatch(/^[0-9a-f-]{36}$/);
    expect(server.requests).toHaveLength(3);
  });

  it('a connection refused ends in APIConnectionError carrying the key', async () => {
    server = await startServer(() => undefined);
    const origin = server.origin;
    await server.close();
    server = undefined;
    const client = new PaymentsClient({ apiKey: KEY, baseUrl: origin, maxRetries: 1, retryBackoff: { initialMs: 1, maxMs: 1 } });
    const error = await caught(() => client.request({ method: 'POST', path: '/refunds', body: {} }, { idempotencyKey: 'k-1' }));
    expect(error).toBeInstanceOf(APIConnectionError);
    expect((error as APIConnectionError).idempotencyKey).toBe('k-1');
  });

  it("a query's customer details stay out of errors and logs (connection refused, a 500, the debug lines)", async () => {
    const query = { phone: '221771234567', email: 'ami@example.sn' };
    const lines: string[] = [];
    const log = (message: string) => lines.push(message);
    const logger = { debug: log, info: log, warn: log, error: log };
    server = await startServer(({ res, server: s }) => s.json(res, 500, { message: 'down' }));
    const answering = clientFor(server, { maxRetries: 1, logger, logLevel: 'debug' });
    const failed = await caught(() => answering.request({ method: 'GET', path: '/customers', query }));
    expect(failed).toBeInstanceOf(InternalServerError);
    // The query was sent, as asked.
    expect(server.requests[0]?.url).toContain('phone=221771234567');
    const origin = server.origin;
    await server.close();
    server = undefined;
    const refused = await caught(() =>
      new PaymentsClient({ apiKey: KEY, baseUrl: origin, maxRetries: 0, logger, logLevel: 'debug' }).request({
        method: 'GET',
        path: '/customers',
        query,
      }),
    );
    expect(refused).toBeInstanceOf(APIConnectionError);
    expect((refused as Error).message).toContain('/api/v1/customers');
    expect(lines.length).toBeGreaterThan(3);
    const said = [String(failed), String(refused), JSON.stringify(failed), JSON.stringify(refused), ...lines].join('\n');
    expect(said).not.toContain('221771234567');
    expect(said).not.toContain('ami%40example.sn');
    expect(said).not.toContain('ami@example.sn');
  });

  it('PATCH is sent once (not idempotent by nature); PUT and DELETE are retried', async () => {
    server = await refundsServer([503]);
    const patched = await caught(() =>
      clientFor(server as TestServer).request({ method: 'PATCH', path: '/refunds/r-1', body: { note: 'x' } }),
    );
    expect(patched).toBeInstanceOf(InternalServerError);
    expect(server.requests).toHaveLength(1);
    expect(server.requests[0]?.headers['idempotency-key']).toBeUndefined();

    await server.close();
    server = await refundsServer([503, 503]);
    const deleted = await caught(() => clientFor(server as TestServer).request({ method: 'DELETE', path: '/refunds/r-1' }));
    expect(deleted).toMatchObject({ status: 404 });
    expect(server.requests.map((r) => r.method)).toEqual(['DELETE', 'DELETE', 'DELETE']);
  });

  it('a schema (zod/mini or classic zod) parses the answer; a mismatch is a ResponseValidationError naming the field', async () => {
    server = await refundsServer();
    const client = clientFor(server);
    const classic = zc.object({ data: zc.object({ uuid: zc.string(), amount: zc.number() }) });
    const created = await client.request({ method: 'POST', path: '/refunds', body: { amount: 700 }, schema: classic });
    expect(created.data.amount).toBe(700);
    const wrong = z.object({ data: z.array(z.object({ amount: z.string() })) });
    const error = await caught(() => client.request({ method: 'GET', path: '/refunds', schema: wrong }));
    expect(error).toBeInstanceOf(ResponseValidationError);
    // The wording depends on whether classic zod's English messages are loaded (this file loads them).
    expect((error as ResponseValidationError).issues).toEqual([{ path: ['data', 0, 'amount'], message: expect.stringMatching(/string/) }]);
  });

  it('the key echoed by the answer is redacted, also JSON-escaped, also as a property name', async () => {
    const escaped = KEY.replaceAll('/', '\\/');
    server = await startServer(({ res }) => {
      res.writeHead(400, { 'Content-Type': 'application/json' });
      res.end(`{"message":"Bad key ${escaped}","errors":{"${escaped}":["unknown"]}}`);
    });
    const error = await caught(() => clientFor(server as TestServer).request({ method: 'GET', path: '/refunds' }));
    expect((error as Error).message).toBe('Bad key [redacted]');
    expect((error as UnprocessableEntityError).errors).toEqual({ '[redacted]': ['unknown'] });
    expect(everythingIn(error)).not.toContain(KEY);
  });

  it('per-call options apply: timeout, maxRetries, headers, signal', async () => {
    server = await startServer(({ res, seen, server: s }) => {
      if (seen.url.includes('slow')) return void setTimeout(() => s.json(res, 200, { data: 1 }), 500);
      s.json(res, 503, { message: 'busy' });
    });
    const client = clientFor(server);
    const slow = await caught(() => client.request({ method: 'GET', path: '/slow' }, { timeout: 50, maxRetries: 0 }));
    expect(slow).toMatchObject({ name: 'APITimeoutError' });
    await caught(() => client.request({ method: 'GET', path: '/busy' }, { maxRetries: 4, headers: { 'X-Trace': 't-1' } }));
    const busy = server.requests.filter((r) => r.url === '/api/v1/busy');
    expect(busy).toHaveLength(5);
    expect(busy[0]?.headers['x-trace']).toBe('t-1');
    const aborted = await caught(() => client.request({ method: 'GET', path: '/slow' }, { signal: AbortSignal.abort() }));
    expect(aborted).toMatchObject({ name: 'APIUserAbortError' });
  });

  it('bad input is one InvalidParamsError naming every bad field, and nothing is sent', async () => {
    server = await refundsServer();
    const client = clientFor(server);
    const cases: [unknown, RegExp][] = [
      [
        { method: 'FETCH', path: 'refunds', query: { page: { n: 1 } } },
        /query\.page: must be a string.*method: must be one of GET, POST, PUT, PATCH, DELETE, got FETCH; path: must be a path under \/api\/v1/s,
      ],
      [{ method: 'GET', path: '/api/v1/refunds' }, /path: is already under \/api\/v1: pass "\/refunds"/],
      [{ method: 'GET', path: '/refunds/../../admin' }, /path: must not hold "\." or "\.\." segments/],
      [{ method: 'GET', path: '/refunds/%2E%2e/admin' }, /path: must not hold "\." or "\.\." segments/],
      [{ method: 'GET', path: '/refunds?status=done' }, /path: must not hold a query or a fragment/],
      [{ method: 'GET', path: '/refunds/a b' }, /path: must hold URL path characters only/],
      [{ method: 'GET', path: `/${'a'.repeat(2048)}` }, /path: must be at most 2048 characters, got 2049/],
      [{ method: 'GET', path: '/refunds', body: { a: 1 } }, /body: must be left out on a GET/],
      [{ method: 'POST', path: '/refunds', body: { big: 10n } }, /cannot be sent as JSON/],
      [{ method: 'GET', path: '/refunds', schema: { parse: 1 } }, /schema: must be a zod schema/],
      ['GET /refunds', /^Invalid request: must be an object, got string\. Nothing was sent\.$/],
    ];
    for (const [request, message] of cases) {
      const error = await caught(() => client.request(request as never));
      expect(error, String(message)).toBeInstanceOf(InvalidParamsError);
      expect((error as Error).message).toMatch(message);
    }
    const badKey = await caught(() => client.request({ method: 'POST', path: '/refunds', body: {} }, { idempotencyKey: ' spaced ' }));
    expect((badKey as Error).message).toMatch(/options\.idempotencyKey/);
    expect(server.requests).toHaveLength(0);
  });
});

describe('client.withOptions: other defaults, the same settings and connection pool', () => {
  it('changes timeout, retries and headers for the derived client only; key, base URL and mode stay', async () => {
    server = await refundsServer([503, 503, 503, 503]);
    const client = clientFor(server, { maxRetries: 0, headers: { 'X-Shop': 'dakar-1', 'X-Env': 'prod' } });
    const patient = client.withOptions({ maxRetries: 5, timeout: 60_000, headers: { 'X-Env': 'batch' } });
    expect(patient).toBeInstanceOf(PaymentsClient);
    expect(patient.toJSON()).toEqual({ ...client.toJSON(), maxRetries: 5, timeout: 60_000 });
    expect(client.maxRetries).toBe(0);

    await caught(() => client.payments.retrieve('p-1'));
    expect(server.requests).toHaveLength(1);
    const found = await patient.request({ method: 'GET', path: '/refunds' });
    expect(found).toMatchObject({ data: [] });
    // 1 refused by the original client, then 3 × 503 and the answer through the patient one.
    expect(server.requests).toHaveLength(5);
    const last = server.requests[4];
    expect(last?.headers.authorization).toBe(`Bearer ${KEY}`);
    expect(last?.headers['x-shop']).toBe('dakar-1');
    expect(last?.headers['x-env']).toBe('batch');
    expect(server.requests[0]?.headers['x-env']).toBe('prod');
  });

  it('shares the connection pool: calls through the derived client reuse the connections the first one opened', async () => {
    server = await refundsServer();
    const client = clientFor(server);
    // undici opens its pool's connections on the first calls: counted once they are open.
    for (let i = 0; i < 3; i++) await client.request({ method: 'GET', path: '/refunds' });
    const opened = server.connections();
    const derived = client.withOptions({ timeout: 5_000 });
    for (let i = 0; i < 3; i++) {
      await derived.request({ method: 'GET', path: '/refunds' });
      await client.request({ method: 'GET', path: '/refunds' });
    }
    expect(server.requests).toHaveLength(9);
    expect(server.connections()).toBe(opened);
  });

  it("sends through the client's own fetch", async () => {
    server = await refundsServer();
    const own = vi.fn((input: RequestInfo | URL, init?: RequestInit) => fetch(input, init));
    const derived = clientFor(server, { fetch: own }).withOptions({ maxRetries: 1 });
    await derived.request({ method: 'GET', path: '/refunds' });
    expect(own).toHaveBeenCalledTimes(1);
  });

  it('refuses what it cannot change, naming it, and bad values as the constructor does', () => {
    const client = new PaymentsClient({ apiKey: KEY, baseUrl: 'http://127.0.0.1:1' });
    expect(() => client.withOptions({ apiKey: 'sk_live_other', baseUrl: 'http://127.0.0.1:2' } as never)).toThrow(
      /^Invalid withOptions defaults: baseUrl: is not one of the defaults withOptions changes: for another base URL, webhook secret or fetch, construct a new PaymentsClient\.$/,
    );
    expect(() => client.withOptions({ timeout: 0 })).toThrow(/timeout: must be ≥ 1, got 0/);
    expect(() => client.withOptions({ headers: 'X-Token: x' as never })).toThrow(
      /headers: must be an object of header names to string values, got a string/,
    );
    expect(() => client.withOptions({ headers: { 'X-Bad': 'a\nb' } })).toThrow(/invalid HTTP header name or value for "X-Bad"/);
    expect(() => client.withOptions(null as never)).toThrow(PaymentsError);
    expect(() => client.withOptions(null as never)).toThrow(/withOptions defaults: must be an object, got null/);
    // Every refused default and bad value in one error.
    expect(() => client.withOptions({ fetch, webhookSecret: 'whsec_x', maxRetries: -1 } as never)).toThrow(
      /maxRetries: must be ≥ 0, got -1; fetch: is not one of the defaults .*; webhookSecret: is not one of the defaults/,
    );
    expect(everythingIn(client.withOptions({ maxRetries: 1 }))).not.toContain(KEY);
  });
});
