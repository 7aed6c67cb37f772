/** Quoting for lines a merchant pastes into a POSIX shell (the mock's `export` lines, copy-as-curl). */

/** `value` as one POSIX shell word: as it is when it holds only safe characters, else single-quoted. */
export function shellWord(value: string): string {
  return /^[\w.:/@%+=,-]+$/.test(value) ? value : `'${value.replaceAll("'", "'\\''")}'`;
}
