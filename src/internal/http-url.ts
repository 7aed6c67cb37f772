/** `true` for an absolute http(s) URL with a host, as the WHATWG URL parser (and so a browser) reads it. */
export function isHttpUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname !== '';
  } catch {
    return false;
  }
}
