/**
 * What every request carries (README "How requests are sent"; docs/service.md "Endpoints"): bearer auth, Accept,
 * JSON bodies, the User-Agent, default and per-request headers, and the custom `fetch` option.
 */
import { HttpResponse, http } from 'msw';
import { PaymentsError, VERSION } from 'payments-sdk';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { runtimeName } from '../../src/internal/runtime.js';
import { makeClient } from '../helpers/client.js';
import { API_KEY, API_URL, chargeParams, checkoutSession, payment, sessionParams } from '../helpers/fixtures.js';
import { useMswServer } from '../helpers/msw.js';

const server = useMswServer();

interface Seen {
  method: string;
  url: string;
  headers: Headers;
  body: string;
}

function record(method: 'get' | 'post', path: string, answer: () => Response): Seen[] {
  const seen: Seen[] = [];
  server.use(
    http[method](`${API_URL}${path}`, async ({ request }) => {
      seen.push({ method: request.method, url: request.url, headers: request.headers, body: await request.text() });
      return answer();
    }),
  );
  return seen;
}

describe('every request', () => {
  it('carries Authorization: Bearer <key>, Accept: application/json and the User-Agent', async () => {
    const seen = record('get', '/payments/:uuid', () => HttpResponse.json({ data: payment() }));
    await makeClient().payments.retrieve('p-1');
    expect(seen).toHaveLength(1);
    const headers = seen[0]!.headers;
    expect(headers.get('authorization')).toBe(`Bearer ${API_KEY}`);
    expect(headers.get('accept')).toBe('application/json');
    expect(headers.get('user-agent')).toBe(`payments-sdk/${VERSION} (node/${process.versions.node})`);
  });

  it('sends a GET without a body, a Content-Type or an Idempotency-Key', async () => {
    const seen = record('get', '/payments/:uuid', () => HttpResponse.json({ data: payment() }));
    await makeClient().payments.retrieve('p-1');
    expect(seen[0]!.method).toBe('GET');
    expect(seen[0]!.body).toBe('');
    expect(seen[0]!.headers.get('content-type')).toBeNull();
    expect(seen[0]!.headers.get('idempotency-key')).toBeNull();
  });

  it('sends a creation as a JSON POST with Content-Type: application/json', async () => {
    const seen = record('post', '/checkout-sessions', () => HttpResponse.json({ data: checkoutSession() }, { status: 201 }));
    await makeClient().checkoutSessions.create({ ...sessionParams, metadata: { order_id: '1042', note: 'é' } });
    expect(seen[0]!.method).toBe('POST');
    expect(seen[0]!.headers.get('content-type')).toMatch(/^application\/json\b/);
    expect(JSON.parse(seen[0]!.body)).toEqual({ ...sessionParams, metadata: { order_id: '1042', note: 'é' } });
    expect(seen[0]!.headers.get('authorization')).toBe(`Bearer ${API_KEY}`);
    expect(seen[0]!.headers.get('accept')).toBe('application/json');
  });

  it('URL-encodes path parameters', async () => {
    const seen = record('get', '/checkout-sessions/:reference', () => HttpResponse.json({ data: checkoutSession() }));
    await makeClient().checkoutSessions.retrieve('a/b?c#d');
    expect(seen[0]!.url).toBe(`${API_URL}/checkout-sessions/a%2Fb%3Fc%23d`);
  });
});

describe('default and per-request headers', () => {
  it('adds the client `headers` to every request', async () => {
    const seen = record('post', '/payments', () => HttpResponse.json({ data: payment() }, { status: 201 }));
    const gets = record('get', '/payments/:uuid', () => HttpResponse.json({ data: payment() }));
    const client = makeClient({ headers: { 'X-Tenant': 'shop-42', 'X-Trace': 'default' } });
    await client.payments.create(chargeParams);
    await client.payments.retrieve('p-1');
    expect(seen[0]!.headers.get('x-tenant')).toBe('shop-42');
    expect(gets[0]!.headers.get('x-tenant')).toBe('shop-42');
  });

  it('adds per-request `headers`, which win over the defaults for the same name and stay on that call', async () => {
    const seen = record('get', '/payments/:uuid', () => HttpResponse.json({ data: payment() }));
    const client = makeClient({ headers: { 'X-Tenant': 'shop-42', 'X-Trace': 'default' } });
    await client.payments.retrieve('p-1', { headers: { 'x-trace': 'call-1', 'X-Extra': 'yes' } });
    await client.payments.retrieve('p-2');
    expect(seen[0]!.headers.get('x-trace')).toBe('call-1');
    expect(seen[0]!.headers.get('x-extra')).toBe('yes');
    expect(seen[0]!.headers.get('x-tenant')).toBe('shop-42');
    expect(seen[1]!.headers.get('x-trace')).toBe('default');
    expect(seen[1]!.headers.get('x-extra')).toBeNull();
  });

  it("a call's headers never reach the next call (msw patches Headers to keep the list it is built from)", async () => {
    record('post', '/payments', () => HttpResponse.json({ data: payment() }, { status: 201 }));
    const seen = record('get', '/payments/:uuid', () => HttpResponse.json({ data: payment() }));
    const client = makeClient({ headers: { 'X-Tenant': 'shop-42' } });
    await client.payments.create(chargeParams, { idempotencyKey: 'order-1' });
    await client.payments.retrieve('p-1', { headers: { 'X-Extra': 'yes' } });
    await client.payments.retrieve('p-2');
    for (const { headers } of seen) {
      expect(headers.get('idempotency-key')).toBeNull();
      expect(headers.get('content-type')).toBeNull();
      expect(headers.get('x-tenant')).toBe('shop-42');
    }
    expect(seen.map(({ headers }) => headers.get('x-extra'))).toEqual(['yes', null]);
  });

  it('never lets a header option replace the Authorization built from the key', async () => {
    const seen = record('get', '/payments/:uuid', () => HttpResponse.json({ data: payment() }));
    const client = makeClient({ headers: { Authorization: 'Bearer other' } });
    await client.payments.retrieve('p-1', { headers: { authorization: 'Bearer other' } });
    expect(seen[0]!.headers.get('authorization')).toBe(`Bearer ${API_KEY}`);
  });
});

describe('User-Agent runtime name', () => {
  afterEach(() => vi.unstubAllGlobals());

  it('names Node with its version', () => {
    expect(runtimeName()).toBe(`node/${process.versions.node}`);
  });

  it('names Bun, Deno, Vercel Edge and Cloudflare Workers', () => {
    vi.stubGlobal('Bun', { version: '1.2.3' });
    expect(runtimeName()).toBe('bun/1.2.3');
    vi.unstubAllGlobals();
    vi.stubGlobal('Deno', { version: { deno: '2.1.0' } });
    expect(runtimeName()).toBe('deno/2.1.0');
    vi.unstubAllGlobals();
    vi.stubGlobal('EdgeRuntime', 'edge-runtime');
    expect(runtimeName()).toBe('vercel-edge');
    vi.unstubAllGlobals();
    vi.stubGlobal('navigator', { userAgent: 'Cloudflare-Workers' });
    expect(runtimeName()).toBe('cloudflare-workers');
  });
});

describe('custom fetch', () => {
  it('sends every request through the `fetch` option, with the same headers and body', async () => {
    // No msw handler: had the global fetch been used, msw would fail the request as unhandled.
    const calls: Request[] = [];
    const customFetch = vi.fn(async (input: RequestInfo | URL, init?: RequestInit) => {
      calls.push(new Request(input, init));
      return new Response(JSON.stringify({ data: payment() }), { status: 201, headers: { 'content-type': 'application/json' } });
    });
    const client = makeClient({ fetch: customFetch as typeof fetch });
    const created = await client.payments.create(chargeParams, { idempotencyKey: 'key-custom-fetch' });
    expect(created.uuid).toBe(payment().uuid);
    expect(customFetch).toHaveBeenCalledTimes(1);
    const request = calls[0]!;
    expect(request.method).toBe('POST');
    expect(request.url).toBe(`${API_URL}/payments`);
    expect(request.headers.get('authorization')).toBe(`Bearer ${API_KEY}`);
    expect(request.headers.get('idempotency-key')).toBe('key-custom-fetch');
    expect(await request.json()).toEqual(chargeParams);
  });

  it('retries through the custom fetch too', async () => {
    let n = 0;
    const customFetch = vi.fn(async () => {
      n += 1;
      return n === 1 ? new Response('busy', { status: 503 }) : Response.json({ data: payment() });
    });
    const client = makeClient({ fetch: customFetch as typeof fetch });
    await client.payments.retrieve('p-1');
    expect(customFetch).toHaveBeenCalledTimes(2);
  });
});

describe('bad headers', () => {
  it('a default header that is not valid HTTP is refused at construction, naming it but not its value', () => {
    let error: unknown;
    try {
      makeClient({ headers: { 'X-Token': 'secret-value\r\nInjected: yes' } });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(PaymentsError);
    expect((error as Error).message).toMatch(/X-Token/);
    expect((error as Error).message).not.toContain('secret-value');
    expect(() => makeClient({ headers: { 'bad name': 'x' } })).toThrowError(/bad name/);
  });

  it('headers that are not an object of names to values (null, an array, a string) are refused at construction', () => {
    for (const [headers, got] of [
      [null, 'null'],
      [[['X-Token', 'x']], 'an array'],
      ['X-Token: x', 'a string'],
    ]) {
      expect(() => makeClient({ headers: headers as unknown as Record<string, string> })).toThrowError(
        new PaymentsError(`Invalid PaymentsClient options: headers: must be an object of header names to string values, got ${got}.`),
      );
    }
  });

  it('a per-request header that is not valid HTTP is refused before sending, with the idempotencyKey on a creation', async () => {
    const seen = record('post', '/payments', () => HttpResponse.json({ data: payment() }, { status: 201 }));
    const error = await makeClient()
      .payments.create(chargeParams, { idempotencyKey: 'k-h', headers: { 'X-Trace': 'a\nb' } })
      .then(
        () => undefined,
        (e: unknown) => e,
      );
    expect(error).toBeInstanceOf(PaymentsError);
    expect((error as Error).message).toMatch(/X-Trace/);
    expect((error as PaymentsError).idempotencyKey).toBe('k-h');
    expect(seen).toHaveLength(0);
  });
});
