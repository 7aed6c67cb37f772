/**
 * Client settings read from text: the service root and the kind of key. Pure functions with no
 * dependency on the HTTP client, so the testing kit can share them without loading it.
 */
import { PaymentsError } from '../core/errors.js';

/** The version prefix of every path of the service. */
export const API_PREFIX = '/api/v1';

/** Which kind of key the client holds, read from the key's text (a live key names itself `live`). */
export type ClientMode = 'live' | 'sandbox' | 'unknown';

/** Normalises the service root: no trailing `/`, no trailing `/api/v1`, http(s) only. */
export function normalizeBaseUrl(raw: string): string {
  let url: URL;
  try {
    url = new URL(raw.trim());
  } catch {
    // The value is not quoted: when apiKey and baseUrl are swapped by mistake, it is the key.
    const swapped = raw.includes('://') ? '' : ' Are apiKey and baseUrl swapped?';
    throw new PaymentsError(
      `baseUrl must be an absolute http(s) URL such as "https://pay.example.com"; the value given (${raw.length} characters, not shown) is not one.${swapped}`,
    );
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    throw new PaymentsError(`baseUrl must use http or https, got ${JSON.stringify(url.protocol)}.`);
  }
  let path = url.pathname.replace(/\/+$/, '');
  if (path.endsWith(API_PREFIX)) path = path.slice(0, -API_PREFIX.length).replace(/\/+$/, '');
  return `${url.origin}${path}`;
}

/** Reads the key's kind from its text: `live` vs `test`/`sandbox`. */
export function modeOfKey(key: string): ClientMode {
  const lower = key.toLowerCase();
  const tokens = lower.split(/[^a-z0-9]+/);
  if (tokens.includes('live')) return 'live';
  if (tokens.includes('test') || tokens.includes('sandbox')) return 'sandbox';
  if (lower.includes('live')) return 'live';
  if (lower.includes('test') || lower.includes('sandbox')) return 'sandbox';
  return 'unknown';
}
