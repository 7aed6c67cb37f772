/** Webhook test pieces: secrets, event bodies, deliveries signed independently of the SDK. */
import { createHmac } from 'node:crypto';
import { payment } from './fixtures.js';

export const SECRET = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
export const OTHER_SECRET = 'whsec_0ldSecretBeforeRotation000000000';

/** A body as the service sends it (docs/service.md "Webhooks"): `{ id, type, data }`. */
export function eventBody(overrides: { id?: unknown; type?: string; data?: unknown } = {}): string {
  return JSON.stringify({
    id: 'evt_01JD3Z8Q4X5Y6Z7A8B9C0D1E2F',
    type: 'payment.succeeded',
    data: payment({ status: 'succeeded' }),
    ...overrides,
  });
}

/**
 * The signature computed independently of the SDK, with node:crypto: the SDK's Web Crypto code is
 * checked against it rather than against itself.
 */
export function nodeSignature(body: string | Uint8Array, secret = SECRET): string {
  return createHmac('sha256', secret).update(body).digest('hex');
}

/** Headers of a delivery of `body`: `X-Service-Event` and `X-Service-Signature` (docs/service.md "Webhooks"). */
export function deliveryHeaders(body: string, opts: { secret?: string; type?: string | null } = {}): Record<string, string> {
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    'x-service-signature': nodeSignature(body, opts.secret ?? SECRET),
  };
  const type = opts.type === undefined ? typeOf(body) : opts.type;
  if (type) headers['x-service-event'] = type;
  return headers;
}

function typeOf(body: string): string | undefined {
  try {
    const type = (JSON.parse(body) as { type?: unknown }).type;
    return typeof type === 'string' ? type : undefined;
  } catch {
    return undefined;
  }
}
