/** `a string`, `an object`, `an integer`: a word with its indefinite article, for messages. */
export function withArticle(word: string): string {
  return `${/^[aeiou]/.test(word) ? 'an' : 'a'} ${word}`;
}
