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
 * `NextApiRequest` (Pages Router, with `bodyParser: false`) all have it.
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
  /** Subscribes to the request stream (`data`, `end`, `error`), to read the raw body. */
  on(event: string, listener: (...args: unknown[]) => void): unknown;
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
 * ```
 * It reads the raw body from the request itself, or takes it from `express.raw()` (a Buffer in
 * `req.body`) or a `req.rawBody`. When `express.json()` already parsed the body, the signed bytes
 * are gone: the delivery is answered 400 with the way to fix the route.
 */
export function expressWebhook(options: WebhookHandlerOptions): (req: NodeWebhookRequest, res: NodeWebhookResponse) => Promise<void> {
  const core = createWebhookCore(options, 'expressWebhook');
  return async (req, res) => {
    const method = req.method;
    const body = (method ?? '').toUpperCase() === 'POST' ? await readNodeBody(req, core.maxBodyBytes) : new Uint8Array();
    if (body === 'aborted') return;
    const result = await core.handle(method, body, req.headers);
    if (res.headersSent) return;
    res.statusCode = result.status;
    for (const [name, value] of Object.entries(result.headers)) res.setHeader(name, value);
    res.end(result.body);
  };
}

function readNodeBody(req: NodeWebhookRequest, max: number): Promise<Uint8Array | BodyProblem | 'aborted'> {
  const given = rawBytes(req.rawBody) ?? rawBytes(req.body);
  if (given) return Promise.resolve(given.byteLength > max ? { status: 413 } : given);
  if (req.readableEnded === true) {
    // Someone read the stream before us. A parsed `req.body` tells who.
    const parsed = req.body !== undefined && req.body !== null;
    return Promise.resolve({
      status: 400,
      message: consumedBodyMessage(
        parsed
          ? 'The body was already parsed (req.body is an object: express.json() or another parser ran on this route), so the signed bytes are gone.'
          : 'The request body stream was already read by another middleware, so the signed bytes are gone.',
      ),
    });
  }
  // Still unread (no parser, or a parser that skipped this content type, e.g. express.raw() with
  // its default type application/octet-stream): read it here.
  return new Promise((resolve) => {
    const chunks: Uint8Array[] = [];
    let size = 0;
    let settled = false;
    const settle = (value: Uint8Array | BodyProblem | 'aborted') => {
      if (!settled) {
        settled = true;
        resolve(value);
      }
    };
    req.on('data', (chunk: unknown) => {
      if (settled) return;
      const bytes = rawBytes(chunk) ?? new Uint8Array();
      size += bytes.byteLength;
      if (size > max) settle({ status: 413 });
      else chunks.push(bytes);
    });
    req.on('end', () => settle(concat(chunks, size)));
    // A stream error or a sender gone before the end: no answer can reach it.
    req.on('error', () => settle('aborted'));
    req.on('close', () => settle('aborted'));
  });
}
