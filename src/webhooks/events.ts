/**
 * Typed webhook events (service-api.md §2.6, §6.2, §6.3) and the checks that turn a verified body
 * into one. Only `zod/mini` schemas are imported here: this file is part of `payments-sdk/webhooks`,
 * which must stay small and never load the HTTP client.
 *
 * @module
 */
import { formatIssues, isRecord, WebhookVerificationError } from '../core/errors.js';
import { toIssues } from '../internal/validation.js';
import { type Payment, PaymentSchema } from '../schemas/payment.js';
import { type Payout, PayoutSchema } from '../schemas/payout.js';
import type { z } from '../schemas/shared.js';

/** The event types whose `data` is a {@link Payment} (service-api.md §6.3). */
export type PaymentEventType = 'payment.succeeded' | 'payment.failed';

/**
 * The event types whose `data` is a {@link Payout}. The service names no payout event yet
 * (service-api.md §6.3: "including the `payout.*` types: not shown"), so every `payout.` type is one.
 */
export type PayoutEventType = `payout.${string}`;

/** Every event type this version of the SDK knows how to type. */
export type KnownWebhookEventType = PaymentEventType | PayoutEventType;

/** `payment.succeeded` or `payment.failed`: `data` is the {@link Payment} whose status changed. */
export interface PaymentWebhookEvent<T extends PaymentEventType = PaymentEventType> {
  /** Event identifier. Deliveries may repeat (service-api.md §6.4): deduplicate on it. */
  id: string;
  /** `payment.succeeded` (a pending payment was confirmed) or `payment.failed` (`failure_reason` is set). */
  type: T;
  /** The payment, as `payments.retrieve` would return it. */
  data: Payment;
}

/** A `payout.*` event: `data` is the {@link Payout} whose status changed. */
export interface PayoutWebhookEvent<T extends PayoutEventType = PayoutEventType> {
  /** Event identifier. Deliveries may repeat (service-api.md §6.4): deduplicate on it. */
  id: string;
  /** `payout.` followed by the new state (the names are not documented yet). */
  type: T;
  /** The payout, as `payouts.retrieve` would return it. */
  data: Payout;
}

/**
 * An event whose `type` this version of the SDK does not know yet (the service may add types at any
 * time). It is returned as it came, never refused: update the SDK to get it typed.
 *
 * It is not a member of {@link WebhookEvent}: a member with `type: string` would stop
 * `switch (event.type)` from narrowing `data` for the known types. So an event of a new type
 * arrives in the `default:` branch of such a switch; acknowledge it there, never throw.
 */
export interface UnknownWebhookEvent {
  /** Event identifier. */
  id: string;
  /** The type as the service sent it. */
  type: string;
  /** Not validated. */
  data: unknown;
}

/**
 * A verified webhook event, discriminated on `type`:
 *
 * ```ts
 * switch (event.type) {
 *   case 'payment.succeeded': fulfil(event.data.uuid); break;   // event.data: Payment
 *   case 'payment.failed': notify(event.data.failure_reason); break;
 *   default: if (event.type.startsWith('payout.')) track(event.data); // Payout
 * }
 * ```
 * An event of a type the SDK does not know yet is still returned (see {@link UnknownWebhookEvent}).
 */
export type WebhookEvent = PaymentWebhookEvent<'payment.succeeded'> | PaymentWebhookEvent<'payment.failed'> | PayoutWebhookEvent;

/** The event of a given type: `WebhookEventOf<'payment.failed'>` is a {@link PaymentWebhookEvent}. */
export type WebhookEventOf<T extends string> = T extends PaymentEventType
  ? PaymentWebhookEvent<T>
  : T extends PayoutEventType
    ? PayoutWebhookEvent<T>
    : UnknownWebhookEvent;

/** Schema of `data` for a type, or `undefined` for a type the SDK does not know (not validated). */
function dataSchemaOf(type: string): z.ZodMiniType<unknown> | undefined {
  if (type === 'payment.succeeded' || type === 'payment.failed') return PaymentSchema;
  if (type.startsWith('payout.')) return PayoutSchema;
  return undefined;
}

function invalid(message: string): WebhookVerificationError {
  return new WebhookVerificationError('invalid_payload', `Invalid webhook payload: ${message}`);
}

/**
 * Builds the typed event from a parsed, signature-checked body. Throws `invalid_payload` when the
 * body is not `{ id, type, data }` (service-api.md §2.6) or `data` does not match its resource.
 * `id` may be a string or a number (its type is not documented); a number is turned into its text,
 * so that deduplication keys and `event.id` are always strings.
 */
export function toWebhookEvent(body: unknown): WebhookEvent | UnknownWebhookEvent {
  if (!isRecord(body)) {
    throw invalid(`the body must be a JSON object { id, type, data }, got ${describe(body)} (service-api.md §2.6).`);
  }
  const problems: string[] = [];
  const { id, type, data } = body;
  const idOk = (typeof id === 'string' && id !== '') || (typeof id === 'number' && Number.isFinite(id));
  if (!idOk) problems.push(`id: must be a non-empty string, got ${describe(id)}`);
  if (typeof type !== 'string' || type === '') problems.push(`type: must be a non-empty string, got ${describe(type)}`);
  if (data === undefined) problems.push('data: is required');
  if (problems.length > 0) throw invalid(`${problems.join('; ')} (an event is { id, type, data }, service-api.md §2.6).`);

  const eventId = String(id);
  const eventType = type as string;
  const schema = dataSchemaOf(eventType);
  if (!schema) return { id: eventId, type: eventType, data };
  const result = schema.safeParse(data);
  if (!result.success) {
    const issues = toIssues(result.error.issues, data).map((issue) => ({ ...issue, path: ['data', ...issue.path] }));
    const what = eventType.startsWith('payout.') ? 'a Payout' : 'a Payment';
    throw invalid(`data of a ${eventType} event must be ${what}: ${formatIssues(issues)}.`);
  }
  return { id: eventId, type: eventType, data: result.data } as WebhookEvent;
}

/** "an object", "a string", "null"...: what a value is, for messages (never the value itself). */
export function describe(value: unknown): string {
  if (value === null) return 'null';
  if (value === undefined) return 'nothing';
  if (Array.isArray(value)) return 'an array';
  if (value === '') return 'an empty string';
  const type = typeof value;
  return `${/^[aeiou]/.test(type) ? 'an' : 'a'} ${type}`;
}
