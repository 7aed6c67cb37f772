/**
 * The transport (ky over the platform's fetch) against real servers on 127.0.0.1: what a merchant
 * configured for fetch (the fetch option, a replaced global fetch, undici's global dispatcher: a
 * MockAgent, a ProxyAgent, an Agent with its own CA) carries the SDK's requests; answers as fetch
 * hands them back (odd statuses, encodings, UTF-8, `.withResponse()`); sockets freed on timeout and
 * abort; redirects not followed. Retries, timeouts and resets are in core-network.test.ts.
 */
import { readFileSync } from 'node:fs';
import { createServer as createHttpServer, request as httpRequest } from 'node:http';
import https from 'node:https';
import { type AddressInfo, createServer as createTcpServer, type Socket } from 'node:net';
import { brotliCompressSync, deflateRawSync, deflateSync, gzipSync } from 'node:zlib';
import { HttpResponse, http } from 'msw';
import { setupServer } from 'msw/node';
import { APIConnectionError, APIError, APITimeoutError, APIUserAbortError, type ClientOptions, PaymentsClient } from 'payments-sdk';
import { Agent, getGlobalDispatcher, MockAgent, ProxyAgent, setGlobalDispatcher } from 'undici';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { caught } from '../helpers/caught.js';
import { API_KEY, payment } from '../helpers/fixtures.js';
import { answerCreation, everythingIn, startServer, type TestServer } from './server.js';

let server: TestServer | undefined;
afterEach(async () => {
  vi.unstubAllGlobals();
  await server?.close();
  server = undefined;
});

function clientFor(s: TestServer, options: ClientOptions = {}) {
  return new PaymentsClient({ apiKey: API_KEY, baseUrl: s.origin, maxRetries: 0, ...options });
}

describe("what the merchant configured for fetch sees the SDK's requests", () => {
  it('the fetch option (a wrapper: instrumentation, a proxy) carries every call, the key sent', async () => {
    server = await startServer((x) => x.server.json(x.res, 200, { data: payment() }));
    const given = vi.fn((input: RequestInfo | URL, init?: RequestInit) => fetch(input, init));
    await clientFor(server, { fetch: given }).payments.retrieve('p-1');
    expect(given).toHaveBeenCalledTimes(1);
    expect(server.requests.map((r) => `${r.url} ${r.headers.authorization}`)).toEqual([`/api/v1/payments/p-1 Bearer ${API_KEY}`]);
  });

  it('a globalThis.fetch replaced after the client was built (msw, instrumentation) is used from the next call on', async () => {
    server = await startServer((x) => x.server.json(x.res, 200, { data: payment() }));
    const client = clientFor(server);
    await client.payments.retrieve('p-1');
    const original = globalThis.fetch;
    const replacement = vi.fn((input: RequestInfo | URL, init?: RequestInit) => original(input, init));
    vi.stubGlobal('fetch', replacement);
    await client.payments.retrieve('p-2');
    expect(replacement).toHaveBeenCalledTimes(1);
    expect(server.requests).toHaveLength(2);
  });

  it('msw started after the client was built answers its calls, the key sent, the real server untouched', async () => {
    server = await startServer((x) => x.server.json(x.res, 200, { data: payment() }));
    const client = clientFor(server);
    const seen: string[] = [];
    const msw = setupServer(
      http.get(`${server.origin}/api/v1/payments/:uuid`, ({ request }) => {
        seen.push(`${request.url} ${request.headers.get('authorization')}`);
        return HttpResponse.json({ data: payment({ uuid: 'from-msw' }) });
      }),
    );
    msw.listen({ onUnhandledFrame: 'error' });
    try {
      await expect(client.payments.retrieve('p-1')).resolves.toMatchObject({ uuid: 'from-msw' });
    } finally {
      msw.close();
    }
    expect(seen).toEqual([`${server.origin}/api/v1/payments/p-1 Bearer ${API_KEY}`]);
    expect(server.requests).toHaveLength(0);
  });

  it("undici's global dispatcher set by the program (a MockAgent) answers the call", async () => {
    server = await startServer((x) => x.server.json(x.res, 200, { data: payment() }));
    const client = clientFor(server);
    const original = getGlobalDispatcher();
    const mock = new MockAgent();
    mock.disableNetConnect();
    mock
      .get(server.origin)
      .intercept({ path: '/api/v1/payments/p-1' })
      .reply(200, { data: payment({ uuid: 'from-the-mock-agent' }) });
    setGlobalDispatcher(mock);
    try {
      await expect(client.payments.retrieve('p-1')).resolves.toMatchObject({ uuid: 'from-the-mock-agent' });
      expect(server.requests).toHaveLength(0);
    } finally {
      setGlobalDispatcher(original);
      await mock.close();
    }
  });

  it("a ProxyAgent set as undici's global dispatcher carries the call through the proxy", async () => {
    server = await startServer((x) => x.server.json(x.res, 200, { data: payment() }));
    // A forward proxy on 127.0.0.1: undici sends it absolute-form requests for http:// targets.
    const proxied: string[] = [];
    const proxy = createHttpServer((req, res) => {
      proxied.push(`${req.method} ${req.url}`);
      const upstream = httpRequest(req.url ?? '', { method: req.method, headers: req.headers }, (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      });
      upstream.on('error', () => res.destroy());
      req.pipe(upstream);
    });
    await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
    const original = getGlobalDispatcher();
    const agent = new ProxyAgent(`http://127.0.0.1:${(proxy.address() as AddressInfo).port}`);
    setGlobalDispatcher(agent);
    try {
      await expect(clientFor(server).payments.retrieve('p-1')).resolves.toEqual(payment());
      expect(proxied).toEqual([`GET ${server.origin}/api/v1/payments/p-1`]);
      expect(server.requests[0]?.headers.authorization).toBe(`Bearer ${API_KEY}`);
    } finally {
      setGlobalDispatcher(original);
      await agent.close();
      proxy.closeAllConnections();
      await new Promise<void>((resolve) => proxy.close(() => resolve()));
    }
  });
});

/** A TCP server on 127.0.0.1 that answers every request with these exact bytes, then closes. */
async function startRawServer(answer: string) {
  const sockets = new Set<Socket>();
  let requests = 0;
  const tcp = createTcpServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => undefined);
    let head = '';
    socket.on('data', (chunk) => {
      head += chunk.toString('latin1');
      if (!head.includes('\r\n\r\n')) return;
      head = '';
      requests += 1;
      socket.end(answer, 'latin1');
    });
  });
  await new Promise<void>((resolve) => tcp.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(tcp.address() as AddressInfo).port}`;
  const close = () =>
    new Promise<void>((resolve) => {
      for (const socket of sockets) socket.destroy();
      tcp.close(() => resolve());
    });
  return { origin, requests: () => requests, close };
}

/**
 * Starts `server` as a service that never answers (only the client can end an exchange). Returns it,
 * with a promise settled when the socket of its first request closes (in an object: an async
 * function would wait for a promise it returned bare).
 */
async function startSilentServer(): Promise<{ silent: TestServer; socketClosed: Promise<void> }> {
  let closed!: () => void;
  const socketClosed = new Promise<void>((resolve) => {
    closed = resolve;
  });
  const silent = await startServer((x) => {
    x.req.socket.on('close', closed);
  });
  server = silent;
  return { silent, socketClosed };
}

describe('answers', () => {
  it("a status above 599 (a firewall's 999) is an APIError of that status, not retried, as fetch hands it back", async () => {
    server = await startServer((x) => {
      x.res.writeHead(999, 'Request denied', { 'Content-Type': 'text/plain', 'Content-Length': 6 });
      x.res.end('denied');
    });
    const client = clientFor(server, { maxRetries: 2 });
    const error = await caught(() => client.payments.retrieve('p-1'));
    expect(error).toBeInstanceOf(APIError);
    expect((error as APIError).status).toBe(999);
    expect((error as APIError).body).toBe('denied');
    expect(server.requests).toHaveLength(1);
  });

  it('a 101 answered to a plain request fails the attempt at once, not when its timer fires', async () => {
    const raw = await startRawServer('HTTP/1.1 101 Switching Protocols\r\nConnection: Upgrade\r\nUpgrade: nonsense\r\n\r\n');
    try {
      const started = Date.now();
      const error = await caught(() =>
        new PaymentsClient({
          apiKey: API_KEY,
          baseUrl: raw.origin,
          maxRetries: 0,
          timeout: 10_000,
        }).payments.retrieve('p-1'),
      );
      expect(error).toBeInstanceOf(APIConnectionError);
      expect(error).not.toBeInstanceOf(APITimeoutError);
      expect(Date.now() - started).toBeLessThan(5_000);
    } finally {
      await raw.close();
    }
  });

  it('an answer HTTP cannot parse, echoing the key, leaves the key nowhere in the error (Node keeps the raw bytes)', async () => {
    const raw = await startRawServer(`HTTP/1.1 200 OK\r\nX-Echo: Bearer ${API_KEY}\r\nthis is not a header\r\n\r\n`);
    try {
      const error = await caught(() =>
        new PaymentsClient({ apiKey: API_KEY, baseUrl: raw.origin, maxRetries: 0 }).payments.retrieve('p-1'),
      );
      expect(error).toBeInstanceOf(APIConnectionError);
      expect(raw.requests()).toBe(1);
      expect(everythingIn(error)).not.toContain(API_KEY);
    } finally {
      await raw.close();
    }
  });

  it.each([
    ['gzip', gzipSync],
    ['deflate', deflateSync],
    // Raw deflate (no zlib header), which some servers send for "deflate": undici reads it too.
    ['deflate', deflateRawSync],
    ['br', brotliCompressSync],
    // A list is undone from the last coding to the first.
    ['gzip, br', (bytes: Buffer) => brotliCompressSync(gzipSync(bytes))],
  ] as const)('a %s body is decoded (%o)', async (encoding, compress) => {
    const expected = payment({ customer_name: 'Aïssatou Ndiaye' });
    server = await startServer((x) => {
      const bytes = compress(Buffer.from(JSON.stringify({ data: expected })));
      x.res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Encoding': encoding, 'Content-Length': bytes.length });
      x.res.end(bytes);
    });
    await expect(clientFor(server).payments.retrieve('p-1')).resolves.toEqual(expected);
  });

  it('a UTF-8 BOM before the JSON is dropped, as fetch drops it (an IIS or .NET proxy sends one)', async () => {
    const expected = payment();
    server = await startServer((x) => {
      const bytes = Buffer.from(`\uFEFF${JSON.stringify({ data: expected })}`);
      x.res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': bytes.length });
      x.res.end(bytes);
    });
    await expect(clientFor(server).payments.retrieve('p-1')).resolves.toEqual(expected);
  });

  it('UTF-8 split across chunks comes out whole', async () => {
    const expected = payment({ customer_name: 'Aïssatou Ndiaye 🇸🇳', description: 'Café Touba ×2' });
    server = await startServer(async (x) => {
      const bytes = Buffer.from(JSON.stringify({ data: expected }));
      x.res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': bytes.length });
      // One byte per write, flushed apart: every multi-byte character is cut between two chunks.
      for (const byte of bytes) {
        x.res.write(Buffer.from([byte]));
        if (byte > 0x7f) await new Promise((resolve) => setImmediate(resolve));
      }
      x.res.end();
    });
    await expect(clientFor(server).payments.retrieve('p-1')).resolves.toEqual(expected);
  });

  it('a POST body with multi-byte characters arrives whole, its Content-Length in bytes', async () => {
    server = await startServer(answerCreation);
    const params = {
      amount: 5000,
      currency: 'XOF',
      country: 'SEN',
      provider: 'orange',
      phone: '221771234567',
      description: 'Thiéboudienne 🍚',
    };
    await clientFor(server).payments.create(params);
    const seen = server.requests[0];
    expect(JSON.parse(seen?.body ?? '')).toMatchObject(params);
    expect(Number(seen?.headers['content-length'])).toBe(Buffer.byteLength(seen?.body ?? ''));
  });

  it('.withResponse() gives the status, the headers and the URL of the answer', async () => {
    server = await startServer((x) => x.server.json(x.res, 200, { data: payment() }, { 'X-Request-Id': 'req_42' }));
    const { response } = await clientFor(server).payments.retrieve('p-1').withResponse();
    expect(response).toBeInstanceOf(Response);
    expect(response.status).toBe(200);
    expect(response.ok).toBe(true);
    expect(response.headers.get('x-request-id')).toBe('req_42');
    expect(response.headers.get('content-type')).toBe('application/json');
    expect(response.url).toBe(`${server.origin}/api/v1/payments/p-1`);
  });

  it('a timed-out attempt closes its socket (nothing is left waiting on a silent service)', async () => {
    const { silent, socketClosed } = await startSilentServer();
    await expect(clientFor(silent, { timeout: 100 }).payments.retrieve('p-1')).rejects.toBeInstanceOf(APITimeoutError);
    await socketClosed;
  });

  it("the caller's abort while the service is silent ends the call and closes its socket", async () => {
    const { silent, socketClosed } = await startSilentServer();
    const controller = new AbortController();
    const call = clientFor(silent).payments.retrieve('p-1', { signal: controller.signal });
    await vi.waitFor(() => expect(silent.requests).toHaveLength(1));
    controller.abort();
    await expect(call).rejects.toBeInstanceOf(APIUserAbortError);
    await socketClosed;
  });
});

describe('redirects', () => {
  it('a 3xx is not followed: an APIError naming the status and where it pointed', async () => {
    server = await startServer((x) => {
      // Followed, the redirect would succeed: the server answers the target with a payment.
      if (x.seen.url === '/moved/p-1') return x.server.json(x.res, 200, { data: payment() });
      x.res.writeHead(301, { Location: `${x.server.origin}/moved/p-1`, 'Content-Length': 0 });
      x.res.end();
    });
    const client = clientFor(server);
    const error = await caught(() => client.payments.retrieve('p-1'));
    expect(error).toBeInstanceOf(APIError);
    expect((error as APIError).status).toBe(301);
    expect((error as APIError).headers.get('location')).toBe(`${server.origin}/moved/p-1`);
    expect((error as Error).message).toBe(
      `The payments service answered 301 with a redirect to ${server.origin}/moved/p-1, which the SDK does not follow. Check baseUrl: an http:// address in front of an HTTPS redirect, or a host that moved.`,
    );
    expect(server.requests.map((r) => r.url)).toEqual(['/api/v1/payments/p-1']);
  });
});

describe("over TLS: an https baseUrl, trusted through the merchant's global undici Agent", () => {
  const tlsFile = (name: string) => readFileSync(new URL(`../fixtures/tls/${name}`, import.meta.url));
  const cert = tlsFile('cert.pem');

  async function startTlsServer() {
    const seen: string[] = [];
    const tls = https.createServer({ key: tlsFile('key.pem'), cert }, (req, res) => {
      seen.push(`${req.method} ${req.url} ${req.headers.authorization}`);
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ data: payment() }));
    });
    await new Promise<void>((resolve) => tls.listen(0, '127.0.0.1', resolve));
    const origin = `https://127.0.0.1:${(tls.address() as AddressInfo).port}`;
    const close = () =>
      new Promise<void>((resolve) => {
        tls.closeAllConnections();
        tls.close(() => resolve());
      });
    return { origin, seen, close };
  }

  it('a certificate the process does not trust is a connection error naming why', async () => {
    const tls = await startTlsServer();
    try {
      const error = await caught(() =>
        new PaymentsClient({ apiKey: API_KEY, baseUrl: tls.origin, maxRetries: 0 }).payments.retrieve('p-1'),
      );
      expect(error).toBeInstanceOf(APIConnectionError);
      expect((error as Error).message).toMatch(/SELF_SIGNED/);
      expect(((error as Error).cause as { cause?: { code?: string } }).cause?.code).toBe('DEPTH_ZERO_SELF_SIGNED_CERT');
      expect(tls.seen).toEqual([]);
    } finally {
      await tls.close();
    }
  });

  it('with an Agent of options of its own (its CA, a connection limit) set as global dispatcher, the call goes through it', async () => {
    const tls = await startTlsServer();
    const original = getGlobalDispatcher();
    const agent = new Agent({ connect: { ca: cert }, connections: 1 });
    const dispatched = vi.spyOn(agent, 'dispatch');
    setGlobalDispatcher(agent);
    try {
      const client = new PaymentsClient({ apiKey: API_KEY, baseUrl: tls.origin, maxRetries: 0 });
      await expect(client.payments.retrieve('p-1')).resolves.toEqual(payment());
      expect(tls.seen).toEqual([`GET /api/v1/payments/p-1 Bearer ${API_KEY}`]);
      expect(dispatched).toHaveBeenCalledTimes(1);
    } finally {
      setGlobalDispatcher(original);
      await agent.close();
      await tls.close();
    }
  });
});
