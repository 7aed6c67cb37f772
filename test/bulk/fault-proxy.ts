/**
 * A loopback proxy in front of the testing kit's mock served over HTTP (`mock.listen()`): it forwards
 * POSTs and injects the faults a network and a load balancer produce, drawn from a seeded PRNG:
 * resets before the service sees the request and after it answered, 5xx with and without the
 * work done, 429, and answers held past the client's timeout. It records which runner (header
 * `x-runner`) sent each Idempotency-Key.
 */
import { createServer, request as httpRequest, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mulberry32 } from '../reliability/fault-server.js';

/** What the proxy does to one request. */
export type ProxyFault =
  /** The socket is destroyed before the request is forwarded: nothing is created. */
  | 'reset-before'
  /** Forwarded (the payout is created), then the socket is destroyed before any answer. */
  | 'reset-after'
  /** 503 without forwarding. */
  | '503'
  /** Forwarded (created), then a 502 HTML page instead of the answer. */
  | 'created-502'
  /** 429 with `Retry-After: 0`, without forwarding. */
  | '429'
  /** Forwarded (created), and the answer held past the client's timeout, then the socket destroyed. */
  | 'timeout';

/** Share of each fault among all requests. */
export type FaultMix = Partial<Record<ProxyFault, number>>;

export interface FaultProxy {
  url: string;
  /** Faults injected, by kind. */
  counts: Record<ProxyFault | 'none', number>;
  /** Runners (`x-runner`) that sent each Idempotency-Key. */
  senders: Map<string, Set<string>>;
  close(): Promise<void>;
}

const HTML_502 = '<html><head><title>502 Bad Gateway</title></head><body><center><h1>502 Bad Gateway</h1></center></body></html>';

export async function startFaultProxy(
  target: string,
  options: {
    seed: number;
    mix: FaultMix;
    holdMs: number;
    /** Each POST is held this long before it is forwarded (a slow service). Default 0. */
    delayMs?: number;
    /** Called with the count of POSTs the service answered, before the answer goes back (a test can kill the client there). */
    afterForward?: (count: number) => Promise<void> | void;
  },
): Promise<FaultProxy> {
  const random = mulberry32(options.seed);
  const counts: FaultProxy['counts'] = { 'reset-before': 0, 'reset-after': 0, '503': 0, 'created-502': 0, '429': 0, timeout: 0, none: 0 };
  const senders = new Map<string, Set<string>>();
  const upstream = new URL(target);
  const timers = new Set<NodeJS.Timeout>();
  let forwarded = 0;

  const draw = (): ProxyFault | 'none' => {
    let x = random();
    for (const [fault, share] of Object.entries(options.mix) as [ProxyFault, number][]) {
      if (x < share) return fault;
      x -= share;
    }
    return 'none';
  };

  const forward = (req: IncomingMessage, body: Buffer): Promise<{ status: number; headers: Record<string, string>; body: Buffer }> =>
    new Promise((resolve, reject) => {
      const headers = { ...req.headers, host: upstream.host };
      const out = httpRequest({ host: upstream.hostname, port: upstream.port, method: req.method, path: req.url, headers }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const h: Record<string, string> = {};
          for (const [k, v] of Object.entries(res.headers)) if (typeof v === 'string') h[k] = v;
          resolve({ status: res.statusCode ?? 502, headers: h, body: Buffer.concat(chunks) });
        });
        res.on('error', reject);
      });
      out.on('error', reject);
      out.end(body);
    });

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const body = Buffer.concat(chunks);
    const fault = req.method === 'POST' ? draw() : 'none';
    counts[fault] += 1;
    const key = req.headers['idempotency-key'];
    if (typeof key === 'string' && fault !== 'reset-before' && fault !== '503' && fault !== '429') {
      const runner = String(req.headers['x-runner'] ?? '?');
      const set = senders.get(key) ?? new Set<string>();
      set.add(runner);
      senders.set(key, set);
    }
    if (options.delayMs && req.method === 'POST') await new Promise((resolve) => setTimeout(resolve, options.delayMs));
    if (fault === 'reset-before') return void req.socket.destroy();
    if (fault === '503') return void res.writeHead(503, { 'content-type': 'application/json' }).end('{"message":"Service indisponible."}');
    if (fault === '429')
      return void res.writeHead(429, { 'content-type': 'application/json', 'retry-after': '0' }).end('{"message":"Trop de requêtes."}');
    const answer = await forward(req, body);
    await options.afterForward?.(++forwarded);
    if (fault === 'reset-after') return void req.socket.destroy();
    if (fault === 'created-502') return void res.writeHead(502, { 'content-type': 'text/html' }).end(HTML_502);
    if (fault === 'timeout') {
      const timer = setTimeout(() => {
        timers.delete(timer);
        req.socket.destroy();
      }, options.holdMs);
      timers.add(timer);
      return;
    }
    const { 'content-length': _l, 'transfer-encoding': _t, connection: _c, 'keep-alive': _k, ...headers } = answer.headers;
    res.writeHead(answer.status, headers).end(answer.body);
  };

  const server = createServer((req, res) => {
    handle(req, res).catch(() => req.socket.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    counts,
    senders,
    close: () =>
      new Promise<void>((resolve) => {
        for (const t of timers) clearTimeout(t);
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
