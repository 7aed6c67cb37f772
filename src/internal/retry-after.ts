/**
 * The shapes of an HTTP-date (RFC 9110 §5.6.7): IMF-fixdate (`Sun, 06 Nov 1994 08:49:37 GMT`), and
 * the obsolete RFC 850 (`Sunday, 06-Nov-94 08:49:37 GMT`) and asctime (`Sun Nov  6 08:49:37 1994`).
 */
const HTTP_DATE = /^[A-Z][a-z]{2}([a-z]*, [\d A-Za-z-]+ \d\d:\d\d:\d\d GMT| [A-Z][a-z]{2} [ \d]\d \d\d:\d\d:\d\d \d{4})$/;

/**
 * Parses a `Retry-After` value into seconds (≥ 0): delta-seconds (digits only) or an HTTP-date.
 * Anything else (`-5`, `1.5`, `1 2`, a free-form date) is `undefined`, so the backoff applies: a
 * lenient date parser would read `-5` as a date in 2001, that is, no wait at all.
 */
export function parseRetryAfter(value: string | null | undefined, now = Date.now()): number | undefined {
  const trimmed = value?.trim() ?? '';
  if (/^\d+$/.test(trimmed)) return Number(trimmed);
  if (!HTTP_DATE.test(trimmed)) return undefined;
  // A value of that shape may still be no date (`Sun, 99 Feb 1994 …`): Date.parse says NaN.
  const date = Date.parse(trimmed);
  return Number.isNaN(date) ? undefined : Math.max(0, Math.ceil((date - now) / 1000));
}
