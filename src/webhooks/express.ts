/**
 * The webhook endpoint for Express and plain `node:http`. It reads the request
 * stream through its `data`/`end` events, so nothing here imports a `node:` module and this entry
 * still loads on edge runtimes.
 *
 * @module
 */
import { type BodyProblem, concat, consumedBodyMessage, createWebhookCore, type WebhookHandlerOptions } from './handler.js';
import { rawBytes } from './sign.js';

/**
 * The part of a Node request used: `http.IncomingMessage`, Express's `Request`, Next.js's
 * `NextApiRequest` (Pages Router, with `bodyParser: false`) and Koa's `ctx.req` all have it; so does
 * Fastify's `request` (its body from a `parseAs: 'buffer'` content-type parser, its stream in `raw`).
 */
export interface NodeWebhookRequest {
  method?: string;
  headers: object;
  /** Set by a body parser: a Buffer/string (`express.raw()`, `express.text()`) is used as the raw body. */
  body?: unknown;
  /** Set by some frameworks (NestJS `rawBody: true`, Firebase Functions) next to a parsed `body`. */
  rawBody?: unknown;
  /** `true` once the body stream was read to its end (by a body parser, say). */
  readableEnded?: boolean;
  /** Subscribes to the request stream (`data`, `end`, `error`), to read the raw body. Absent on a Fastify request. */
  on?(event: string, listener: (...args: unknown[]) => void): unknown;
  /** The Node request under a framework's own request object (Fastify's `request.raw`). */
  raw?: unknown;
}

/** The part of a Node response used: `http.ServerResponse` and Express's `Response` have it. */
export interface NodeWebhookResponse {
  statusCode: number;
  headersSent?: boolean;
  /** Sets a response header. */
  setHeader(name: string, value: string): unknown;
  /** Sends the body and ends the response. */
  end(chunk?: string): unknown;
}

/**
 * A webhook endpoint for Express (4 and 5) and `node:http`, with the behaviour of `webhookHandler`:
 *
 * ```ts
 * app.post('/webhooks', expressWebhook({ secret: process.env.PAYMENTS_WEBHOOK_SECRET, onEvent }));
 * http.createServer(expressWebhook({ secret, onEvent })).listen(3000);
 * app.post('/webhooks', expressWebhook({ secret, store: postgresStore(pool), onEvent: async (event, { tx }) => record(tx, event) }));
 * ```
 * It reads the raw body from the request itself, or takes it from `express.raw()` (a Buffer in
 * `req.body`) or a `req.rawBody`. When `express.json()` already parsed the body, the signed bytes
 * are gone: the delivery is answered 400 with the way to fix the route.
 */
export function expressWebhook<Context = undefined, Effects = unknown>(
  options: WebhookHandlerOptions<Context, Effects>,
): (req: NodeWebhookRequest, res: NodeWebhookResponse) => Promise<void>;
export function expressWebhook(
  options: WebhookHandlerOptions<unknown, unknown>,
): (req: NodeWebhookRequest, res: NodeWebhookResponse) => Promise<void> {
  const core = createWebhookCore(options, 'expressWebhook');
  return async (req, res) => {
    const method = req.method;
    const body = (method ?? '').toUpperCase() === 'POST' ? await readNodeBody(req, res, core.maxBodyBytes) : new Uint8Array();
    if (body === 'aborted') return;
    const result = await core.handle(method, body, req.headers);
    if (res.headersSent) return;
    res.statusCode = result.status;
    for (const [name, value] of Object.entries(result.headers)) res.setHeader(name, value);
    res.end(result.body);
  };
}

function readNodeBody(req: NodeWebhookRequest, res: NodeWebhookResponse, max: number): Promise<Uint8Array | BodyProblem | 'aborted'> {
  const given = rawBytes(req.rawBody) ?? rawBytes(req.body);
  if (given) return Promise.resolve(given.byteLength > max ? { status: 413 } : given);
  const stream = typeof req.on === 'function' ? req : (req.raw as NodeWebhookRequest | undefined);
  if (typeof stream?.on !== 'function' || stream.readableEnded === true) {
    // Someone read the stream before us. A parsed `req.body` tells that a parser did; the objects
    // often tell which framework's, and so which fix applies.
    const problem = parsedOn(req)
      ? 'The body was already parsed (req.body is an object: a body parser ran on this route), so the signed bytes are gone.'
      : 'The request body stream was already read by another middleware, so the signed bytes are gone.';
    const fix = frameworkFix(req, res);
    return Promise.resolve({ status: 400, message: fix ? `${problem} ${fix}` : consumedBodyMessage(problem) });
  }
  // Still unread (no parser, or a parser that skipped this content type, e.g. express.raw() with
  // its default type application/octet-stream): read it here.
  const on = stream.on.bind(stream);
  return new Promise((resolve) => {
    const chunks: Uint8Array[] = [];
    let size = 0;
    let settled = false;
    const resolveOnce = (value: Uint8Array | BodyProblem | 'aborted') => {
      if (!settled) {
        settled = true;
        resolve(value);
      }
    };
    on('data', (chunk: unknown) => {
      if (settled) return;
      const bytes = rawBytes(chunk) ?? new Uint8Array();
      size += bytes.byteLength;
      if (size > max) resolveOnce({ status: 413 });
      else chunks.push(bytes);
    });
    on('end', () => resolveOnce(concat(chunks, size)));
    // A stream error or a sender gone before the end: no answer can reach it.
    on('error', () => resolveOnce('aborted'));
    on('close', () => resolveOnce('aborted'));
  });
}

/**
 * The raw-body fix for the framework that read the body, told by what it leaves on the request and
 * response objects; `undefined` when none is recognised (the message then lists the fixes of all).
 */
function frameworkFix(req: NodeWebhookRequest, res: NodeWebhookResponse): string | undefined {
  const has = (value: unknown, method: string) =>
    (typeof value === 'object' || typeof value === 'function') &&
    value !== null &&
    typeof (value as Record<string, unknown>)[method] === 'function';
  const request = req as unknown as Record<string, unknown>;
  // Fastify's request carries its server instance; its default JSON parser read the body.
  if (has(request.server, 'addContentTypeParser')) {
    return "Fastify's JSON parser read it: in the webhook route's scope, register a parser that keeps the bytes, `scope.addContentTypeParser('application/json', { parseAs: 'buffer' }, (_request, body, done) => done(null, body))`.";
  }
  // Next.js API routes (Pages Router) add revalidate() and setDraftMode() to the response.
  if (has(res, 'revalidate') || has(res, 'setDraftMode')) {
    return 'Next.js parsed it (the API routes body parser is on by default): export `const config = { api: { bodyParser: false } }` from this route file.';
  }
  // Express links the request to its app (a function with methods).
  if (has(request.app, 'use')) {
    return "Declare the webhook route before `app.use(express.json())`, or mount `express.raw({ type: 'application/json' })` on it (expressWebhook takes its Buffer). In NestJS, create the app with `NestFactory.create(AppModule, { rawBody: true })`: expressWebhook takes the `req.rawBody` Nest then keeps.";
  }
  // Koa presets 404 on every response before its middleware runs; a plain Node response starts at 200.
  if (res.statusCode === 404 && res.headersSent !== true && !parsedOn(req)) {
    return 'In Koa, a body parser (@koa/bodyparser, koa-body) read it before this route: mount the webhook route before it, or hand over the raw body it kept, `Object.assign(ctx.req, { rawBody: ctx.request.rawBody })`.';
  }
  return undefined;
}

/** `true` when a parser left its result on the Node request itself (Koa's parsers keep it on `ctx.request`). */
function parsedOn(req: NodeWebhookRequest): boolean {
  return req.body !== undefined && req.body !== null;
}
