/**
 * The results file of `payouts bulk`, written for the finance team that wrote the input: the
 * input's separator and byte order mark, one line per input row in the input's order, each with
 * the row's latest state. It is rewritten whole after each run, through a temporary file renamed
 * over it, so that a reader never sees half a file: a row created in an earlier run and skipped now
 * still reads `created` with its payout id, and a row this run did not reach keeps what the last
 * results file said of it.
 */
import { closeSync, existsSync, openSync, readFileSync, readSync } from 'node:fs';
import { parse } from 'csv-parse/sync';
import { stringify } from 'csv-stringify/sync';
import type { BulkResult } from '../bulk/types.js';
import { describeError } from './exit-codes.js';
import { openOutput } from './output.js';

/** The columns of the results file. */
export const RESULT_COLUMNS = ['row', 'key', 'payout_id', 'status', 'error'] as const;

/** How the input was written, and so how the results are. */
export interface ResultsFormat {
  /** The input's field separator. */
  separator: string;
  /** Whether the input starts with a UTF-8 byte order mark (Excel's "CSV UTF-8" writes one). */
  bom: boolean;
  /** Prefix cells that start with `=`, `+`, `-`, `@`, tab or CR with `'`, so a spreadsheet shows them as text. */
  escapeFormulas: boolean;
}

/** One input row: its line in the input and its key. */
export interface InputRow {
  line: number;
  key: string;
}

/** The state of a row as a results line reads it: payout id, status, error. */
type RowState = [payoutId: string, status: string, error: string];

/** Whether the file starts with a UTF-8 byte order mark. */
export function startsWithBom(path: string): boolean {
  const head = Buffer.alloc(3);
  const fd = openSync(path, 'r');
  try {
    return readSync(fd, head, 0, 3, 0) === 3 && head.equals(Buffer.from([0xef, 0xbb, 0xbf]));
  } finally {
    closeSync(fd);
  }
}

/**
 * The latest state of a row from this run's result: a row skipped because an earlier run settled
 * it reads as that run left it (`created` and its payout id, or `failed` and why).
 */
export function rowState(result: BulkResult<unknown>): RowState {
  const recorded = result.record?.result as
    | { status?: string; payout?: { id?: string | number }; error?: { message?: string } }
    | undefined;
  const payoutId = String(result.payout?.id ?? recorded?.payout?.id ?? '');
  if (result.status === 'skipped' && recorded?.status) {
    return [payoutId, recorded.status, recorded.error ? `earlier run: ${recorded.error.message}` : ''];
  }
  return [payoutId, result.status, result.error ? describeError(result.error) : ''];
}

/**
 * The states the last results file holds, by key and by line (a file written before the rows moved
 * finds them by key; a file keyed by position, by line). A missing or unreadable file holds none.
 */
function previousStates(path: string, format: ResultsFormat): { byKey: Map<string, RowState>; byLine: Map<string, RowState> } {
  const byKey = new Map<string, RowState>();
  const byLine = new Map<string, RowState>();
  if (path === '-' || !existsSync(path)) return { byKey, byLine };
  try {
    const rows = parse(readFileSync(path), { bom: true, columns: true, delimiter: format.separator, relax_column_count: true }) as Record<
      string,
      string
    >[];
    for (const row of rows) {
      const state: RowState = [row.payout_id ?? '', row.status ?? '', row.error ?? ''];
      // A key the last file escaped as a formula is read back without its `'`.
      const key = format.escapeFormulas && /^'[=+\-@\t\r]/.test(row.key ?? '') ? (row.key ?? '').slice(1) : (row.key ?? '');
      if (key !== '') byKey.set(key, state);
      byLine.set(row.row ?? '', state);
    }
  } catch {
    // Not a results file of ours (or damaged): this run's results alone are written.
  }
  return { byKey, byLine };
}

/**
 * The results of a run, kept by input row until {@link BulkResultsFile.write}: every result, then one
 * write of the whole file.
 */
export class BulkResultsFile {
  readonly #path: string;
  readonly #format: ResultsFormat;
  readonly #states = new Map<number, RowState>();

  /** Results for `path` (`-`: standard output), written as the input is (see {@link ResultsFormat}). */
  constructor(path: string, format: ResultsFormat) {
    this.#path = path;
    this.#format = format;
  }

  /** Keeps the result of the input row at `line`. */
  add(result: BulkResult<unknown>, line: number): void {
    this.#states.set(line, rowState(result));
  }

  /**
   * Writes one line per input row, in `rows`' order: this run's result, else what the last results
   * file said of the row, else `not_sent`. A file appears whole: written beside its name, then
   * renamed over it.
   */
  async write(rows: readonly InputRow[]): Promise<void> {
    const previous = previousStates(this.#path, this.#format);
    const lines = rows.map(({ line, key }) => {
      const state = this.#states.get(line) ?? previous.byKey.get(key) ?? previous.byLine.get(String(line)) ?? ['', 'not_sent', ''];
      return [line, key, ...state];
    });
    const text = stringify([[...RESULT_COLUMNS], ...lines], {
      delimiter: this.#format.separator,
      bom: this.#format.bom,
      escape_formulas: this.#format.escapeFormulas,
    });
    const out = openOutput(this.#path === '-' ? undefined : this.#path);
    try {
      await out.write(text);
    } catch (error) {
      out.discard();
      throw error;
    }
    out.close();
  }
}
