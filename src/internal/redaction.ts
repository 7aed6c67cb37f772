/**
 * Secret redaction: the API key (and other credentials) taken out of whatever the SDK hands back or
 * logs: answer bodies and headers, error messages, error causes, log lines.
 */

const secretHeaders = new Set(['authorization', 'cookie', 'set-cookie', 'x-service-signature']);

/** A plain copy of headers for logs, with `Authorization` (and other credentials) redacted. */
export function redactHeaders(headers: Headers): Record<string, string> {
  const out: Record<string, string> = {};
  headers.forEach((value, key) => {
    out[key] = secretHeaders.has(key.toLowerCase()) ? '[redacted]' : value;
  });
  return out;
}

/** Replaces every occurrence of each secret in `text` (defence in depth for messages built from input). */
export function redactSecrets(text: string, secrets: readonly string[]): string {
  let out = text;
  // `includes` first: split + join copies the whole text (43 KB per page of 100 payments) even when
  // the secret is not in it, which is almost always.
  for (const secret of secrets) if (secret.length >= 4 && out.includes(secret)) out = out.split(secret).join('[redacted]');
  return out;
}

/**
 * Redacts every secret from every string of a parsed JSON value, in place (the value is the SDK's
 * own, freshly parsed): values and property names alike, since a service may echo the key as a
 * name (`{"sk_live_…": ["is not a valid key"]}`). Returns the value, or the redacted string when it
 * is one.
 */
export function redactDeep(value: unknown, secrets: readonly string[]): unknown {
  if (typeof value === 'string') return redactSecrets(value, secrets);
  if (typeof value !== 'object' || value === null) return value;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) value[i] = redactDeep(value[i], secrets);
    return value;
  }
  const record = value as Record<string, unknown>;
  const keys = Object.keys(record);
  const renamed = keys.some((key) => redactSecrets(key, secrets) !== key);
  for (const key of keys) {
    const redacted = redactDeep(record[key], secrets);
    if (renamed) delete record[key];
    // defineProperty, not `=`: a `__proto__` member of parsed JSON is an own property, which `=` would not write.
    // With a name renamed, every member is written again, in its order.
    if (renamed || redacted !== record[key]) {
      const name = renamed ? redactSecrets(key, secrets) : key;
      Object.defineProperty(record, name, { value: redacted, writable: true, enumerable: true, configurable: true });
    }
  }
  return value;
}

/** Own properties of an error that diagnose it and are kept in a sanitised copy. */
const diagnostic = new Set(['name', 'message', 'stack', 'cause', 'code', 'errno', 'syscall', 'address', 'port']);

/**
 * An error safe to keep as a `cause`: the error itself when its message and stack hold no secret and
 * it carries nothing but diagnostics; else a copy with those diagnostics only, secrets redacted.
 * undici's `HTTPParserError` keeps the raw answer bytes in `data`, where an echoed key would sit:
 * such members are dropped. Causes are sanitised the same way, a few levels deep.
 */
export function sanitizeError(error: unknown, secrets: readonly string[], depth = 0): unknown {
  if (!(error instanceof Error) || depth > 4) return error;
  const cause = 'cause' in error ? sanitizeError(error.cause, secrets, depth + 1) : undefined;
  const clean =
    Object.getOwnPropertyNames(error).every((key) => diagnostic.has(key)) &&
    redactSecrets(`${error.message}\n${error.stack ?? ''}`, secrets) === `${error.message}\n${error.stack ?? ''}` &&
    cause === (error as { cause?: unknown }).cause;
  if (clean) return error;
  const Kind = error instanceof TypeError ? TypeError : Error;
  const copy = new Kind(redactSecrets(error.message, secrets), 'cause' in error ? { cause } : undefined);
  Object.defineProperty(copy, 'name', { value: error.name, writable: true, configurable: true });
  copy.stack = redactSecrets(error.stack ?? '', secrets);
  const fields = error as unknown as Record<string, unknown>;
  for (const key of ['code', 'errno', 'syscall', 'address', 'port']) {
    const value = fields[key];
    if (typeof value === 'string') Object.assign(copy, { [key]: redactSecrets(value, secrets) });
    else if (typeof value === 'number') Object.assign(copy, { [key]: value });
  }
  return copy;
}
