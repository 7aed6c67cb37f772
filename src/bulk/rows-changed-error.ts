import { PaymentsError } from '../core/errors.js';

/**
 * A batch keyed by position (no `key` option) whose rows differ from the rows its store holds at
 * the same positions: rows were inserted, removed, reordered or edited since the earlier run, so a
 * position no longer names the same payout. Thrown before anything is sent when the check before
 * the run finds it; thrown during the run (a source that changed while it was read) before that
 * row is sent, when earlier rows may already have been.
 */
export class BulkRowsChangedError extends PaymentsError {
  /** The indexes (from 0) of the rows that differ, in order. */
  readonly rows: number[];

  /** @internal */
  constructor(rows: number[], duringRun = false) {
    super(
      `Rows at index ${rows.slice(0, 10).join(', ')}${rows.length > 10 ? ` and ${rows.length - 10} more` : ''} differ from the rows recorded there. ` +
        `Rows without a key are known by position and must not change between runs. ${duringRun ? 'That row was not sent; the rows before it may have been (their results say which).' : 'Nothing was sent.'}`,
    );
    this.name = 'BulkRowsChangedError';
    this.rows = rows;
  }
}
