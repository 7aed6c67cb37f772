/**
 * Secret redaction: the API key (and other credentials) taken out of whatever the SDK hands back or
 * logs: answer bodies and headers, error messages, error causes, log lines.
 */

/**
 * Names (of a header or a field) that hold a credential, wherever the word sits in the name:
 * `Authorization`, `Cookie`, `X-Service-Signature`, `token`, `api_key`, `webhookSecret`…
 */
export const CREDENTIAL_NAME = /secret|password|token|api_?key|authorization|signature|cookie/i;

/** A plain copy of headers for logs, with `Authorization` (and other credentials) redacted. */
export function redactHeaders(headers: Headers): Record<string, string> {
  const out: Record<string, string> = {};
  headers.forEach((value, key) => {
    out[key] = CREDENTIAL_NAME.test(key) ? '[redacted]' : value;
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
  const record = value as Record<string, unknown>;
  const keys = Object.keys(record);
  // An array's indexes are never renamed.
  const renamed = !Array.isArray(value) && keys.some((key) => redactSecrets(key, secrets) !== key);
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

/** Members of an error that diagnose it: a sanitised copy keeps these (and its cause), secrets redacted. */
const DIAGNOSTIC = ['name', 'message', 'stack', 'code', 'errno', 'syscall', 'address', 'port'];

/**
 * An error safe to keep as a `cause`: the error itself when its diagnostics hold no secret and it
 * carries nothing else; else a copy with those diagnostics only, secrets redacted. undici's
 * `HTTPParserError` keeps the raw answer bytes in `data`, where an echoed key would sit: such
 * members are dropped. Causes are sanitised the same way, a few levels deep.
 */
export function sanitizeError(error: unknown, secrets: readonly string[], depth = 0): unknown {
  if (!(error instanceof Error) || depth > 4) return error;
  const cause = sanitizeError(error.cause, secrets, depth + 1);
  const copy = new (error instanceof TypeError ? TypeError : Error)('', 'cause' in error ? { cause } : undefined);
  let clean = cause === error.cause && Object.getOwnPropertyNames(error).every((key) => key === 'cause' || DIAGNOSTIC.includes(key));
  for (const key of DIAGNOSTIC) {
    const value: unknown = Reflect.get(error, key);
    if (typeof value !== 'string' && typeof value !== 'number') continue;
    const kept = redactDeep(value, secrets);
    clean &&= kept === value;
    Object.assign(copy, { [key]: kept });
  }
  return clean ? error : copy;
}
