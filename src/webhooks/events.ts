/**
 * Typed webhook events and the check that turns a verified body into one. An event is checked with
 * the zod schemas the client reads responses with (`data` of a payment event by `PaymentSchema`,
 * of a payout event by `PayoutSchema`): known fields typed, money in integers, unknown fields and
 * new enum values kept.
 *
 * @module
 */
import * as z from 'zod/mini';
import { WebhookVerificationError } from '../core/errors.js';
import { kind } from '../internal/article.js';
import { formatIssues } from '../internal/format-issues.js';
import { isExactId } from '../internal/json.js';
import { SDK_WORDS, toIssues } from '../internal/zod-issues.js';
import { type Payment, PaymentSchema } from '../schemas/payment.js';
import { type Payout, PayoutSchema } from '../schemas/payout.js';
import type { KnownFields, Proof, Same } from '../schemas/primitives.js';

/** The event types whose `data` is a {@link Payment}. */
export type PaymentEventType = 'payment.succeeded' | 'payment.failed';

/**
 * The event types whose `data` is a {@link Payout}. The service does not list its payout event types,
 * so every `payout.` type is one.
 */
export type PayoutEventType = `payout.${string}`;

/** Every event type this version of the SDK knows how to type. */
export type KnownWebhookEventType = PaymentEventType | PayoutEventType;

/** `payment.succeeded` or `payment.failed`: `data` is the {@link Payment} whose status changed. */
export interface PaymentWebhookEvent<T extends PaymentEventType = PaymentEventType> {
  /** Event identifier. Deliveries may repeat: deduplicate on it. */
  id: string;
  /** `payment.succeeded` (a pending payment was confirmed) or `payment.failed` (`failure_reason` is set). */
  type: T;
  /** The payment, as `payments.retrieve` would return it. */
  data: Payment;
  /**
   * `true` only on an event made up by `client.payments.reconcile({ store, onEvent })` for a payment
   * whose delivery was lost; its `id` is then `reconciled:<payment uuid>:<type>`. A delivery from
   * the service never has it: the SDK drops a `reconciled` field from a delivered body.
   */
  reconciled?: true;
}

/** A `payout.*` event: `data` is the {@link Payout} whose status changed. */
export interface PayoutWebhookEvent<T extends PayoutEventType = PayoutEventType> {
  /** Event identifier. Deliveries may repeat: deduplicate on it. */
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

/**
 * An event id: a non-empty string, or a number that is a safe integer, given back as its text so that
 * deduplication keys and `event.id` are always strings. A number beyond 2^53 arrives here as its
 * exact digits (see `parseJson`), or is refused where the runtime cannot give them: two ids read as
 * one would make deduplication drop a different event.
 */
const eventId = z
  .custom<string>((id) => id !== '' && isExactId(id), {
    error: (issue) =>
      typeof issue.input === 'number'
        ? `must be a string or a safe integer, got ${issue.input} (this runtime cannot read it exactly)`
        : `must be a non-empty string or a number, got ${kind(issue.input)}`,
  })
  .check(z.overwrite((id) => String(id)));

// The `type` of a payment or payout event is not checked again: schemaOf picks these schemas by it.
const paymentEventObject = z.looseObject({
  id: eventId,
  type: z.custom<PaymentEventType>(),
  data: PaymentSchema,
});

const payoutEventObject = z.looseObject({
  id: eventId,
  type: z.custom<PayoutEventType>(),
  data: PayoutSchema,
});

const unknownEventObject = z.looseObject({
  id: eventId,
  type: z.string().check(z.minLength(1)),
  data: z.custom<unknown>((data) => data !== undefined, { error: 'is required' }),
});

// biome-ignore lint/correctness/noUnusedVariables: a compile-time proof, checked by tsc: the event types list exactly the fields their schemas check.
type EventsMatchSchemas = Proof<
  [
    // `reconciled` is the SDK's own flag, never read from a delivery.
    Same<Omit<PaymentWebhookEvent, 'reconciled'>, KnownFields<z.output<typeof paymentEventObject>>>,
    Same<PayoutWebhookEvent, KnownFields<z.output<typeof payoutEventObject>>>,
    Same<UnknownWebhookEvent, KnownFields<z.output<typeof unknownEventObject>>>,
  ] extends [true, true, true]
    ? true
    : false
>;

/** The schema of an event of `type`, and the name of its `data` in messages. */
function schemaOf(type: unknown): { schema: z.ZodMiniType<object>; name?: string } {
  if (type === 'payment.succeeded' || type === 'payment.failed') return { schema: paymentEventObject, name: 'a Payment' };
  if (typeof type === 'string' && type.startsWith('payout.')) return { schema: payoutEventObject, name: 'a Payout' };
  return { schema: unknownEventObject };
}

/** An `invalid_payload` failure: the signed body is not a webhook event. */
export function invalidPayload(message: string): WebhookVerificationError {
  return new WebhookVerificationError('invalid_payload', `Invalid webhook payload: ${message}`);
}

/**
 * Builds the typed event from a parsed, signature-checked body. Throws `invalid_payload` when the
 * body is not `{ id, type, data }` or `data` does not match its resource. Unknown fields, of the
 * event and of its `data`, are kept.
 * `id` may be a string or a number (its type is not documented); a number is turned into its text.
 */
export function toWebhookEvent(body: unknown): WebhookEvent | UnknownWebhookEvent {
  const { type, data } = (body ?? {}) as { type?: unknown; data?: unknown };
  const { schema, name } = schemaOf(type);
  const result = schema.safeParse(body, SDK_WORDS);
  if (result.success) {
    // Only events made up by reconciliation are flagged: whatever a delivered body says is dropped.
    if ('reconciled' in result.data) delete (result.data as { reconciled?: unknown }).reconciled;
    return result.data as WebhookEvent | UnknownWebhookEvent;
  }
  const issues = toIssues(result.error.issues, body);
  // The event itself first: a body that is no object, a problem with `id` or `type`, or a missing `data`.
  const outer = issues.filter((issue) => issue.path[0] !== 'data' || data === undefined);
  if (outer.length > 0) throw invalidPayload(`${formatIssues(outer)} (an event is a JSON object { id, type, data }).`);
  throw invalidPayload(`data of a ${String(type)} event must be ${name}: ${formatIssues(issues)}.`);
}
