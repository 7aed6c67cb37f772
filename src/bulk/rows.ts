/**
 * The rows of a batch, checked and turned into the items the runner sends: each row's key (present,
 * unique in the batch) and params are checked, a bad row giving one error that names every bad field.
 */
import { InvalidParamsError, type PaymentsError, type ValidationIssue } from '../core/errors.js';
import { safeString } from '../internal/safe-string.js';
import { SDK_WORDS, toIssues } from '../internal/zod-issues.js';
import { PayoutCreateParamsSchema } from '../schemas/payout.js';
import type { StoreJsonObject } from '../stores/store.js';
import { rowHash } from './keys.js';
import type { BulkInvalidRow, BulkRows, CreateManyOptions } from './types.js';

/** Issues written into the message of the batch's InvalidParamsError; all are in `issues` and `rows`. */
const MESSAGE_ISSUES = 50;

/** One row on its way through a run: what it is, and what its sends have met so far. */
export interface BatchItem<R> {
  index: number;
  row: R;
  key: string;
  /** The hash of the row's content (see rowHash), kept in the store with its first claim (set by the claim). */
  rowHash?: string;
  idempotencyKey?: string;
  attempts: number;
  retries: number;
  throttles: number;
  notBefore: number;
  lastError?: PaymentsError;
  /**
   * `true` once a send of the row may have created a payout (no answer, a 5xx, or an earlier run's
   * send without a known outcome): a later refusal then proves nothing.
   */
  ambiguous?: boolean;
  /**
   * When the row's claim, or its last renewal, was asked for, read before the request: by
   * `processNow()`, which never goes back and counts the time a suspended machine slept.
   */
  claimedAt?: number;
  /** `true` while a renewal of the row's claim is on its way. */
  renewing?: boolean;
  /** What the store's note said of earlier sends when this run claimed the row. */
  note: SendNote;
  /** Set when the row is bad (with `skipInvalid`): it is reported, never sent. */
  invalid?: BulkInvalidRow;
}

/**
 * What a row's earlier sends left in the store (its note), as the store keeps it: `uncertain` once
 * any send had no known outcome (kept for good), `refused` when the last send was refused before
 * anything was created, with that send's `error` (`{ name, message, status? }`). Every release
 * writes one (`{}` when neither holds): a row claimed again without a note had no release.
 */
export type SendNote = { uncertain?: true; refused?: true; error?: StoreJsonObject };

/** The items to send, and how many rows there are when that is known before sending. */
export interface PreparedRows<R> {
  total?: number;
  items: AsyncIterator<BatchItem<R>>;
  /** For a batch keyed by position: the hash of every row, by index, read before anything is sent. */
  positionHashes?: string[];
}

/**
 * The rows of `source` as items to send, from index 0 (at most `total`), each checked: its key
 * (present, unique in the batch) and its params.
 */
async function* itemsOf<R>(
  source: Iterable<R> | AsyncIterable<R>,
  keyOf: CreateManyOptions<R>['key'],
  total = Infinity,
): AsyncGenerator<BatchItem<R>> {
  const seen = new Map<string, number>();
  let index = 0;
  for await (const row of source) {
    if (index >= total) break;
    const issues: ValidationIssue[] = [];
    let key = String(index);
    let keyGiven = false;
    try {
      const given = keyOf ? keyOf(row, index) : key;
      if ((typeof given !== 'string' || given === '' || given.length > 1000) && !Number.isFinite(given))
        throw new TypeError(given === '' ? 'it is empty' : `got ${safeString(given)}`);
      key = String(given);
      keyGiven = true;
      const first = seen.get(key);
      if (first !== undefined) issues.push({ path: ['key'], message: `${JSON.stringify(key)} is also the key of row ${first}` });
      else seen.set(key, index);
    } catch (error) {
      issues.push({
        path: ['key'],
        message: `the row's key must be a non-empty string of at most 1000 characters (${error instanceof Error ? error.message : safeString(error)})`,
      });
    }
    const parsed = PayoutCreateParamsSchema.safeParse(row, SDK_WORDS);
    if (!parsed.success) issues.push(...toIssues(parsed.error.issues, row));
    yield {
      index,
      row,
      key,
      attempts: 0,
      retries: 0,
      throttles: 0,
      notBefore: 0,
      note: {},
      ...(issues.length > 0 && { invalid: { index, ...(keyGiven && { key }), issues } }),
    };
    index += 1;
  }
}

/** The {@link InvalidParamsError} of bad rows: every issue of each, under `rows.<index>`, and the rows. */
export function batchError(invalid: BulkInvalidRow[]): InvalidParamsError {
  const issues = invalid.flatMap((r) =>
    r.issues.map((issue) => ({
      path: ['rows', r.index, ...issue.path],
      message: r.key === undefined ? issue.message : `${issue.message} (key ${JSON.stringify(r.key)})`,
    })),
  );
  const error = new InvalidParamsError(issues.slice(0, MESSAGE_ISSUES), `payout rows (${invalid.length} bad)`);
  if (issues.length > MESSAGE_ISSUES) error.message += ` (${issues.length - MESSAGE_ISSUES} more issues in error.issues)`;
  return Object.assign(error, { issues, rows: invalid });
}

/**
 * Turns the rows into the items to send. Without `skipInvalid`, every row is checked before the
 * first is sent: an array, or a function giving a fresh source, is read twice (checked, then sent);
 * any other iterable is read once into memory. With `skipInvalid`, rows are checked as they are
 * read and streamed (memory stays flat), a bad row giving a `failed` result. A batch keyed by
 * position (no `key` option) is always read whole first, for the hash of each row.
 */
export async function prepareRows<R>(rows: BulkRows<R>, o: CreateManyOptions<R>): Promise<PreparedRows<R>> {
  const open = (): Iterable<R> | AsyncIterable<R> => {
    const source = typeof rows === 'function' ? rows() : rows;
    if (!(Symbol.iterator in Object(source) || Symbol.asyncIterator in Object(source))) {
      throw new InvalidParamsError(
        [{ path: ['rows'], message: 'must be an iterable or an async iterable of payout params' }],
        'createMany rows',
      );
    }
    return source;
  };
  let source = open();
  let total = Array.isArray(source) ? source.length : undefined;
  const positional = o.key === undefined;
  const positionHashes: string[] | undefined = positional ? [] : undefined;
  if (!o.skipInvalid || positional) {
    if (total === undefined && typeof rows !== 'function') {
      const buffered: R[] = [];
      for await (const row of source) buffered.push(row);
      source = buffered;
    }
    const invalid: BulkInvalidRow[] = [];
    total = 0;
    for await (const item of itemsOf(source, o.key)) {
      total += 1;
      positionHashes?.push(await rowHash(item.row));
      if (item.invalid) invalid.push(item.invalid);
    }
    if (invalid.length > 0 && !o.skipInvalid) throw batchError(invalid);
    if (typeof rows === 'function') source = open();
  }
  // Rows are checked again as they are sent: a function source read twice may give other rows.
  return { total, items: itemsOf(source, o.key, total), ...(positionHashes && { positionHashes }) };
}
