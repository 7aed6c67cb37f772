/**
 * Typed webhook events and the checks that turn a verified body
 * into one.
 *
 * `data` is checked here without zod, which would more than double the size of
 * `payments-sdk/webhooks`. The check reads the same field tables (../schemas/fields.ts) that
 * `PaymentSchema` and `PayoutSchema` are built from, through ../schemas/field-check.ts: known fields
 * typed, money in integers, unknown fields and new enum values kept.
 *
 * @module
 */
import { type ValidationIssue, WebhookVerificationError } from '../core/errors.js';
import { formatIssues } from '../internal/format-issues.js';
import { isRecord } from '../internal/is-record.js';
import { isExactId } from '../internal/json.js';
import { collectIssues, kind } from '../schemas/field-check.js';
import { type FieldTable, PAYMENT_FIELDS, PAYOUT_FIELDS } from '../schemas/fields.js';
import type { Payment } from '../schemas/payment.js';
import type { Payout } from '../schemas/payout.js';

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

/** Checks `data` against a field table; returns one issue per bad field, paths under `data`. */
export function dataIssues(data: unknown, fields: FieldTable): ValidationIssue[] {
  if (!isRecord(data)) return [{ path: ['data'], message: `must be an object, got ${kind(data)}` }];
  const issues: ValidationIssue[] = [];
  collectIssues(data, fields, ['data'], issues);
  return issues;
}

/** A resource events carry: its field table, and its name in messages. Built once, not per event. */
interface EventResource {
  fields: FieldTable;
  name: string;
}
const PAYMENT_RESOURCE: EventResource = { fields: PAYMENT_FIELDS, name: 'a Payment' };
const PAYOUT_RESOURCE: EventResource = { fields: PAYOUT_FIELDS, name: 'a Payout' };

/** The resource of a type's `data`, or `undefined` for a type the SDK does not know (not validated). */
function resourceOf(type: string): EventResource | undefined {
  if (type === 'payment.succeeded' || type === 'payment.failed') return PAYMENT_RESOURCE;
  if (type.startsWith('payout.')) return PAYOUT_RESOURCE;
  return undefined;
}

function invalid(message: string): WebhookVerificationError {
  return new WebhookVerificationError('invalid_payload', `Invalid webhook payload: ${message}`);
}

/**
 * Builds the typed event from a parsed, signature-checked body. Throws `invalid_payload` when the
 * body is not `{ id, type, data }` or `data` does not match its resource.
 * `id` may be a string or a number (its type is not documented); a number is turned into its text,
 * so that deduplication keys and `event.id` are always strings. A number beyond 2^53 arrives here
 * as its exact digits (see `parseJson`), or is refused where the runtime cannot give them.
 */
export function toWebhookEvent(body: unknown): WebhookEvent | UnknownWebhookEvent {
  if (!isRecord(body)) {
    throw invalid(`the body must be a JSON object { id, type, data }, got ${kind(body)}.`);
  }
  const problems: string[] = [];
  const { id, type, data } = body;
  // A number id must be exact: beyond 2^53 two ids would read as one, and deduplication would then
  // drop a different event. The parser keeps such an id as its digits (a string) where it can.
  if (id === '' || !isExactId(id)) {
    problems.push(
      typeof id === 'number'
        ? `id: must be a string or a safe integer, got ${id} (this runtime cannot read it exactly)`
        : `id: must be a non-empty string or a number, got ${kind(id)}`,
    );
  }
  if (typeof type !== 'string' || type === '') problems.push(`type: must be a non-empty string, got ${kind(type)}`);
  if (data === undefined) problems.push('data: is required');
  if (problems.length > 0) throw invalid(`${problems.join('; ')} (an event is { id, type, data }).`);

  const eventId = String(id);
  const eventType = type as string;
  const resource = resourceOf(eventType);
  if (resource) {
    const issues = dataIssues(data, resource.fields);
    if (issues.length > 0) throw invalid(`data of a ${eventType} event must be ${resource.name}: ${formatIssues(issues)}.`);
  }
  return { id: eventId, type: eventType, data } as WebhookEvent;
}

export { kind };
