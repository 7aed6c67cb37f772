/**
 * `true` for an absolute http(s) URL with a host, as the WHATWG URL parser (and so a browser) reads
 * it, written exactly as that parser keeps it: no leading or trailing space, and no tab, line break
 * or other control character, which the parser would drop without a word.
 */
export function isHttpUrl(value: string): boolean {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is refused.
  if (value !== value.trim() || /[\u0000-\u001f\u007f]/.test(value)) return false;
  try {
    const url = new URL(value);
    // The parser refuses an http(s) URL without a host: its hostname is never empty.
    return url.protocol === 'http:' || url.protocol === 'https:';
  } catch {
    return false;
  }
}
