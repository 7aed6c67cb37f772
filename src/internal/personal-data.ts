/**
 * What the debug log may show of a body: customers' personal data (phone numbers, e-mails, names)
 * and secrets masked, by field name and, in any text, by shape (an e-mail address, a long run of
 * digits such as a phone number). Only the logger uses it, and only at `'debug'`.
 */
import { CREDENTIAL_NAME, redactSecrets } from './redaction.js';

/**
 * Field names that hold a customer's identity, wherever the word sits in the name (`phone`,
 * `payer_email`, `customerName`, `first_name`, `msisdn`…).
 */
const PERSONAL = /phone|msisdn|mobile|e-?mail|name|address|birth|national/i;

/** An e-mail address anywhere in a text. */
const EMAIL = /[^\s@"'<>(),;:]+@[^\s@"'<>(),;:]+\.[a-z]{2,}/gi;
/**
 * Eight digits or more, alone or split by single spaces, with an optional `+`: a phone or account
 * number. Not across dashes or colons: a date or a time (`2026-06-01T08:00:00Z`) is not one.
 */
const DIGITS = /\+?\d(?: ?\d){7,}/g;
/** A UUID, the service's identifiers: left as they are, they are what makes a log line useful. */
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** A text with e-mail addresses, long digit runs and the secrets masked. */
export function maskText(text: string, secrets: readonly string[] = []): string {
  const redacted = redactSecrets(text, secrets);
  if (UUID.test(redacted)) return redacted;
  return redacted.replace(EMAIL, '[email]').replace(DIGITS, '[number]');
}

/**
 * A copy of a parsed JSON value for the log: the values of personal fields become `'[masked]'`,
 * those of credential fields `'[redacted]'`, and every other text goes through {@link maskText}.
 */
export function maskPersonalData(value: unknown, secrets: readonly string[] = []): unknown {
  if (typeof value === 'string') return maskText(value, secrets);
  if (typeof value !== 'object' || value === null) return value;
  if (Array.isArray(value)) return value.map((item) => maskPersonalData(item, secrets));
  // No prototype: a `__proto__` member of parsed JSON is written as a member like any other.
  const out: Record<string, unknown> = Object.create(null);
  for (const [key, item] of Object.entries(value)) {
    out[maskText(key, secrets)] =
      item == null ? item : CREDENTIAL_NAME.test(key) ? '[redacted]' : PERSONAL.test(key) ? '[masked]' : maskPersonalData(item, secrets);
  }
  return out;
}
