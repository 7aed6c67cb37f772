/**
 * Webhook deliveries as the service sends them: a `POST` with a JSON body
 * `{ id, type, data }`, `X-Service-Event` = the type, and `X-Service-Signature` = lowercase hex
 * HMAC-SHA256 of the raw body keyed with the whole `whsec_…` secret, made by the
 * SDK's own `signWebhookPayload` so the kit and the verifier cannot drift apart.
 */
import { signWebhookPayload } from '../webhooks/sign.js';
import { MockServiceError } from './mock-errors.js';

/**
 * Headers of a delivery. A type alias, not an interface, so it can be passed
 * wherever a headers record is accepted (`verifyWebhook({ headers })`).
 */
export type WebhookDeliveryHeaders = {
  readonly 'Content-Type': 'application/json';
  /** The event type. */
  readonly 'X-Service-Event': string;
  /** Lowercase hex HMAC-SHA256 of `body`, keyed with the whole webhook secret. */
  readonly 'X-Service-Signature': string;
};

/** A signed webhook delivery, ready to POST to your endpoint. */
export interface WebhookDelivery<E = { id: string; type: string; data: unknown }> {
  /** `Content-Type`, `X-Service-Event` and `X-Service-Signature`. */
  readonly headers: WebhookDeliveryHeaders;
  /** The raw body, exactly the bytes that were signed. Verify this, never a re-serialised object. */
  readonly body: string;
  /** The event the body holds, parsed, for assertions. */
  readonly event: E;
}

/** Where a delivery goes: a fetch-style handler (`webhookHandler(...)`, a Hono app's `fetch`…) or a URL on 127.0.0.1. */
export type WebhookTarget = ((request: Request) => Response | Promise<Response>) | string | URL;

/** Options of `mock.deliver()`. */
export interface DeliverOptions {
  /**
   * Where a handler target receives the delivery: a path (`'/webhooks/payments'`, on
   * `http://localhost`) or a whole URL. Default `http://localhost/webhooks`. Set it to your route:
   * an app that routes on the path (Hono, a router) answers 404 elsewhere.
   */
  url?: string;
  /** Extra or replacing headers, e.g. to test a tampered signature. */
  headers?: Record<string, string>;
  /** Replaces the body (the signature stays the original's), to test that your endpoint refuses it. */
  body?: string;
  /** Aborts the delivery (a URL target's request; a handler receives it as the request's signal). */
  signal?: AbortSignal;
}

/** Signs an event with `secret` into a delivery. */
export async function signDelivery<E extends { type: string }>(event: E, secret: string): Promise<WebhookDelivery<E>> {
  const body = JSON.stringify(event);
  const signature = await signWebhookPayload(body, secret);
  return Object.freeze({
    headers: Object.freeze({
      'Content-Type': 'application/json' as const,
      'X-Service-Event': event.type,
      'X-Service-Signature': signature,
    }),
    body,
    event,
  });
}

/**
 * POSTs a delivery into a fetch-style handler, or to a URL on the loopback interface. Any other
 * host is refused: a test kit must never send signed payloads off the machine.
 */
export async function deliverWebhook(
  delivery: WebhookDelivery<unknown>,
  target: WebhookTarget,
  options: DeliverOptions = {},
): Promise<Response> {
  if (!delivery || typeof delivery.body !== 'string' || typeof delivery.headers !== 'object') {
    throw new MockServiceError(
      'deliver(delivery, target): delivery must be what an action returned ({ headers, body }). Actions without an event return null.',
    );
  }
  // Overrides replace a header whatever its case: spreading objects would keep both spellings, and
  // Headers would join them ("<good>, bad"), so a "tampered" signature could still verify.
  const headers = new Headers(delivery.headers);
  for (const [name, value] of Object.entries(options.headers ?? {})) headers.set(name, value);
  const init: RequestInit = { method: 'POST', headers, body: options.body ?? delivery.body, signal: options.signal };
  if (typeof target === 'function') {
    return target(new Request(new URL(options.url ?? '/webhooks', 'http://localhost'), init));
  }
  const url = loopbackUrl(target, 'deliver()');
  // `manual`: a redirect must not carry the delivery to another host.
  return fetch(url, { ...init, redirect: 'manual' });
}

/**
 * The URL of a delivery target given as a URL, checked to be http(s) on the loopback interface:
 * a test kit must never send signed payloads off the machine. `label` names the caller in the error.
 */
export function loopbackUrl(target: string | URL, label: string): URL {
  let url: URL;
  try {
    url = new URL(String(target));
  } catch {
    throw new MockServiceError(`${label}: ${JSON.stringify(String(target))} is not a URL.`);
  }
  if ((url.protocol !== 'http:' && url.protocol !== 'https:') || !isLoopback(url.hostname)) {
    throw new MockServiceError(`${label}: refusing ${url.protocol}//${url.host}: the mock only delivers to 127.0.0.1, localhost or [::1].`);
  }
  return url;
}

/** `true` for `localhost`, `127.0.0.0/8` and `[::1]`. */
export function isLoopback(hostname: string): boolean {
  const host = hostname.toLowerCase();
  if (host === 'localhost' || host === '[::1]' || host === '::1') return true;
  const parts = host.split('.');
  return parts.length === 4 && parts[0] === '127' && parts.every((octet) => /^\d{1,3}$/.test(octet) && Number(octet) <= 255);
}
