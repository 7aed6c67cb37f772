/**
 * The Postgres URL a command reads from: `--database-url` or, by default, `PAYMENTS_DATABASE_URL`,
 * the same precedence as `--api-key` and `PAYMENTS_API_KEY`. The environment keeps the password out
 * of the process list, where a flag is visible to every user of the machine. The URL and its
 * password are never printed: an error met while using the database is reported with them redacted.
 */
import { withoutStoreSecrets } from './store-url.js';

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
 * `error` with the database URL and its password taken out of its message, stack and causes (the
 * error itself when they hold neither): the redaction of store URLs (store-url.ts).
 */
export function withoutDatabaseSecrets(error: unknown, url: string): unknown {
  return withoutStoreSecrets(error, url);
}
