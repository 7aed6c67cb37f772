/**
 * The Postgres URL a command reads from: `--database-url` or, by default, `PAYMENTS_DATABASE_URL`,
 * the same precedence as `--api-key` and `PAYMENTS_API_KEY`. The environment keeps the password out
 * of the process list, where a flag is visible to every user of the machine. The URL and its
 * password are never printed: an error met while using the database is reported with them redacted.
 */
import { redactSecrets, sanitizeError } from '../internal/redaction.js';

/** The environment variable holding the database URL. */
export const DATABASE_URL_VARIABLE = 'PAYMENTS_DATABASE_URL';

/** A database URL and where it came from, for messages that name the one to fix. */
export interface DatabaseUrl {
  url: string;
  source: '--database-url' | typeof DATABASE_URL_VARIABLE;
}

/** The URL from the flag when given, else from `PAYMENTS_DATABASE_URL` when set and not empty. */
export function databaseUrlFrom(flag: string | undefined): DatabaseUrl | undefined {
  if (flag !== undefined) return { url: flag, source: '--database-url' };
  const fromEnvironment = process.env[DATABASE_URL_VARIABLE];
  return fromEnvironment ? { url: fromEnvironment, source: DATABASE_URL_VARIABLE } : undefined;
}

/**
 * What of `url` must never be printed: the URL itself and its passwords, as written and decoded: the
 * one after `user:`, and a `password` query parameter (Postgres URLs take both).
 */
function secretsOf(url: string): string[] {
  const secrets = [url];
  const passwords: string[] = [];
  try {
    const parsed = new URL(url);
    passwords.push(parsed.password);
    // Already decoded by the parser; as written too, when it appears so.
    for (const value of parsed.searchParams.getAll('password')) secrets.push(value, encodeURIComponent(value));
  } catch {
    // Not a URL the WHATWG parser takes: read the password between `user:` and the last `@`.
    passwords.push(/^[^:]+:\/\/[^/?#]*?:(.*)@[^@]*$/.exec(url)?.[1] ?? '');
  }
  for (const password of passwords.filter(Boolean)) {
    secrets.push(password);
    try {
      secrets.push(decodeURIComponent(password));
    } catch {
      // A malformed escape: the password as written is already listed.
    }
  }
  // Longest first, so that a password inside the URL does not leave the rest of the URL behind.
  return [...new Set(secrets)].sort((a, b) => b.length - a.length);
}

/**
 * `error` with the database URL and its password taken out of its message, stack and causes (the
 * error itself when they hold neither). The driver and the server may echo parts of the URL, such as
 * a database name that is also the password.
 */
export function withoutDatabaseSecrets(error: unknown, url: string): unknown {
  const secrets = secretsOf(url);
  // An error that holds neither (the service's answer, a network failure) stays as it is: a
  // redacted copy is a plain Error, which would lose the HTTP status and cause its line shows.
  return holdsSecret(error, secrets) ? sanitizeError(error, secrets) : error;
}

/** Whether a string of `value` (its own properties and causes, a few levels deep) holds one of `secrets`. */
function holdsSecret(value: unknown, secrets: readonly string[], depth = 0): boolean {
  if (typeof value === 'string') return redactSecrets(value, secrets) !== value;
  if (typeof value !== 'object' || value === null || depth > 4) return false;
  const names = value instanceof Error ? ['message', 'stack', 'cause', ...Object.keys(value)] : Object.keys(value);
  return names.some((name) => holdsSecret((value as Record<string, unknown>)[name], secrets, depth + 1));
}
