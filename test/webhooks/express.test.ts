/** expressWebhook in a real Express 5 app, and in a plain node:http server, on 127.0.0.1. */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Socket } from 'node:net';
import express from 'express';
import { expressWebhook, type WebhookErrorInfo, type WebhookEvent } from 'payments-sdk/webhooks';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { deliveryHeaders, eventBody, OTHER_SECRET, SECRET } from '../helpers/webhook-deliveries.js';

const events: WebhookEvent[] = [];
const errors: { error: unknown; info: WebhookErrorInfo }[] = [];
let failNext = 0;

const options = {
  secret: SECRET,
  onEvent: async (event: WebhookEvent) => {
    if (failNext > 0) {
      failNext--;
      throw new Error('handler failed');
    }
    events.push(event);
  },
  onError: (error: unknown, info: WebhookErrorInfo) => void errors.push({ error, info }),
};

let server: Server;
let plainServer: Server;
let base: string;
let plainBase: string;

function listen(s: Server): Promise<string> {
  return new Promise((resolve) => s.listen(0, '127.0.0.1', () => resolve(`http://127.0.0.1:${(s.address() as AddressInfo).port}`)));
}

function close(s: Server): Promise<void> {
  return new Promise((resolve) => {
    s.closeAllConnections();
    s.close(() => resolve());
  });
}

beforeAll(async () => {
  const app = express();
  // Each route has its own handler, so its own in-memory dedupe store.
  app.post('/webhooks', expressWebhook(options));
  app.post('/with-raw', express.raw({ type: 'application/json' }), expressWebhook(options));
  app.post('/with-raw-default-type', express.raw(), expressWebhook(options));
  app.post('/with-text', express.text({ type: 'application/json' }), expressWebhook(options));
  app.post(
    '/with-json-and-raw-body',
    express.json({
      verify: (req, _res, buf) => {
        (req as unknown as { rawBody: Buffer }).rawBody = buf;
      },
    }),
    expressWebhook(options),
  );
  app.post('/with-json', express.json(), expressWebhook(options));
  app.all('/any-method', expressWebhook(options));
  app.post('/small', expressWebhook({ ...options, maxBodyBytes: 64 }));
  app.post('/small-raw', express.raw({ type: 'application/json' }), expressWebhook({ ...options, maxBodyBytes: 64 }));
  // A middleware that drains the stream without leaving a body (a logger, a proxy...).
  app.post(
    '/drained',
    (req, _res, next) => {
      req.on('data', () => {});
      req.on('end', () => next());
    },
    expressWebhook(options),
  );
  server = createServer(app);
  base = await listen(server);
  plainServer = createServer(expressWebhook(options));
  plainBase = await listen(plainServer);
});

afterAll(async () => {
  await close(server);
  await close(plainServer);
});

beforeEach(() => {
  events.length = 0;
  errors.length = 0;
  failNext = 0;
});

async function post(url: string, body: string, headers: Record<string, string> = deliveryHeaders(body)) {
  const response = await fetch(url, { method: 'POST', body, headers });
  return { status: response.status, body: (await response.json()) as Record<string, unknown>, headers: response.headers };
}

describe('expressWebhook in Express 5', () => {
  it('reads the raw body itself when no parser ran, and answers 200', async () => {
    const body = eventBody({ id: 'evt_self' });
    const response = await post(`${base}/webhooks`, body);
    expect(response).toMatchObject({ status: 200, body: { received: true } });
    expect(events).toEqual([expect.objectContaining({ id: 'evt_self', type: 'payment.succeeded' })]);
  });

  it("takes the Buffer of express.raw({ type: 'application/json' })", async () => {
    const body = eventBody({ id: 'evt_raw' });
    expect((await post(`${base}/with-raw`, body)).status).toBe(200);
    expect(events.map((e) => e.id)).toEqual(['evt_raw']);
  });

  it('reads the stream when express.raw() skipped the body (its default type is application/octet-stream)', async () => {
    const body = eventBody({ id: 'evt_raw_default' });
    expect((await post(`${base}/with-raw-default-type`, body)).status).toBe(200);
    expect(events.map((e) => e.id)).toEqual(['evt_raw_default']);
  });

  it('takes the string of express.text()', async () => {
    const body = eventBody({ id: 'evt_text', data: { ...JSON.parse(eventBody()).data, payer: 'Aïssatou Ndiaye ✓' } });
    expect((await post(`${base}/with-text`, body)).status).toBe(200);
    expect(events.map((e) => e.id)).toEqual(['evt_text']);
  });

  it('uses req.rawBody next to a parsed body (express.json verify hook, NestJS rawBody: true)', async () => {
    const body = eventBody({ id: 'evt_rawbody' });
    expect((await post(`${base}/with-json-and-raw-body`, body)).status).toBe(200);
    expect(events.map((e) => e.id)).toEqual(['evt_rawbody']);
  });

  it('answers 400 with the raw-body fix when express.json() already parsed the body', async () => {
    const body = eventBody({ id: 'evt_json' });
    const response = await post(`${base}/with-json`, body);
    expect(response.status).toBe(400);
    expect(response.body.reason).toBe('invalid_payload');
    expect(response.body.error).toMatch(/already parsed.*before `app\.use\(express\.json\(\)\)`/);
    expect(response.body.error).toContain("express.raw({ type: 'application/json' })");
    // Express is told apart: the other frameworks' fixes are left out.
    expect(response.body.error).not.toMatch(/Fastify|Koa|bodyParser/);
    expect(events).toEqual([]);
  });

  it('answers 400 { error, reason } to a bad signature, and never calls onEvent', async () => {
    const body = eventBody({ id: 'evt_forged' });
    const forged = await post(`${base}/webhooks`, body, deliveryHeaders(body, { secret: OTHER_SECRET }));
    expect(forged).toMatchObject({ status: 400, body: { reason: 'signature_mismatch', error: expect.any(String) } });
    const unsigned = await post(`${base}/webhooks`, body, { 'content-type': 'application/json' });
    expect(unsigned).toMatchObject({ status: 400, body: { reason: 'missing_signature' } });
    expect(events).toEqual([]);
    expect(errors.map((e) => e.info.reason)).toEqual(['signature_mismatch', 'missing_signature']);
  });

  it('answers 200 without calling onEvent again for an id already handled', async () => {
    const body = eventBody({ id: 'evt_dupe' });
    expect((await post(`${base}/with-raw`, body)).body).toEqual({ received: true });
    expect((await post(`${base}/with-raw`, body)).body).toEqual({ received: true, duplicate: true });
    expect(events.map((e) => e.id)).toEqual(['evt_dupe']);
  });

  it('answers 500 when onEvent threw, then 200 on the redelivery, which is processed', async () => {
    const body = eventBody({ id: 'evt_retry' });
    failNext = 1;
    const failed = await post(`${base}/webhooks`, body);
    expect(failed.status).toBe(500);
    expect(events).toEqual([]);
    const redelivered = await post(`${base}/webhooks`, body);
    expect(redelivered).toMatchObject({ status: 200, body: { received: true } });
    expect(events.map((e) => e.id)).toEqual(['evt_retry']);
  });

  it('answers 405 to a method other than POST', async () => {
    const response = await fetch(`${base}/any-method`);
    expect(response.status).toBe(405);
    expect(response.headers.get('allow')).toBe('POST');
  });

  it('answers 413 to a body over maxBodyBytes, read here or by express.raw()', async () => {
    const body = eventBody();
    expect((await post(`${base}/small`, body)).status).toBe(413);
    expect((await post(`${base}/small-raw`, body)).status).toBe(413);
    expect(events).toEqual([]);
  });

  it('answers 400 when another middleware drained the stream', async () => {
    const response = await post(`${base}/drained`, eventBody());
    expect(response.status).toBe(400);
    expect(response.body.error).toMatch(/already read by another middleware/);
  });

  it('joins a body that arrives in many chunks', async () => {
    // ~200 KB of data: several TCP reads on the server side.
    const body = eventBody({ id: 'evt_big', data: { ...JSON.parse(eventBody()).data, notes: 'n'.repeat(200_000) } });
    expect((await post(`${base}/webhooks`, body)).status).toBe(200);
    expect(events.map((e) => e.id)).toEqual(['evt_big']);
  });

  it('survives a sender that goes away in the middle of the body', async () => {
    const port = Number(new URL(base).port);
    await new Promise<void>((resolve, reject) => {
      const socket = new Socket();
      socket.once('error', reject);
      socket.connect(port, '127.0.0.1', () => {
        socket.write('POST /webhooks HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"id":');
        setTimeout(() => socket.destroy(), 20);
        socket.once('close', () => resolve());
      });
    });
    // The server still answers the next delivery.
    const body = eventBody({ id: 'evt_after_abort' });
    expect((await post(`${base}/webhooks`, body)).status).toBe(200);
    expect(events.map((e) => e.id)).toEqual(['evt_after_abort']);
  });
});

describe('expressWebhook as a plain node:http handler', () => {
  it('verifies, dedupes and answers', async () => {
    const body = eventBody({ id: 'evt_plain' });
    expect((await post(plainBase, body)).status).toBe(200);
    expect((await post(plainBase, body)).body).toEqual({ received: true, duplicate: true });
    expect((await post(plainBase, body, deliveryHeaders(body, { secret: OTHER_SECRET }))).status).toBe(400);
    expect(events.map((e) => e.id)).toEqual(['evt_plain']);
  });
});

/**
 * What each framework leaves when it read the body before the webhook, reproduced on a real
 * node:http server (the apps themselves run in `npm run test:frameworks`): the answer names that
 * framework's fix.
 */
describe('the "body already read" answer names the fix of the framework that read it', () => {
  let framed: Server;
  let framedBase: string;
  const webhook = expressWebhook(options);
  const read = async (req: IncomingMessage) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    return Buffer.concat(chunks);
  };
  // Fastify's request: no stream methods of its own (the Node request is `raw`), and its server.
  const fastifyRequest = (req: IncomingMessage, body: unknown) => ({
    method: req.method,
    headers: req.headers,
    body,
    raw: req,
    server: { addContentTypeParser: () => {} },
  });

  beforeAll(async () => {
    framed = createServer(async (req, res) => {
      const bytes = await read(req);
      switch (req.url) {
        case '/fastify-buffer': // a parseAs: 'buffer' content-type parser
          return webhook(fastifyRequest(req, bytes), res);
        case '/fastify-json': // Fastify's default JSON parser
          return webhook(fastifyRequest(req, JSON.parse(bytes.toString())), res);
        case '/next-pages': // an API route with the default bodyParser
          return webhook(
            Object.assign(req, { body: JSON.parse(bytes.toString()) }),
            Object.assign(res, { revalidate: async () => {}, setDraftMode: () => {} }),
          );
        case '/koa': // Koa presets 404; @koa/bodyparser keeps the body on ctx.request, not on req
          res.statusCode = 404;
          return webhook(req, res);
        default: // a middleware nobody can name
          return webhook(req, res);
      }
    });
    framedBase = await listen(framed);
  });

  afterAll(() => close(framed));

  const answer = async (path: string) => {
    const response = await post(`${framedBase}${path}`, eventBody({ id: `evt_${path.slice(1)}` }));
    expect(response).toMatchObject({ status: 400, body: { reason: 'invalid_payload' } });
    return String(response.body.error);
  };

  it("Fastify: its JSON parser, and the parseAs: 'buffer' content-type parser that fixes it", async () => {
    const error = await answer('/fastify-json');
    expect(error).toMatch(/^The body was already parsed .* Fastify's JSON parser read it/);
    expect(error).toContain("addContentTypeParser('application/json', { parseAs: 'buffer' }");
    expect(error).not.toMatch(/express|Koa|bodyParser/);
  });

  it("Fastify's request with the Buffer of a parseAs: 'buffer' parser is verified and handled", async () => {
    const response = await post(`${framedBase}/fastify-buffer`, eventBody({ id: 'evt_fastify_buffer' }));
    expect(response).toMatchObject({ status: 200, body: { received: true } });
    expect(events.map((e) => e.id)).toEqual(['evt_fastify_buffer']);
  });

  it('Next.js Pages Router: bodyParser: false in the route config', async () => {
    const error = await answer('/next-pages');
    expect(error).toMatch(/^The body was already parsed .* Next\.js parsed it/);
    expect(error).toContain('`const config = { api: { bodyParser: false } }`');
    expect(error).not.toMatch(/express|Fastify|Koa/);
  });

  it("Koa: the route before the body parser, or the parser's ctx.request.rawBody", async () => {
    const error = await answer('/koa');
    expect(error).toMatch(/^The request body stream was already read .* In Koa, a body parser/);
    expect(error).toContain('Object.assign(ctx.req, { rawBody: ctx.request.rawBody })');
    expect(error).not.toMatch(/express|Fastify|bodyParser: false/);
  });

  it('an unknown reader: the fixes of every framework', async () => {
    const error = await answer('/drained');
    expect(error).toMatch(/^The request body stream was already read by another middleware/);
    for (const fix of [
      "express.raw({ type: 'application/json' })",
      'bodyParser: false',
      "parseAs: 'buffer'",
      'ctx.request.rawBody',
      'c.req.raw',
    ])
      expect(error).toContain(fix);
    expect(events).toEqual([]);
  });
});
