/**
 * The hand-written webhook checks `verifyWebhook` is timed against (bench/run.ts section 4,
 * bench/profile.ts), shared so that both time the same code.
 *
 * - `sameWorkVerifier`: the guard's reference, the work `verifyWebhook` does written directly on
 *   `node:crypto` and zod: the constant-time HMAC-SHA256 check of the raw body, `JSON.parse`, the
 *   X-Service-Event header against the body's `type`, then the event envelope `{ id, type, data }`
 *   checked as the SDK checks it (src/webhooks/events.ts): a loose object whose `id` is a non-empty
 *   string or a safe integer given back as text, whose `type` picks the schema, and whose `data` is
 *   checked by the SDK's own `PaymentSchema` or `PayoutSchema` from `payments-sdk/schemas`.
 *   What only the SDK does stays in its time: several secrets, headers in any case or repeated,
 *   ids beyond 2^53 kept exact, worded errors.
 * - `cryptoOnlyVerifier`: the HMAC check and `JSON.parse` alone, with no schema: for scale only.
 *
 * Each reads the signature header and decodes its hex on every delivery, as a real handler must.
 * Loaded like fixtures.ts: `await import(new URL('./webhook-reference.ts', import.meta.url).href)`.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { PaymentSchema, PayoutSchema } from 'payments-sdk/schemas';
import * as z from 'zod/mini';

/** Headers as Node hands them over: lowercase names. */
export type DeliveryHeaders = Record<string, string | undefined>;

function checkSignature(payload: string, headers: DeliveryHeaders, secret: string): void {
  const given = Buffer.from(headers['x-service-signature'] ?? '', 'hex');
  const mac = createHmac('sha256', secret).update(payload).digest();
  if (given.length !== mac.length || !timingSafeEqual(given, mac)) throw new Error('signature mismatch');
}

// The envelope as src/webhooks/events.ts builds it; zod/mini, as the SDK is.
const eventId = z
  .custom<string>((id) => (typeof id === 'string' && id !== '') || Number.isSafeInteger(id))
  .check(z.overwrite((id) => String(id)));
const paymentEvent = z.looseObject({
  id: eventId,
  type: z.custom<'payment.succeeded' | 'payment.failed'>((type) => type === 'payment.succeeded' || type === 'payment.failed'),
  data: PaymentSchema,
});
const payoutEvent = z.looseObject({
  id: eventId,
  type: z.custom<`payout.${string}`>((type) => typeof type === 'string' && type.startsWith('payout.')),
  data: PayoutSchema,
});

/** HMAC, `JSON.parse`, the event header, and the envelope and its `data` through the SDK's zod schemas. */
export function sameWorkVerifier(secret: string) {
  return async (payload: string, headers: DeliveryHeaders) => {
    checkSignature(payload, headers, secret);
    const body: unknown = JSON.parse(payload);
    if (typeof body !== 'object' || body === null || Array.isArray(body)) throw new Error('not an event object');
    const { type } = body as { type?: unknown };
    const announced = headers['x-service-event'];
    if (announced && typeof type === 'string' && announced !== type) throw new Error('event type mismatch');
    // The bench delivers payment and payout events only; a type the SDK does not know is not timed.
    const schema = type === 'payment.succeeded' || type === 'payment.failed' ? paymentEvent : payoutEvent;
    const result = schema.safeParse(body);
    if (!result.success) throw new Error('invalid event');
    return result.data;
  };
}

/** HMAC and `JSON.parse` only, nothing validated: lighter than `verifyWebhook`, for scale. */
export function cryptoOnlyVerifier(secret: string) {
  return async (payload: string, headers: DeliveryHeaders) => {
    checkSignature(payload, headers, secret);
    return JSON.parse(payload) as unknown;
  };
}
