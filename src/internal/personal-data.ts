/**
 * What the debug log may show of a body: customers' personal data (phone numbers, e-mails, names)
 * and secrets masked, by field name and, in any text, by shape (an e-mail address, a long run of
 * digits such as a phone number). Only the logger uses it, and only at `'debug'`.
 */
import { isRecord } from './is-record.js';
import { redactSecrets } from './redaction.js';

/** A field name reduced to its letters and digits, lower case: `payer_email`, `payerEmail` → `payeremail`. */
function plain(name: string): string {
  return name.toLowerCase().replace(/[^a-z0-9]/g, '');
}

/** Field names (reduced) that hold a customer's identity, whatever comes before them (`payer_`, `customer_`…). */
const PERSONAL = /(phone|phonenumber|msisdn|mobile|mobilenumber|email|emailaddress|name|surname|address|dateofbirth|birthdate|nationalid)$/;
/** Field names (reduced) that hold a credential. */
const SECRET = /(secret|password|token|apikey|authorization|signature)$/;

/** An e-mail address anywhere in a text. */
const EMAIL = /[^\s@"'<>(),;:]+@[^\s@"'<>(),;:]+\.[a-z]{2,}/gi;
/**
 * Eight digits or more, alone or split by single spaces or dots, with an optional `+`: a phone or
 * account number. Not dashes: a date (`2026-06-01`) would read as one.
 */
const DIGITS = /\+?\d(?:[ .]?\d){7,}/g;
/** A UUID, the service's identifiers: left as they are, they are what makes a log line useful. */
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** An ISO 8601 date or time: its digits are not a phone number. */
const TIMESTAMP = /^\d{4}-\d{2}-\d{2}([T ][\d:.]+(Z|[+-]\d{2}:?\d{2})?)?$/;

/** A text with e-mail addresses, long digit runs and the secrets masked. */
export function maskText(text: string, secrets: readonly string[] = []): string {
  const redacted = redactSecrets(text, secrets);
  if (UUID.test(redacted) || TIMESTAMP.test(redacted)) return redacted;
  return redacted.replace(EMAIL, '[email]').replace(DIGITS, '[number]');
}

/**
 * A copy of a parsed JSON value for the log: the values of personal fields become `'[masked]'`,
 * those of credential fields `'[redacted]'`, and every other text goes through {@link maskText}.
 * Deep, bounded: past 20 levels a value is left out.
 */
export function maskPersonalData(value: unknown, secrets: readonly string[] = [], depth = 0): unknown {
  if (typeof value === 'string') return maskText(value, secrets);
  if (typeof value !== 'object' || value === null) return value;
  if (depth > 20) return '[…]';
  if (Array.isArray(value)) return value.map((item) => maskPersonalData(item, secrets, depth + 1));
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) {
    const name = plain(key);
    const masked =
      item === null || item === undefined
        ? item
        : SECRET.test(name)
          ? '[redacted]'
          : PERSONAL.test(name)
            ? '[masked]'
            : maskPersonalData(item, secrets, depth + 1);
    Object.defineProperty(out, maskText(key, secrets), { value: masked, enumerable: true, writable: true, configurable: true });
  }
  return out;
}

/** A body as JSON text (a request's, an answer's), masked for the log: the parsed value, or the text masked when it is not JSON. */
export function maskedBody(text: string | undefined, secrets: readonly string[]): unknown {
  if (text === undefined || text === '') return undefined;
  try {
    return maskPersonalData(JSON.parse(text), secrets);
  } catch {
    return maskText(text.length > 2_000 ? `${text.slice(0, 2_000)}…` : text, secrets);
  }
}

/** The field paths of a refusal's `errors` member, masked as any text, without its messages. */
export function errorFields(errors: unknown): string[] {
  return isRecord(errors) ? Object.keys(errors).map((field) => maskText(field)) : [];
}
