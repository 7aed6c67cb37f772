/** `a string`, `an object`, `an integer`: a word with its indefinite article, for messages. */
export function withArticle(word: string): string {
  return `${/^[aeiou]/.test(word) ? 'an' : 'a'} ${word}`;
}

/** "an object", "a string", "null"...: what a value is, for messages (never the value itself). */
export function kind(value: unknown): string {
  if (value === null) return 'null';
  if (value === undefined) return 'nothing';
  if (Array.isArray(value)) return 'an array';
  if (value === '') return 'an empty string';
  return withArticle(typeof value);
}
