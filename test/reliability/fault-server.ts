/**
 * A real `node:http` server on 127.0.0.1 that models the service's idempotent creations
 * (docs/service.md "Idempotency") and injects faults a mock cannot: dropped sockets, bodies cut short,
 * answers slower than the client's timeout.
 *
 * Faults are drawn from a seeded PRNG keyed by (operation, attempt), not by arrival order, so a
 * run is reproducible whatever the concurrency: the same seed gives every operation the same
 * sequence of faults. The operation is read from the request body (`description: "op-<n>"`),
 * never from the Idempotency-Key, so the server can check that every attempt of one operation
 * carried the same key.
 */
import { createHash, randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mulberry32 } from '../../src/testing/seeded-random.js';
import { checkoutSession, payment } from '../helpers/fixtures.js';

export { mulberry32 };

/** What the server does to one attempt. */
export type Fault =
  /** Socket destroyed after the body is read, before anything is created. */
  | 'reset-before'
  /** Resource created, then the socket destroyed before any answer. */
  | 'reset-after'
  /** 500 with a JSON body (Laravel's "Server Error"), nothing created. */
  | '500-json'
  /** 502 with an HTML page from a proxy, nothing created. */
  | '502-html'
  /** 503 with a JSON body, nothing created. */
  | '503-json'
  /** 503 with an HTML maintenance page, nothing created. */
  | '503-html'
  /** Resource created upstream, then the proxy answers 502 HTML (the answer was lost). */
  | 'created-502-html'
  /** 429 with `Retry-After: 0`, nothing created. */
  | '429'
  /** Resource created, answer sent after `slowMs` (past the client's timeout). */
  | 'slow'
  /** Resource created, `Content-Length` larger than what is written, then the socket destroyed. */
  | 'truncated'
  /** Resource created, a complete 201 whose body is not valid JSON. */
  | 'invalid-json';

/** Every fault, for counting and for drawing at random. */
export const FAULTS: readonly Fault[] = [
  'reset-before',
  'reset-after',
  '500-json',
  '502-html',
  '503-json',
  '503-html',
  'created-502-html',
  '429',
  'slow',
  'truncated',
  'invalid-json',
];

/** Faults after which the resource exists on the server although the client saw a failure. */
export const FAULTS_AFTER_CREATION: ReadonlySet<Fault> = new Set(['reset-after', 'created-502-html', 'slow', 'truncated', 'invalid-json']);

export interface FaultServerOptions {
  /** Seed of the PRNG. */
  seed: number;
  /** Probability that an attempt gets a fault (0–1). */
  faultRate: number;
  /** Delay of a `slow` answer, in ms (keep it well past the client's timeout). */
  slowMs: number;
  /** Forced faults: `plan(op, attempt)` wins over the PRNG when it returns a fault or `'none'`. */
  plan?: (op: number, attempt: number) => Fault | 'none' | undefined;
}

interface Stored {
  op: number;
  bodyHash: string;
  resource: Record<string, unknown>;
}

/** What one operation went through on the server. */
export interface OperationLog {
  /** Attempts received (any path). */
  attempts: number;
  /** Idempotency-Key values received; exactly one when the SDK reuses its key on every retry. */
  keys: Set<string>;
  /** Faults injected, in order ('none' for a clean answer). */
  faults: (Fault | 'none')[];
  /** Resources created for this operation (must end at exactly 1). */
  creations: number;
  /** Status of each attempt that was answered in full, by attempt number (201 creation, 200 replay, 409 conflict). */
  answers: Map<number, number>;
  /** The attempt that created the resource, when one did. */
  createdAt?: number;
}

/** The fault of (op, attempt) under `seed`: independent of the order in which attempts arrive. */
export function drawFault(seed: number, faultRate: number, op: number, attempt: number): Fault | 'none' {
  const next = mulberry32((seed ^ Math.imul(op + 1, 0x9e3779b1) ^ Math.imul(attempt, 0x85ebca77)) >>> 0);
  next(); // discard the first draw: it correlates with the seed's low bits
  if (next() >= faultRate) return 'none';
  return FAULTS[Math.floor(next() * FAULTS.length)] as Fault;
}

const PATHS = { '/api/v1/payments': 'payment', '/api/v1/checkout-sessions': 'checkout_session' } as const;
type Kind = (typeof PATHS)[keyof typeof PATHS];

const HTML_502 =
  '<html><head><title>502 Bad Gateway</title></head><body><center><h1>502 Bad Gateway</h1></center><hr><center>nginx</center></body></html>';
const HTML_503 = '<!DOCTYPE html><html><head><title>Service Unavailable</title></head><body>Be right back.</body></html>';

/** Builds the resource the service would create from the request body (docs/service.md "Money and records", "Endpoints"). */
function createResource(kind: Kind, body: Record<string, unknown>): Record<string, unknown> {
  const created_at = new Date().toISOString();
  const amount = Number(body.amount);
  if (kind === 'payment') {
    const [psp, platform] = [Math.floor(amount * 0.015), Math.floor(amount * 0.005)];
    return payment({
      uuid: randomUUID(),
      gross_amount: amount,
      psp_fee_amount: psp,
      platform_fee_amount: platform,
      net_amount_to_merchant: amount - psp - platform,
      currency: String(body.currency),
      mobile_money_country: String(body.country),
      mobile_money_provider: String(body.provider),
      psp_reference: randomUUID(),
      created_at,
    });
  }
  const reference = randomUUID().replaceAll('-', '').slice(0, 26).toUpperCase();
  return checkoutSession({
    reference,
    amount,
    currency: String(body.currency),
    description: String(body.description),
    metadata: (body.metadata as Record<string, unknown>) ?? {},
    checkout_url: `https://checkout.example/c/${reference}`,
    created_at,
  });
}

/** A running fault server. Close it in `afterAll`. */
export interface FaultServer {
  /** `http://127.0.0.1:<port>` */
  baseUrl: string;
  /** Per-operation record, keyed by the op number from the body. */
  ops: Map<number, OperationLog>;
  /** Resources held, by Idempotency-Key. */
  resources: Map<string, Stored>;
  /** How many times each fault was injected. */
  faultCounts: Record<Fault, number>;
  /** Requests that carried no Idempotency-Key (must stay 0). */
  missingKey: number;
  /** Total resources created. */
  creations(): number;
  close(): Promise<void>;
}

/** Starts the fault server on 127.0.0.1 with an ephemeral port. */
export async function startFaultServer(options: FaultServerOptions): Promise<FaultServer> {
  const ops = new Map<number, OperationLog>();
  const resources = new Map<string, Stored>();
  const faultCounts = Object.fromEntries(FAULTS.map((f) => [f, 0])) as Record<Fault, number>;
  const timers = new Set<NodeJS.Timeout>();
  let missingKey = 0;

  const logOf = (op: number): OperationLog => {
    let log = ops.get(op);
    if (!log) {
      log = { attempts: 0, keys: new Set(), faults: [], creations: 0, answers: new Map() };
      ops.set(op, log);
    }
    return log;
  };

  const send = (res: ServerResponse, status: number, body: string, type = 'application/json', extra: Record<string, string> = {}) => {
    res.writeHead(status, { 'content-type': type, 'content-length': Buffer.byteLength(body), ...extra });
    res.end(body);
  };

  /** The service's idempotent creation (docs/service.md "Idempotency"): first → 201, same key + same content → 200, different content → 409. */
  const act = (
    kind: Kind,
    key: string,
    op: number,
    attempt: number,
    raw: string,
    body: Record<string, unknown>,
  ): { status: number; text: string } => {
    const bodyHash = createHash('sha256').update(`${kind}\n${raw}`).digest('hex');
    const found = resources.get(key);
    if (found) {
      if (found.bodyHash !== bodyHash) {
        return { status: 409, text: JSON.stringify({ message: 'This idempotency key was already used with a different payload.' }) };
      }
      return { status: 200, text: JSON.stringify({ data: found.resource }) };
    }
    const resource = createResource(kind, body);
    resources.set(key, { op, bodyHash, resource });
    const log = logOf(op);
    log.creations++;
    log.createdAt ??= attempt;
    return { status: 201, text: JSON.stringify({ data: resource }) };
  };

  const handle = (req: IncomingMessage, res: ServerResponse, raw: string) => {
    const path = (req.url ?? '').split('?')[0] as keyof typeof PATHS;
    const kind = PATHS[path];
    if (req.method !== 'POST' || !kind) return send(res, 404, JSON.stringify({ message: 'Not Found' }));
    let body: Record<string, unknown>;
    try {
      body = JSON.parse(raw);
    } catch {
      return send(res, 400, JSON.stringify({ message: 'Malformed JSON' }));
    }
    const match = /^op-(\d+)$/.exec(String(body.description ?? ''));
    if (!match) return send(res, 422, JSON.stringify({ message: 'description must be op-<n>', errors: { description: ['op-<n>'] } }));
    const op = Number(match[1]);
    const key = req.headers['idempotency-key'];
    const log = logOf(op);
    log.attempts++;
    if (typeof key !== 'string' || key === '') {
      missingKey++;
      return send(res, 400, JSON.stringify({ message: 'Idempotency-Key required by this test server' }));
    }
    log.keys.add(key);

    const fault = options.plan?.(op, log.attempts) ?? drawFault(options.seed, options.faultRate, op, log.attempts);
    log.faults.push(fault);
    if (fault !== 'none') faultCounts[fault]++;

    // Faults that happen before the service acts: nothing is created.
    switch (fault) {
      case 'reset-before':
        return req.socket.destroy();
      case '500-json':
        return send(res, 500, JSON.stringify({ message: 'Server Error' }));
      case '502-html':
        return send(res, 502, HTML_502, 'text/html');
      case '503-json':
        return send(res, 503, JSON.stringify({ message: 'Service Unavailable' }));
      case '503-html':
        return send(res, 503, HTML_503, 'text/html; charset=utf-8');
      case '429':
        return send(res, 429, JSON.stringify({ message: 'Too Many Attempts.' }), 'application/json', { 'retry-after': '0' });
    }

    const attempt = log.attempts;
    const { status, text } = act(kind, key, op, attempt, raw, body);
    // The client reads which attempt it accepted from this header, so checks do not depend on timing.
    const answer = () => {
      log.answers.set(attempt, status);
      send(res, status, text, 'application/json', { 'x-attempt': String(attempt) });
    };
    switch (fault) {
      case 'reset-after':
        return req.socket.destroy();
      case 'created-502-html':
        return send(res, 502, HTML_502, 'text/html');
      case 'slow': {
        const timer = setTimeout(() => {
          timers.delete(timer);
          if (!res.destroyed) answer();
        }, options.slowMs);
        timers.add(timer);
        return;
      }
      case 'truncated':
        res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) + 64 });
        res.write(text.slice(0, Math.floor(text.length / 2)));
        // Let the half body reach the client before the reset, so it is cut mid-body, not before it.
        setImmediate(() => req.socket.destroy());
        return;
      case 'invalid-json':
        return send(res, status, `${text.slice(0, Math.floor(text.length / 2))}`);
      default:
        return answer();
    }
  };

  const server: Server = createServer((req, res) => {
    res.on('error', () => {});
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('error', () => {});
    req.on('end', () => handle(req, res, Buffer.concat(chunks).toString('utf8')));
  });
  server.on('clientError', (_error, socket) => socket.destroy());

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  return {
    baseUrl: `http://127.0.0.1:${port}`,
    ops,
    resources,
    faultCounts,
    get missingKey() {
      return missingKey;
    },
    creations: () => resources.size,
    close: async () => {
      for (const timer of timers) clearTimeout(timer);
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
