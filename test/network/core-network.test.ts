/**
 * The HTTP core against a real `node:http` server on 127.0.0.1: socket resets
 * before and after the server did the work, answers slower than the timeout, 503 with
 * Retry-After: 0, a body cut mid-way, connection refused, and keep-alive.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { APIConnectionError, APITimeoutError, type ClientOptions, InternalServerError, PaymentsClient } from 'payments-sdk';
import { afterEach, describe, expect, it } from 'vitest';
import { API_KEY, payment } from '../helpers/fixtures.js';
import { answerCreation, type Exchange, startServer, type TestServer } from './server.js';

const charge = { amount: 5000, currency: 'XOF', country: 'SEN', provider: 'orange', phone: '221771234567' };

let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** Idempotency-Keys of the POSTs the server received. */
const keysOf = (s: TestServer) => s.requests.filter((r) => r.method === 'POST').map((r) => r.headers['idempotency-key']);

describe('over ky and the platform fetch', () => {
  function clientFor(s: TestServer, options: ClientOptions = {}) {
    return new PaymentsClient({ apiKey: API_KEY, baseUrl: s.origin, retryBackoff: { initialMs: 1, maxMs: 4 }, ...options });
  }

  describe('socket resets on a creation', () => {
    it('reset BEFORE the server acts: the retry creates it, with the same key, once', async () => {
      server = await startServer(
        (x: Exchange) => {
          if (x.seen.n === 1) {
            x.req.socket.destroy(); // nothing created, no answer
            return;
          }
          // The retry's body has not been read (readBody: false): read it, then answer.
          const chunks: Buffer[] = [];
          x.req.on('data', (c: Buffer) => chunks.push(c));
          x.req.on('end', () => {
            x.seen.body = Buffer.concat(chunks).toString('utf8');
            answerCreation(x);
          });
        },
        { readBody: false },
      );
      const { data, idempotencyKey, replayed, response } = await clientFor(server).payments.create(charge).withResponse();
      expect(server.requests).toHaveLength(2);
      expect(keysOf(server)).toEqual([idempotencyKey, idempotencyKey]);
      expect(server.store.size).toBe(1);
      expect(response.status).toBe(201);
      expect(replayed).toBe(false);
      expect(data.uuid).toBe(server.store.get(idempotencyKey!)!.resource.uuid);
    });

    it('reset AFTER the server created the resource: the retry is replayed (200), exactly one resource exists', async () => {
      server = await startServer((x) => {
        if (x.seen.n === 1) {
          x.server.createOrReplay(x.seen); // the work is done…
          x.req.socket.resetAndDestroy(); // …and the answer is lost (TCP RST)
          return;
        }
        answerCreation(x);
      });
      const { data, idempotencyKey, replayed, response } = await clientFor(server).payments.create(charge).withResponse();
      expect(server.requests).toHaveLength(2);
      expect(keysOf(server)).toEqual([idempotencyKey, idempotencyKey]);
      expect(server.store.size).toBe(1);
      expect(response.status).toBe(200);
      expect(replayed).toBe(true);
      expect(data.uuid).toBe(server.store.get(idempotencyKey!)!.resource.uuid);
    });

    it('resets on every attempt: APIConnectionError carrying the key, which later gets the one resource back', async () => {
      let resetting = true;
      server = await startServer((x) => {
        if (!resetting) return answerCreation(x);
        x.server.createOrReplay(x.seen);
        x.req.socket.destroy();
      });
      const client = clientFor(server);
      const error = await client.payments.create(charge).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(APIConnectionError);
      expect((error as Error).cause).toBeDefined();
      const key = (error as APIConnectionError).idempotencyKey;
      expect(key).toBeTruthy();
      expect(keysOf(server)).toEqual([key, key, key]);
      expect(server.store.size).toBe(1);
      // Later (the network is back), the same key is replayed instead of charging twice.
      resetting = false;
      const again = await client.payments.create(charge, { idempotencyKey: key }).withResponse();
      expect(again.replayed).toBe(true);
      expect(again.data.uuid).toBe(server.store.get(key!)!.resource.uuid);
      expect(server.store.size).toBe(1);
    });
  });

  describe('timeouts', () => {
    // Where an attempt must succeed, the timeout (400 ms) leaves room for a loaded CI machine.
    it('a slow answer past the timeout is retried with the same key; the service replays it', async () => {
      server = await startServer((x) => {
        if (x.seen.n === 1) {
          x.server.createOrReplay(x.seen); // created, but the answer comes too late
          setTimeout(() => answerCreation(x), 5_000).unref();
          return;
        }
        answerCreation(x);
      });
      const { idempotencyKey, replayed } = await clientFor(server, { timeout: 400 }).payments.create(charge).withResponse();
      expect(server.requests).toHaveLength(2);
      expect(keysOf(server)).toEqual([idempotencyKey, idempotencyKey]);
      expect(replayed).toBe(true);
      expect(server.store.size).toBe(1);
    });

    it('answers that stay slow end in APITimeoutError after 1 + maxRetries attempts', async () => {
      server = await startServer(() => {
        // Never answers; close() destroys the socket.
      });
      const started = performance.now();
      const error = await clientFor(server, { timeout: 200, maxRetries: 1 })
        .payments.retrieve('p-1')
        .then(
          () => undefined,
          (e: unknown) => e,
        );
      expect(error).toBeInstanceOf(APITimeoutError);
      expect(server.requests).toHaveLength(2);
      // Two attempts of 200 ms each, not the 30 s default (a loose bound: this is not a speed test).
      expect(performance.now() - started).toBeLessThan(5_000);
    });

    it('a stall in the middle of the body counts against the timeout and is retried', async () => {
      server = await startServer((x) => {
        if (x.seen.n === 1) {
          x.res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': '500' });
          x.res.write('{"data":{"uuid":"'); // …then nothing more
          return;
        }
        x.server.json(x.res, 200, { data: payment() });
      });
      const found = await clientFor(server, { timeout: 400 }).payments.retrieve('p-1');
      expect(found.uuid).toBe(payment().uuid);
      expect(server.requests).toHaveLength(2);
    });
  });

  describe('retried answers', () => {
    it('503 with Retry-After: 0 is retried at once', async () => {
      server = await startServer((x) => {
        if (x.seen.n === 1) {
          x.server.json(x.res, 503, { message: 'Service Unavailable' }, { 'Retry-After': '0' });
          return;
        }
        answerCreation(x);
      });
      const { replayed, idempotencyKey } = await clientFor(server, { retryBackoff: { initialMs: 10_000 } })
        .payments.create(charge)
        .withResponse();
      expect(replayed).toBe(false);
      expect(keysOf(server)).toEqual([idempotencyKey, idempotencyKey]);
      expect(server.store.size).toBe(1);
    });

    it('an HTML 502 from a proxy, then success', async () => {
      server = await startServer((x) => {
        if (x.seen.n === 1) {
          x.res.writeHead(502, { 'Content-Type': 'text/html' });
          x.res.end('<html><body><h1>502 Bad Gateway</h1></body></html>');
          return;
        }
        x.server.json(x.res, 200, { data: payment() });
      });
      expect((await clientFor(server).payments.retrieve('p-1')).uuid).toBe(payment().uuid);
      expect(server.requests).toHaveLength(2);
    });

    it('an HTML 502 every time: InternalServerError with the page as body', async () => {
      server = await startServer((x) => {
        x.res.writeHead(502, { 'Content-Type': 'text/html' });
        x.res.end('<html>502</html>');
      });
      const error = await clientFor(server)
        .payments.retrieve('p-1')
        .then(
          () => undefined,
          (e: unknown) => e,
        );
      expect(error).toBeInstanceOf(InternalServerError);
      expect((error as InternalServerError).body).toBe('<html>502</html>');
      expect(server.requests).toHaveLength(3);
    });

    it('a body cut mid-way (Content-Length larger than what was written) is retried and replayed', async () => {
      server = await startServer((x) => {
        const outcome = x.server.createOrReplay(x.seen);
        if (x.seen.n === 1) {
          const text = JSON.stringify({ data: outcome.resource });
          x.res.writeHead(201, { 'Content-Type': 'application/json', 'Content-Length': String(Buffer.byteLength(text)) });
          x.res.write(text.slice(0, 40));
          setTimeout(() => x.req.socket.destroy(), 20).unref();
          return;
        }
        x.server.json(x.res, outcome.status, { data: outcome.resource });
      });
      const { data, replayed, idempotencyKey } = await clientFor(server).payments.create(charge).withResponse();
      expect(server.requests).toHaveLength(2);
      expect(keysOf(server)).toEqual([idempotencyKey, idempotencyKey]);
      expect(replayed).toBe(true);
      expect(server.store.size).toBe(1);
      expect(data.uuid).toBe(server.store.get(idempotencyKey!)!.resource.uuid);
    });
  });

  describe('connections', () => {
    it('connection refused: APIConnectionError with the cause, after 1 + maxRetries attempts', async () => {
      // A port that was free a moment ago: listen, note it, close.
      const probe = createServer();
      await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
      const { port } = probe.address() as AddressInfo;
      await new Promise<void>((resolve) => probe.close(() => resolve()));
      // Attempts counted from the log: one "retry" line per attempt after the first.
      const retries: string[] = [];
      const log = () => undefined;
      const client = new PaymentsClient({
        apiKey: API_KEY,
        baseUrl: `http://127.0.0.1:${port}`,
        retryBackoff: { initialMs: 1 },
        logLevel: 'info',
        logger: { debug: log, info: (message: string) => retries.push(message), warn: log, error: log },
      });
      const error = await client.payments.retrieve('p-1').then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(APIConnectionError);
      expect(error).not.toBeInstanceOf(APITimeoutError);
      expect((error as Error).message).toMatch(/ECONNREFUSED/);
      // The connection error keeps fetch's own error as its cause, with the system code under it.
      expect(((error as Error).cause as { cause?: { code?: string } }).cause?.code).toBe('ECONNREFUSED');
      expect(retries).toHaveLength(2);
      expect(retries[0]).toMatch(/^payments-sdk: retry 1 of GET .* after APIConnectionError$/);
    });

    it('keep-alive: sequential calls reuse connections without error', async () => {
      server = await startServer((x) => {
        if (x.seen.method === 'POST') answerCreation(x);
        else x.server.json(x.res, 200, { data: payment() });
      });
      const client = clientFor(server);
      for (let i = 0; i < 5; i += 1) {
        await client.payments.retrieve(`p-${i}`);
        await client.payments.create(charge);
      }
      expect(server.requests).toHaveLength(10);
      expect(server.store.size).toBe(5);
      // undici may open a second socket while the first is being released (plain fetch does the
      // same); after that, every call reuses one of the two.
      expect(server.connections()).toBeLessThanOrEqual(2);
    });

    it('keep-alive: a connection the server closed between calls is replaced without error', async () => {
      server = await startServer((x) => {
        x.server.json(x.res, 200, { data: payment() }, x.seen.n % 2 === 1 ? { Connection: 'close' } : {});
      });
      const client = clientFor(server, { maxRetries: 0 });
      for (let i = 0; i < 4; i += 1) await client.payments.retrieve(`p-${i}`);
      expect(server.requests).toHaveLength(4);
      expect(server.connections()).toBeGreaterThanOrEqual(2);
    });
  });
});
