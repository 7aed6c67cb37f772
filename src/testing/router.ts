/**
 * The mock's HTTP face: a `Request` in, the `Response` the service would give out. Routing, the
 * order of checks (route, then authentication, then idempotency, then validation, as the service's
 * middleware stack runs them), JSON framing. Web APIs only.
 */
import { isRecord } from '../internal/is-record.js';
import type { ListKind, Partition } from './engine/model.js';
import type { Engine } from './engine.js';
import { HttpAnswer } from './mock-errors.js';

const RESOURCES = new Set<string>(['payments', 'checkout-sessions', 'payouts', 'payment-links', 'wallets']);

/** Answers one request to the mock service. Never throws: every failure is an HTTP answer. */
export async function handleRequest(engine: Engine, request: Request): Promise<Response> {
  try {
    return await route(engine, request);
  } catch (error) {
    if (error instanceof HttpAnswer) return json(error.status, error.body, error.headers);
    // A broken option (a fee function returning a float…) is the test's bug: say so in a 500.
    const message = error instanceof Error ? error.message : String(error);
    return json(500, { message: `Mock service error: ${message}` });
  }
}

async function route(engine: Engine, request: Request): Promise<Response> {
  const url = new URL(request.url);
  const at = url.pathname.indexOf('/api/v1/');
  const segments = at < 0 ? [] : url.pathname.slice(at + '/api/v1/'.length).split('/');
  if (segments.at(-1) === '' && segments.length > 1) segments.pop();
  const [resource, rawId, ...more] = segments;
  if (!resource || !RESOURCES.has(resource) || more.length > 0 || rawId === '' || (resource === 'wallets' && rawId !== undefined)) {
    throw new HttpAnswer(404, { message: `La route ${url.pathname} est introuvable.` });
  }
  const method = request.method.toUpperCase();
  const allowed = rawId !== undefined || resource === 'wallets' ? ['GET'] : ['GET', 'POST'];
  if (!allowed.includes(method))
    throw new HttpAnswer(405, { message: `La méthode ${method} n'est pas autorisée pour cette route.` }, { Allow: allowed.join(', ') });

  const partition = engine.authenticate(request.headers.get('authorization'));
  engine.sweep();

  if (resource === 'wallets') return json(200, { data: engine.wallets(partition) });
  const kind = resource as ListKind;
  if (rawId !== undefined) {
    let id: string;
    try {
      id = decodeURIComponent(rawId);
    } catch {
      throw new HttpAnswer(404, { message: `La route ${url.pathname} est introuvable.` });
    }
    return json(200, { data: engine.retrieve(partition, kind, id) });
  }
  if (method === 'GET') return json(200, engine.list(partition, kind, url));
  return create(engine, partition, kind, request);
}

/** A creation, with `Idempotency-Key` handling: 201, then 200 for a replay of the same payload, or 409 for another payload. */
async function create(engine: Engine, partition: Partition, kind: ListKind, request: Request): Promise<Response> {
  const text = await request.text();
  let input: unknown;
  try {
    input = text.trim() === '' ? {} : JSON.parse(text);
  } catch {
    throw new HttpAnswer(400, { message: "Le corps de la requête n'est pas un JSON valide." });
  }
  if (!isRecord(input)) {
    throw new HttpAnswer(400, { message: 'Le corps de la requête doit être un objet JSON.' });
  }
  const body = input as Record<string, unknown>;
  const key = request.headers.get('idempotency-key');
  // "Same content" is the same JSON value: key order and whitespace do not make a new operation.
  const fingerprint = canonicalJson(body);
  if (key !== null && key !== '') {
    const replay = engine.idempotentReplay(partition, kind, key, fingerprint);
    if (replay !== undefined) return json(200, replay, { 'Idempotent-Replayed': 'true' });
  }
  let data: unknown;
  if (kind === 'payments') data = engine.createDirectCharge(partition, body);
  else if (kind === 'checkout-sessions') data = engine.createCheckoutSession(partition, body);
  else if (kind === 'payouts') data = engine.createPayout(partition, body);
  else data = engine.createPaymentLink(partition, body);
  const answer = { data };
  if (key !== null && key !== '') engine.rememberIdempotent(partition, kind, key, fingerprint, answer);
  return json(201, answer);
}

function json(status: number, body: unknown, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { 'Content-Type': 'application/json', 'Cache-Control': 'no-store', ...headers },
  });
}

/** JSON with object keys sorted, so two bodies with the same content compare equal. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    v !== null && typeof v === 'object' && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : v,
  );
}
