/**
 * The mock service on a real port of 127.0.0.1, for code that can take neither a custom `fetch` nor
 * msw (another process, a tool with its own HTTP stack). Node's `node:http` (Bun and Deno provide
 * it too). Loaded only by `mock.listen()`, through a dynamic `import()`, so `node:http` stays out of
 * the module graph of `createMockService()`.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
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
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => {
      server.off('error', reject);
      resolve();
    });
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
  res.end(Buffer.from(await response.arrayBuffer()));
}
