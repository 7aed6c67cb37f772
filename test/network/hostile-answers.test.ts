/**
 * Hostile answers from real servers on 127.0.0.1: an endless body, decompression bombs, the key
 * echoed JSON-escaped, the key in a parser error's raw bytes or in a custom fetch's message, opaque
 * schemes in links.next, and Retry-After values a lenient date parser misreads.
 */
import { type AddressInfo, createServer as createTcpServer, type Socket } from 'node:net';
import { brotliCompressSync, gzipSync } from 'node:zlib';
import {
  APIConnectionError,
  type ClientOptions,
  PaymentsClient,
  PaymentsError,
  RateLimitError,
  ResponseValidationError,
  UnprocessableEntityError,
} from 'payments-sdk';
import { afterEach, describe, expect, it } from 'vitest';
import { caught } from '../helpers/caught.js';
import { envelope, payment } from '../helpers/fixtures.js';
import { everythingIn, startServer, type TestServer } from './server.js';

/** A key with a `/`, which PHP's json_encode writes as `\/`. */
const KEY = 'sk_test_51Hostile/EchoedKey';
const charge = { amount: 5000, currency: 'XOF', country: 'SEN', provider: 'orange', phone: '221771234567' };

let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

function clientFor(s: { origin: string }, options: ClientOptions = {}) {
  return new PaymentsClient({ apiKey: KEY, baseUrl: s.origin, maxRetries: 0, ...options });
}

describe('maxResponseBytes: the answer is read up to a cap, counted in decoded bytes', () => {
  it('an endless chunked body is cut at the default cap (10 MiB): a PaymentsError naming it, the socket closed', async () => {
    let closed = false;
    server = await startServer((x) => {
      x.res.writeHead(200, { 'Content-Type': 'application/json' });
      const chunk = Buffer.alloc(64 * 1024, 0x20);
      const pump = () => {
        while (!x.res.destroyed && x.res.write(chunk));
        if (!x.res.destroyed) x.res.once('drain', pump);
      };
      x.res.on('close', () => {
        closed = true;
      });
      pump();
    });
    const error = await caught(() => clientFor(server as TestServer).payments.retrieve('p-1'));
    expect(error).toBeInstanceOf(PaymentsError);
    expect((error as Error).message).toContain('larger than maxResponseBytes (10485760 bytes)');
    await expect.poll(() => closed).toBe(true);
  });

  it('a Content-Length above the cap is refused before the body is read', async () => {
    server = await startServer((x) => x.server.json(x.res, 200, { data: payment({ description: 'x'.repeat(4_000) }) }));
    const error = await caught(() => clientFor(server as TestServer, { maxResponseBytes: 2_048 }).payments.retrieve('p-1'));
    expect(error).toBeInstanceOf(PaymentsError);
    expect((error as Error).message).toContain('maxResponseBytes (2048 bytes)');
  });

  it.each([
    ['gzip', gzipSync],
    ['br', brotliCompressSync],
  ] as const)('a %s bomb (a few KB inflating to 64 MiB) is cut once 1 MiB is decoded', async (encoding, compress) => {
    const bomb = compress(Buffer.alloc(64 * 1024 * 1024, 0x20));
    expect(bomb.length).toBeLessThan(100_000);
    server = await startServer((x) => {
      x.res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Encoding': encoding, 'Content-Length': bomb.length });
      x.res.end(bomb);
    });
    const error = await caught(() => clientFor(server as TestServer, { maxResponseBytes: 1024 * 1024 }).payments.retrieve('p-1'));
    expect(error).toBeInstanceOf(PaymentsError);
    expect((error as Error).message).toContain('maxResponseBytes (1048576 bytes)');
  });

  it('is checked at construction: a bad value is a PaymentsError naming it', () => {
    expect(() => new PaymentsClient({ apiKey: KEY, baseUrl: 'http://127.0.0.1:1', maxResponseBytes: -1 })).toThrow(
      /maxResponseBytes: must be ≥ 1024, got -1/,
    );
  });
});

describe('the key echoed JSON-escaped is redacted after JSON.parse', () => {
  // PHP's json_encode writes `/` as `\/`; any encoder may write a letter as `\uXXXX`.
  const escapedForms = [KEY.replaceAll('/', '\\/'), `\\u0073${KEY.slice(1).replaceAll('/', '\\u002f')}`];

  it.each(escapedForms)('a 422 echoing %s: not in message, body, errors, failureReason nor the warn log', async (echoed) => {
    server = await startServer((x) => {
      const text = `{"message":"Cl\\u00e9 ${echoed} refus\\u00e9e","errors":{"phone":["${echoed}"]},"failure_reason":"${echoed}"}`;
      x.res.writeHead(422, { 'Content-Type': 'application/json' });
      x.res.end(text);
    });
    const lines: string[] = [];
    const log = (message: string) => lines.push(message);
    const client = clientFor(server, { logger: { debug: log, info: log, warn: log, error: log }, logLevel: 'warn' });
    const error = await caught(() => client.payments.create(charge));
    expect(error).toBeInstanceOf(UnprocessableEntityError);
    const unprocessable = error as UnprocessableEntityError;
    expect(unprocessable.message).toBe('Clé [redacted] refusée');
    expect(unprocessable.failureReason).toBe('[redacted]');
    expect(unprocessable.errors).toEqual({ phone: ['[redacted]'] });
    expect(everythingIn(error)).not.toContain(KEY);
    expect(lines).toHaveLength(1);
    expect(lines.join('\n')).not.toContain(KEY);
  });

  it.each(escapedForms)('a 422 whose property NAMES spell %s: not in body, errors, nor anything the error holds', async (echoed) => {
    // A validation answer that names the offending input by its value: the key becomes a field name,
    // in `errors` and in the body's own members.
    server = await startServer((x) => {
      const text = `{"message":"Invalid.","errors":{"${echoed}":["is not a valid key"],"phone":["is required"]},"${echoed}":true,"last":1}`;
      x.res.writeHead(422, { 'Content-Type': 'application/json' });
      x.res.end(text);
    });
    const error = await caught(() => clientFor(server as TestServer).payments.create(charge));
    expect(error).toBeInstanceOf(UnprocessableEntityError);
    const unprocessable = error as UnprocessableEntityError;
    expect(unprocessable.errors).toEqual({ '[redacted]': ['is not a valid key'], phone: ['is required'] });
    // Members keep their order: the renamed one stays where it was.
    expect(Object.keys(unprocessable.body as object)).toEqual(['message', 'errors', '[redacted]', 'last']);
    expect(Object.keys(unprocessable.errors ?? {})).toEqual(['[redacted]', 'phone']);
    expect(everythingIn(error)).not.toContain(KEY);
    expect(JSON.stringify(unprocessable.body)).not.toContain('Hostile');
  });

  it('a 2xx of the wrong shape echoing it: not in ResponseValidationError.body', async () => {
    server = await startServer((x) => {
      x.res.writeHead(200, { 'Content-Type': 'application/json' });
      x.res.end(`{"data":{"uuid":42,"note":"${escapedForms[0]}"}}`);
    });
    const error = await caught(() => clientFor(server as TestServer).payments.retrieve('p-1'));
    expect(error).toBeInstanceOf(ResponseValidationError);
    expect((error as ResponseValidationError).body).toMatchObject({ data: { note: '[redacted]' } });
    expect(everythingIn(error)).not.toContain(KEY);
  });
});

describe('the key in what a connection error keeps', () => {
  it('an answer undici cannot parse, echoing the key: not in the error nor its causes (HTTPParserError keeps the raw bytes in data)', async () => {
    const sockets = new Set<Socket>();
    const tcp = createTcpServer((socket) => {
      sockets.add(socket);
      socket.on('error', () => undefined);
      // A header line without a colon: undici's parser fails there and keeps the rest of the bytes.
      socket.once('data', () => socket.end(`HTTP/1.1 200 OK\r\nX Bearer ${KEY}\r\n\r\n`, 'latin1'));
    });
    await new Promise<void>((resolve) => tcp.listen(0, '127.0.0.1', resolve));
    try {
      const error = await caught(() =>
        clientFor({ origin: `http://127.0.0.1:${(tcp.address() as AddressInfo).port}` }).payments.retrieve('p-1'),
      );
      expect(error).toBeInstanceOf(APIConnectionError);
      // Still diagnosable: the parser error's name and message are kept.
      expect(((error as Error).cause as { cause?: Error }).cause).toMatchObject({
        name: 'HTTPParserError',
        message: expect.stringContaining('Invalid header token'),
      });
      expect(everythingIn(error)).not.toContain(KEY);
    } finally {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => tcp.close(() => resolve()));
    }
  });

  it('a custom fetch whose error quotes the request headers: the key is in neither the message nor the causes', async () => {
    server = await startServer((x) => x.server.json(x.res, 200, { data: payment() }));
    const quoting: typeof fetch = async (input) => {
      const headers = JSON.stringify(Object.fromEntries((input as Request).headers));
      throw new TypeError(`proxy refused the request with headers ${headers}`, {
        cause: Object.assign(new Error(`upstream saw ${headers}`), { request: { headers } }),
      });
    };
    const error = await caught(() => clientFor(server as TestServer, { fetch: quoting }).payments.retrieve('p-1'));
    expect(error).toBeInstanceOf(APIConnectionError);
    expect((error as Error).message).toContain('Bearer [redacted]');
    expect(everythingIn(error)).not.toContain(KEY);
  });
});

describe('links.next with an opaque scheme is refused, not followed', () => {
  it.each(['javascript:../../../../admin/export', 'mailto:../../x', 'data:,../../admin/export'])(
    '%s: a PaymentsError, the walk stops, nothing sent outside the base path',
    async (next) => {
      server = await startServer((x) => {
        const body = envelope([payment()], { page: 1, lastPage: 2, origin: x.server.origin, path: '/pay/api/v1/payments' });
        x.server.json(x.res, 200, { ...body, links: { ...body.links, next } });
      });
      const client = new PaymentsClient({ apiKey: KEY, baseUrl: `${server.origin}/pay`, maxRetries: 0 });
      const seen: string[] = [];
      const error = await caught(async () => {
        for await (const item of client.payments.list()) seen.push(item.uuid);
      });
      expect(error).toBeInstanceOf(PaymentsError);
      expect((error as Error).message).toContain('neither an http(s) URL nor a path');
      expect(seen).toEqual([payment().uuid]);
      expect(server.requests.map((r) => r.url)).toEqual(['/pay/api/v1/payments']);
    },
  );
});

describe('Retry-After: only delta-seconds or an HTTP-date', () => {
  it.each(['-5', '-1', '1 2', '1.5'])('%j is ignored: no retryAfter on the RateLimitError', async (value) => {
    server = await startServer((x) => x.server.json(x.res, 429, { message: 'Too Many Attempts.' }, { 'Retry-After': value }));
    const error = await caught(() => clientFor(server as TestServer).payments.retrieve('p-1'));
    expect(error).toBeInstanceOf(RateLimitError);
    expect((error as RateLimitError).retryAfter).toBeUndefined();
  });

  it('delta-seconds and an HTTP-date are read', async () => {
    const inTwoMinutes = new Date(Date.now() + 120_000).toUTCString();
    const values = ['7', inTwoMinutes];
    server = await startServer((x) =>
      x.server.json(x.res, 429, { message: 'Too Many Attempts.' }, { 'Retry-After': values[x.seen.n - 1] as string }),
    );
    const first = (await caught(() => clientFor(server as TestServer).payments.retrieve('p-1'))) as RateLimitError;
    const second = (await caught(() => clientFor(server as TestServer).payments.retrieve('p-1'))) as RateLimitError;
    expect(first.retryAfter).toBe(7);
    expect(second.retryAfter).toBeGreaterThanOrEqual(118);
    expect(second.retryAfter).toBeLessThanOrEqual(120);
  });
});
