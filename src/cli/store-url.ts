/**
 * The store a command works with: `--store` or, by default, `PAYMENTS_STORE_URL` (the same
 * precedence as `--api-key` and `PAYMENTS_API_KEY`; the environment keeps a password out of the
 * process list, where a flag is visible to every user of the machine). A file path opens a
 * `fileStore`; a `redis://` or `rediss://` URL a `redisStore` over node-redis or ioredis; a
 * `postgres://` or `postgresql://` URL a `postgresStore` over pg or postgres.js: whichever of the
 * drivers is installed, loaded only then. The URL and its password are never printed: an error met
 * while using the store is reported with them redacted.
 */
import { redactSecrets, sanitizeError } from '../internal/redaction.js';
import type { Store } from '../stores/store.js';
import { CliError, describeError, EXIT } from './exit-codes.js';

/** The environment variable holding the store's file path or URL. */
export const STORE_URL_VARIABLE = 'PAYMENTS_STORE_URL';

/** The scheme of a URL (`redis://…`); a file path has none. */
const SCHEME = /^([A-Za-z][A-Za-z0-9+.-]*):\/\//;

/** A store's file path or URL, and where it came from, for messages that name the one to fix. */
export interface StoreUrl {
  url: string;
  source: '--store' | typeof STORE_URL_VARIABLE;
}

/** What a store URL names. */
export type StoreTarget = { kind: 'file'; path: string } | { kind: 'redis'; url: string } | { kind: 'postgres'; url: string };

/** A store opened by a command, and how to close what was opened for it. */
export interface OpenedStore {
  store: Store<unknown, unknown>;
  target: StoreTarget;
  /** What to print about it: the file's path, or the kind and where the URL came from (never the URL). */
  shown: string;
  /** Closes the store and the connection opened for it. */
  close(): Promise<void>;
}

/** The store from the flag when given, else from `PAYMENTS_STORE_URL` when set and not empty. */
export function storeUrlFrom(flag: string | undefined): StoreUrl | undefined {
  if (flag !== undefined) return { url: flag, source: '--store' };
  const fromEnvironment = process.env[STORE_URL_VARIABLE];
  return fromEnvironment ? { url: fromEnvironment, source: STORE_URL_VARIABLE } : undefined;
}

/**
 * What `url` names: a Redis or Postgres URL by its scheme, a file path when it has no scheme (a
 * Windows drive letter is a path). Another scheme is a usage error that never quotes the URL.
 */
export function storeTargetOf({ url, source }: StoreUrl): StoreTarget {
  const scheme = SCHEME.exec(url)?.[1]?.toLowerCase();
  if (scheme === undefined) {
    if (url.trim() === '') throw new CliError(`${source} must not be empty.`);
    return { kind: 'file', path: url };
  }
  if (scheme === 'redis' || scheme === 'rediss') return { kind: 'redis', url };
  if (scheme === 'postgres' || scheme === 'postgresql') return { kind: 'postgres', url };
  throw new CliError(`${source} must be a file path, or a redis://, rediss://, postgres:// or postgresql:// URL (it has ${scheme}://).`);
}

/** Loads an optional driver; `undefined` when it is not installed. */
async function optional<T>(load: () => Promise<T>): Promise<T | undefined> {
  try {
    return await load();
  } catch (error) {
    const code = (error as { code?: string }).code;
    if (code === 'ERR_MODULE_NOT_FOUND' || code === 'MODULE_NOT_FOUND') return undefined;
    throw error;
  }
}

/**
 * Opens the store `url` names. A Postgres store's table is created when missing (`migrate()`, which
 * may run any number of times). A missing driver says which package to install. Errors never hold
 * the URL or its password.
 */
export async function openStore(storeUrl: StoreUrl): Promise<OpenedStore> {
  const target = storeTargetOf(storeUrl);
  try {
    return await openTarget(target, storeUrl.source);
  } catch (error) {
    if (error instanceof CliError) throw error;
    // One line that names the part that failed: the store, as given by the flag or the variable.
    throw new CliError(
      `the store (${storeUrl.source}) cannot be opened: ${describeError(withoutStoreSecrets(error, storeUrl.url))}`,
      EXIT.service,
    );
  }
}

async function openTarget(target: StoreTarget, source: StoreUrl['source']): Promise<OpenedStore> {
  const stores = await import('../stores/index.js');
  if (target.kind === 'file') {
    const store = stores.fileStore(target.path);
    return { store, target, shown: target.path, close: () => store.close() };
  }
  const shown = `${target.kind} (${source})`;
  /** The store over a connection opened for it: closing closes the store, then the connection. */
  const opened = (store: Store<unknown, unknown>, closeDriver: () => Promise<unknown>): OpenedStore => ({
    store,
    target,
    shown,
    close: async () => {
      await store.close?.();
      await closeDriver();
    },
  });
  if (target.kind === 'redis') {
    const nodeRedis = await optional(() => import('redis'));
    if (nodeRedis) {
      // A server that cannot be reached fails the command after a few tries, instead of retrying for ever.
      const client = nodeRedis.createClient({
        url: target.url,
        socket: { connectTimeout: 5000, reconnectStrategy: (retries, cause) => (retries >= 3 ? cause : 200 * (retries + 1)) },
      });
      // A connection the server drops is reconnected by the client: the store's call reports it.
      client.on('error', () => {});
      await client.connect();
      return opened(stores.redisStore(client), () => client.close());
    }
    const ioredis = await optional(() => import('ioredis'));
    if (!ioredis) throw new CliError(`${source} needs the redis or ioredis package, neither is installed: npm install redis`);
    const client = new ioredis.default(target.url, {
      lazyConnect: true,
      connectTimeout: 5000,
      maxRetriesPerRequest: 1,
      retryStrategy: (times) => (times > 3 ? null : 200 * times),
    });
    client.on('error', () => {});
    await client.connect();
    return opened(stores.redisStore(client), async () => client.disconnect());
  }
  const { postgresStore } = await import('../stores/postgres/store.js');
  const pg = await optional(() => import('pg'));
  if (pg) {
    const pool = new pg.default.Pool({ connectionString: target.url, max: 4, connectionTimeoutMillis: 10_000 });
    // An idle connection the server ends is replaced by the pool: nothing to report.
    pool.on('error', () => {});
    const store = postgresStore(pool);
    await store.migrate();
    return opened(store, () => pool.end());
  }
  const postgres = await optional(() => import('postgres'));
  if (!postgres) throw new CliError(`${source} needs the pg or postgres package, neither is installed: npm install pg`);
  const sql = postgres.default(target.url, { max: 4, onnotice: () => {} });
  const store = postgresStore(sql);
  await store.migrate();
  return opened(store, () => sql.end({ timeout: 1 }));
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
 * `error` with the store's URL and its password taken out of its message, stack and causes (the
 * error itself when they hold neither). The driver and the server may echo parts of the URL, such as
 * a database name that is also the password.
 */
export function withoutStoreSecrets(error: unknown, url: string): unknown {
  // A file path holds no secret, and names the file to fix.
  if (SCHEME.exec(url) === null) return error;
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
