/**
 * Reads the field `name` of a record the SDK returned (a payment, a checkout session, a page, an
 * event...). The service may add fields at any time, and the SDK keeps them on the object, but the
 * record's type lists only the fields the SDK knows, so that a misspelt name does not compile:
 * `payment.channel` is an error, `readField(payment, 'channel')` reads it.
 *
 * A field the type knows comes back with its type; any other field as `unknown`, to be checked
 * before use; a field the record does not have as `undefined`. Only the record's own fields are
 * read (never `constructor` or `toString` from its prototype).
 *
 * ```ts
 * import { type Payment, readField } from 'payments-sdk';
 *
 * declare const payment: Payment;
 * const channel = readField(payment, 'channel'); // unknown: a field the SDK does not type yet
 * if (typeof channel === 'string') console.log(channel);
 * const status = readField(payment, 'status'); // PaymentStatus, as payment.status
 * ```
 */
export function readField<T extends object, K extends string>(record: T, name: K): K extends keyof T ? T[K] : unknown {
  return (Object.hasOwn(record, name) ? (record as Record<string, unknown>)[name] : undefined) as K extends keyof T ? T[K] : unknown;
}
