/**
 * Text without a lone UTF-16 surrogate: what a URL, UTF-8 (Redis, PostgreSQL) and a store key can
 * carry as it is. `String#isWellFormed` exists in every runtime the SDK supports (Node 20+), but is
 * typed from ES2024 on and the SDK's types stop at ES2023.
 */
export function isWellFormed(text: string): boolean {
  return (text as string & { isWellFormed(): boolean }).isWellFormed();
}

/** `text` as `~` and the hex of its UTF-16 code units: any text, lone surrogates included, as plain ASCII. */
export function hexText(text: string): string {
  let hex = '~';
  for (let i = 0; i < text.length; i++) hex += text.charCodeAt(i).toString(16).padStart(4, '0');
  return hex;
}
