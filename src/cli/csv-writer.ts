/**
 * CSV text of rows, a page at a time, for commands that stream a list (`export`, `reconcile`).
 */
import { type Options, Stringifier } from 'csv-stringify';

/**
 * The field separators a CSV of the command line may use, by the name `--delimiter` takes: comma;
 * semicolon, where a comma is the decimal separator (Excel in French, say); tab.
 */
export const CSV_SEPARATORS: Readonly<Record<string, string>> = { ',': ',', ';': ';', tab: '\t', '\\t': '\t' };

/**
 * A command's CSV writer: one csv-stringify `Stringifier` for the whole output, fed a page of rows
 * and read back at once (all of it: reading lets the stream take rows it held back past its buffer
 * size). One instance keeps the same functions and options for every row: the sync API builds a
 * new set per call, and V8 then optimizes and throws away csv-stringify's code again and again.
 * The options are its default quoting, said in a form it checks faster: by default it quotes a
 * field that holds a delimiter, a quote, `\n` or `\r`, testing for the line breaks with a list
 * built for every field. Without `quote_record_delimiter` it quotes a field holding the record
 * delimiter (`\n`), and `quoted_match: '\r'` quotes one holding `\r`: the same fields are quoted,
 * the bytes are the same, with about a quarter less garbage per field.
 * `delimiter` is the field separator (default `,`; `;` where a comma is the decimal separator).
 * `escape_formulas: true` puts a `'` before a cell that starts with `=`, `+`, `-`, `@`, a tab or `\r`,
 * so a spreadsheet shows it as text instead of running it as a formula.
 */
export function csvWriter(options: Pick<Options, 'escape_formulas' | 'delimiter'> = {}): (rows: readonly unknown[][]) => string {
  const stringifier = new Stringifier({
    quote_record_delimiter: false,
    quoted_match: '\r',
    readableHighWaterMark: 1024 * 1024,
    ...options,
  });
  stringifier.setEncoding('utf8');
  // A record it refuses is reported as an 'error' event; it becomes this call's exception.
  let refused: Error | undefined;
  stringifier.on('error', (error: Error) => {
    refused = error;
  });
  return (rows) => {
    for (const row of rows) stringifier.write(row);
    let text = '';
    for (let chunk = stringifier.read() as string | null; chunk !== null; chunk = stringifier.read() as string | null) text += chunk;
    if (refused) throw refused;
    return text;
  };
}
