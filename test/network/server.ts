/**
 * A real `node:http` server on 127.0.0.1 for the network tests of the HTTP core: a mock cannot drop
 * a socket, stall past a timeout or cut a body. It models the service's idempotent creations
 * (docs/service.md "Idempotency"): a map Idempotency-Key → resource; a key seen again with the same body is
 * replayed with 200, nothing created.
 */
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { inspect } from 'node:util';
import { payment } from '../helpers/fixtures.js';

/** One request as the server saw it. */
export interface SeenRequest {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: string;
  /** 1-based number of this request among all the server received. */
  n: number;
}

/** What a handler gets: the request, the response, and the idempotent store. */
export interface Exchange {
  req: IncomingMessage;
  res: ServerResponse;
  seen: SeenRequest;
  server: TestServer;
}

export interface TestServer {
  /** `http://127.0.0.1:<port>`. */
  origin: string;
  /** Every request received, in order. */
  requests: SeenRequest[];
  /** Key → created resource. */
  store: Map<string, { body: string; resource: Record<string, unknown> }>;
  /** TCP connections accepted so far. */
  connections(): number;
  /** Creates (or finds) the resource of a POST by its Idempotency-Key: `replayed` when it already existed. */
  createOrReplay(seen: SeenRequest): { status: 200 | 201 | 409; resource?: Record<string, unknown> };
  /** Sends a JSON answer. */
  json(res: ServerResponse, status: number, body: unknown, headers?: Record<string, string>): void;
  close(): Promise<void>;
}

/**
 * Starts a server whose every request goes to `handler`, after the request body was read (unless
 * `readBody` is false: then the handler runs as soon as the headers arrived).
 */
export async function startServer(
  handler: (x: Exchange) => void | Promise<void>,
  options: { readBody?: boolean } = {},
): Promise<TestServer> {
  const sockets = new Set<Socket>();
  let connections = 0;
  const requests: SeenRequest[] = [];
  const store: TestServer['store'] = new Map();

  const httpServer = createServer((req, res) => {
    const seen: SeenRequest = { method: req.method ?? '', url: req.url ?? '', headers: req.headers, body: '', n: requests.length + 1 };
    requests.push(seen);
    if (options.readBody === false) {
      void handler({ req, res, seen, server: api });
      return;
    }
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      seen.body = Buffer.concat(chunks).toString('utf8');
      void handler({ req, res, seen, server: api });
    });
  });
  httpServer.on('connection', (socket) => {
    connections += 1;
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => httpServer.listen(0, '127.0.0.1', resolve));
  const { port } = httpServer.address() as AddressInfo;

  const api: TestServer = {
    origin: `http://127.0.0.1:${port}`,
    requests,
    store,
    connections: () => connections,
    createOrReplay(seen) {
      const key = String(seen.headers['idempotency-key'] ?? '');
      const known = store.get(key);
      if (known) return known.body === seen.body ? { status: 200, resource: known.resource } : { status: 409 };
      const resource = { ...payment(), uuid: randomUUID() };
      store.set(key, { body: seen.body, resource });
      return { status: 201, resource };
    },
    json(res, status, body, headers = {}) {
      const text = JSON.stringify(body);
      res.writeHead(status, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(text), ...headers });
      res.end(text);
    },
    async close() {
      for (const socket of sockets) socket.destroy();
      httpServer.closeAllConnections();
      await new Promise<void>((resolve) => httpServer.close(() => resolve()));
    },
  };
  return api;
}

/** Answers a creation the way the service does: 201 created, 200 replayed, 409 conflict. */
export function answerCreation({ res, seen, server }: Exchange): void {
  const outcome = server.createOrReplay(seen);
  if (outcome.status === 409) {
    server.json(res, 409, { message: 'Cette clé d’idempotence a déjà été utilisée avec un contenu différent.' });
    return;
  }
  server.json(res, outcome.status, { data: outcome.resource });
}

/** Every string a value holds, deep: util.inspect with hidden members, each own property, bytes decoded. */
export function everythingIn(value: unknown, seen = new Set<unknown>()): string {
  if (value === null || (typeof value !== 'object' && typeof value !== 'function')) return String(value);
  if (seen.has(value)) return '';
  seen.add(value);
  if (value instanceof Uint8Array) return Buffer.from(value).toString('latin1');
  const parts = [inspect(value, { showHidden: true, depth: 8 })];
  for (const key of Reflect.ownKeys(value)) {
    const descriptor = Object.getOwnPropertyDescriptor(value, key);
    if (descriptor && 'value' in descriptor) parts.push(everythingIn(descriptor.value, seen));
  }
  return parts.join('\n');
}
