/**
 * The mock service on a real port of 127.0.0.1, for code that can take neither a custom `fetch` nor
 * msw (another process, a tool with its own HTTP stack). Node's `node:http` (Bun and Deno provide
 * it too). Loaded only by `mock.listen()`, through a dynamic `import()`, so `node:http` stays out of
 * the module graph of `createMockService()`.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { ReadableStream as NodeReadableStream } from 'node:stream/web';
import { isLoopback } from './delivery.js';
import { MockServiceError } from './mock-errors.js';

/** Options of `mock.listen()`. */
export interface ListenOptions {
  /** Port; default 0 (a free port chosen by the system). */
  port?: number;
  /** Loopback address to bind; default `127.0.0.1`. Anything else is refused. */
  host?: string;
}

/** A running mock server. */
export interface MockHttpServer {
  /** `http://127.0.0.1:<port>`: use it as the client's `baseUrl`. */
  readonly url: string;
  /** The bound port. */
  readonly port: number;
  /** Stops listening and closes open connections. */
  close(): Promise<void>;
}

const MAX_BODY = 1_048_576;

/** Starts an HTTP server on a loopback address that answers every request with `answer`. */
export async function startServer(answer: (request: Request) => Promise<Response>, options: ListenOptions = {}): Promise<MockHttpServer> {
  const host = options.host ?? '127.0.0.1';
  if (!isLoopback(host))
    throw new MockServiceError(`listen(): host must be a loopback address (127.0.0.1, localhost, ::1), got ${JSON.stringify(host)}.`);
  const server = createServer((req, res) => {
    serve(req, res, host, answer).catch((error: unknown) => {
      if (!res.headersSent) res.writeHead(500, { 'Content-Type': 'application/json' });
      res.end(JSON.stringify({ message: `Mock service error: ${error instanceof Error ? error.message : String(error)}` }));
    });
  });
  const wanted = options.port ?? 0;
  await askDenoForNet(host, wanted);
  await new Promise<void>((resolve, reject) => {
    const refused = (error: NodeJS.ErrnoException) =>
      reject(new MockServiceError(`listen(): cannot listen on ${hostPort(host, wanted)}: ${refusal(error)}`));
    server.once('error', refused);
    try {
      server.listen(wanted, host, () => {
        server.off('error', refused);
        resolve();
      });
    } catch (error) {
      // A port out of range, say: thrown at once rather than emitted.
      refused(error as NodeJS.ErrnoException);
    }
  });
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  const hostInUrl = host.includes(':') ? `[${host}]` : host;
  return {
    url: `http://${hostInUrl}:${port}`,
    port,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeAllConnections();
      }),
  };
}

/** `host:port`, with an IPv6 address in brackets. */
function hostPort(host: string, port: number): string {
  return `${host.includes(':') ? `[${host}]` : host}:${port}`;
}

/** Why the system refused the socket, in words. */
function refusal(error: NodeJS.ErrnoException): string {
  if (error.code === 'EADDRINUSE') return 'the port is already in use (pass port: 0 for a free one).';
  if (error.code === 'EADDRNOTAVAIL') return 'this machine has no such address.';
  if (error.code === 'EACCES') return 'permission denied (ports below 1024 need privileges).';
  return error.message;
}

/**
 * Deno checks its `--allow-net` permission inside `listen`, after the call returned, and throws
 * where no `try`/`catch` reaches. Asked first, the answer turns into a rejected promise instead (in
 * a terminal without `--no-prompt`, Deno prompts, as `listen` would).
 */
async function askDenoForNet(host: string, port: number): Promise<void> {
  // biome-ignore lint/suspicious/noExplicitAny: the Deno global has no types in this project.
  const deno = (globalThis as any).Deno;
  if (typeof deno?.permissions?.request !== 'function') return;
  const status = await deno.permissions.request({ name: 'net', host: hostPort(host, port) });
  if (status?.state !== 'granted') {
    throw new MockServiceError(
      `listen(): Deno denied network access to ${hostPort(host, port)}. Run with --allow-net=${host.includes(':') ? `[${host}]` : host} ` +
        '(or a wider --allow-net), or give the client mock.fetch instead of a server.',
    );
  }
}

async function serve(
  req: IncomingMessage,
  res: ServerResponse,
  host: string,
  answer: (request: Request) => Promise<Response>,
): Promise<void> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY) {
      res.writeHead(413, { 'Content-Type': 'application/json' }).end(JSON.stringify({ message: 'Corps de requête trop volumineux.' }));
      return;
    }
    chunks.push(chunk as Buffer);
  }
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (Array.isArray(value)) for (const v of value) headers.append(name, v);
    else if (value !== undefined) headers.set(name, value);
  }
  const method = req.method ?? 'GET';
  const hostInUrl = host.includes(':') ? `[${host}]` : host;
  const port = req.socket.localPort ?? 0;
  const request = new Request(`http://${hostInUrl}:${port}${req.url ?? '/'}`, {
    method,
    headers,
    body: method === 'GET' || method === 'HEAD' ? undefined : Buffer.concat(chunks),
  });
  const response = await answer(request);
  const out: Record<string, string> = {};
  response.headers.forEach((value, name) => {
    out[name] = value;
  });
  res.writeHead(response.status, out);
  if (!response.body) {
    res.end();
    return;
  }
  // Streamed, not buffered: an endless body (server-sent events) flows as it is written. A client
  // that goes away cancels the body's stream; a body that fails midway ends the connection (the
  // status is already sent).
  try {
    await pipeline(Readable.fromWeb(response.body as NodeReadableStream<Uint8Array>), res);
  } catch {
    res.destroy();
  }
}
