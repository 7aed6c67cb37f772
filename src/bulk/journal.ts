/**
 * The journal of a bulk payout: what was sent for each row, when, under which Idempotency-Key, and
 * with what outcome. It is written ahead of each send (a claim) and after each outcome, so that a
 * rerun knows which rows are done, which were sent without a known outcome (resent with the same
 * key while the service still remembers it), and which are past that window (reconciled by hand).
 *
 * A journal holds row keys, Idempotency-Keys, row hashes, timestamps, payout ids and error summaries:
 * never the API key, never the request.
 */

/** Final outcome of a row, as recorded in a journal. */
export type BulkOutcomeStatus = 'created' | 'replayed' | 'conflict' | 'failed';

/** A failure, summarised for a journal (the error object itself is not kept). */
export interface BulkErrorInfo {
  /** Error class name, e.g. `UnprocessableEntityError`. */
  name: string;
  /** Its message. */
  message: string;
  /** HTTP status, when the service answered. */
  status?: number;
}

/** The outcome of a row: the service's answer, or a refusal that proves nothing was created. */
export interface BulkOutcome {
  /** What happened. */
  status: BulkOutcomeStatus;
  /** When it was recorded (ms since the epoch). */
  at: number;
  /** The payout's id and status at the time, when one was created or replayed. */
  payout?: { id?: string | number; status?: string };
  /** Why, for `failed` and `conflict`. */
  error?: BulkErrorInfo;
  /**
   * `true` on a `failed` outcome that proves nothing was created under the row's Idempotency-Key:
   * the service refused every send of it before creating anything (an invalid request, a key
   * without the right, a refused payout). Such a row may be sent again, under a new key, by a run
   * with `retryFailed`.
   */
  retryable?: boolean;
}

/** What a journal knows of one row. */
export interface BulkJournalRecord {
  /** The row's Idempotency-Key. */
  idempotencyKey: string;
  /** The row's index in the batch when it was first claimed. */
  index: number;
  /**
   * A hash of the row's content when it was claimed under this key (hex SHA-256 of its canonical
   * JSON). A batch keyed by position compares it before sending anything: a different row at the
   * same position means the rows moved, and the run is refused.
   */
  rowHash?: string;
  /** How many times the row was sent again after a refusal (`retryFailed`); absent for 0. Each has its own key. */
  generation?: number;
  /** When the row was first sent under this key (ms since the epoch); absent until then. */
  sentAt?: number;
  /** Claims so far under this key, over every run. */
  attempts: number;
  /** Set once the row has an outcome. */
  outcome?: BulkOutcome;
  /** The last failure without a known outcome (the payout may or may not exist). */
  lastError?: BulkErrorInfo;
}

/** A request to claim a row before sending it. */
export interface BulkClaimRequest {
  batchId: string;
  rowKey: string;
  idempotencyKey: string;
  index: number;
  /** Identifies the runner (one per `createMany` call); a runner may re-claim its own rows. */
  owner: string;
  /** The runner's clock (ms since the epoch). */
  now: number;
  /** How long the claim holds against other runners unless renewed. */
  leaseMs: number;
  /** A row first sent before this instant is not claimed: its key may be forgotten by the service. */
  sentBefore: number;
  /** The hash of the row's content, kept in the record when it is created. */
  rowHash?: string;
  /**
   * Set to send again a row whose outcome is a retryable refusal (`outcome.retryable`): the claim
   * starts a new record, at `generation` under `idempotencyKey`, only while the stored record is
   * still that refusal at `generation - 1` (so two runners never restart a row twice). Any other
   * state answers as without it.
   */
  retry?: { generation: number; idempotencyKey: string };
}

/**
 * The answer to a claim:
 * - `claimed`: this runner may send now; the claim (and `sentAt`) is durable;
 * - `done`: the row already has an outcome (`record.outcome`);
 * - `busy`: another runner holds the row's lease;
 * - `expired`: the row was sent before `sentBefore` without a known outcome: never resend it.
 */
export interface BulkClaim {
  state: 'claimed' | 'done' | 'busy' | 'expired';
  /** The record after the claim (or as found, for the other states). */
  record?: BulkJournalRecord;
}

/**
 * Storage of a bulk payout's journal. {@link memoryJournal}, `fileJournal(path)` and
 * `redisJournal(client)` implement it; implement it yourself to keep journals in your own database.
 *
 * What an implementation must do:
 * - `claim` is atomic across the processes that share the journal, and durable when it resolves;
 * - it keeps, per batch and row key, the record: Idempotency-Key, index, `rowHash` and `generation`
 *   as first claimed, `sentAt`, `attempts`, the outcome (with its `retryable` flag) and `lastError`;
 * - a claim with `retry` restarts a retryable refusal as a compare-and-set on `generation`;
 * - `settle` records an outcome only while the runner settling still holds the row: once another
 *   runner has claimed it, a late outcome from the first changes nothing;
 * - `read` answers the records of many rows at once, without claiming them;
 * - a journal that only one process may use at a time (a file) refuses a second one.
 */
export interface BulkJournal {
  /** Claims a row before it is sent. Must be durable when it resolves: the send follows at once. */
  claim(request: BulkClaimRequest): Promise<BulkClaim>;
  /** The records of the rows `rowKeys` of the batch (in that order; `undefined` where none), without claiming them. */
  read(batchId: string, rowKeys: readonly string[]): Promise<Array<BulkJournalRecord | undefined>>;
  /**
   * Records a row's outcome and drops the claim, only while `owner` still holds the row (no other
   * runner has claimed it since): otherwise it changes nothing. A runner whose row another took
   * over (after its lease ended) may be answering for an older generation's key, and must not
   * overwrite the newer outcome (a stale retryable refusal would reopen a paid row).
   */
  settle(batchId: string, rowKey: string, owner: string, outcome: BulkOutcome): Promise<void>;
  /**
   * Drops the claim of a row whose last send has no known outcome (it stays resendable), keeping
   * `error` as its last error. A claim another runner has taken since is left to it.
   */
  release(batchId: string, rowKey: string, owner: string, error?: BulkErrorInfo): Promise<void>;
  /** Extends the claim while a send is in flight (`now`: the runner's clock); `false` when it was lost. Optional. */
  renew?(batchId: string, rowKey: string, owner: string, leaseMs: number, now: number): Promise<boolean>;
  /** Flushes and closes what the journal opened (not a client it was given). Optional. */
  close?(): Promise<void>;
}

/** One row as an in-process journal holds it: the record plus its lease. */
interface HeldRecord extends BulkJournalRecord {
  owner?: string;
  leaseUntil?: number;
}

/**
 * The claim logic of the in-process journals (memory and file): one map of records, leases kept
 * in memory, so that several runners in one process can share a journal.
 */
export class JournalState {
  readonly #rows = new Map<string, HeldRecord>();

  /** Applies a claim; returns the answer and whether the record changed. */
  claim(r: BulkClaimRequest): { answer: BulkClaim; changed?: HeldRecord } {
    const id = rowId(r.batchId, r.rowKey);
    const found = this.#rows.get(id);
    const restart = found !== undefined && r.retry !== undefined && restartable(found, r.retry.generation);
    if (found?.outcome && !restart) return { answer: { state: 'done', record: plain(found) } };
    if (found?.owner !== undefined && found.owner !== r.owner && (found.leaseUntil ?? 0) > r.now) {
      return { answer: { state: 'busy', record: plain(found) } };
    }
    if (!restart && found?.sentAt !== undefined && found.sentAt < r.sentBefore)
      return { answer: { state: 'expired', record: plain(found) } };
    const fresh = (idempotencyKey: string, generation: number): BulkJournalRecord => ({
      idempotencyKey,
      index: r.index,
      ...(r.rowHash !== undefined && { rowHash: r.rowHash }),
      ...(generation > 0 && { generation }),
      attempts: 0,
    });
    const base = restart && r.retry ? fresh(r.retry.idempotencyKey, r.retry.generation) : (found ?? fresh(r.idempotencyKey, 0));
    const record: HeldRecord = {
      ...base,
      sentAt: base.sentAt ?? r.now,
      owner: r.owner,
      leaseUntil: r.now + r.leaseMs,
    };
    record.attempts += 1;
    this.#rows.set(id, record);
    return { answer: { state: 'claimed', record: plain(record) }, changed: record };
  }

  /**
   * Records an outcome while `owner` holds the row (its claim is the last one, even once its lease
   * ended); a runner whose row another has claimed since changes nothing. Returns whether it was recorded.
   */
  settle(batchId: string, rowKey: string, owner: string, outcome: BulkOutcome): boolean {
    const found = this.#rows.get(rowId(batchId, rowKey));
    if (!found || found.owner !== owner) return false;
    found.outcome = outcome;
    found.owner = undefined;
    found.leaseUntil = undefined;
    found.lastError = undefined;
    return true;
  }

  /** Drops the claim of `owner`, keeping the last error; returns whether it held the row. */
  release(batchId: string, rowKey: string, owner: string, error?: BulkErrorInfo): boolean {
    const found = this.#rows.get(rowId(batchId, rowKey));
    if (!found || found.owner !== owner) return false;
    found.owner = undefined;
    found.leaseUntil = undefined;
    if (error) found.lastError = error;
    return true;
  }

  /** Loads a record read back from storage (no lease: the process that held it is gone). */
  load(batchId: string, rowKey: string, record: BulkJournalRecord): void {
    this.#rows.set(rowId(batchId, rowKey), { ...record });
  }

  /** The record of a row, without its lease. */
  get(batchId: string, rowKey: string): BulkJournalRecord | undefined {
    const found = this.#rows.get(rowId(batchId, rowKey));
    return found && plain(found);
  }
}

/** Whether the record is a retryable refusal at the generation before `generation`. */
export function restartable(record: BulkJournalRecord, generation: number): boolean {
  return record.outcome?.status === 'failed' && record.outcome.retryable === true && (record.generation ?? 0) + 1 === generation;
}

function rowId(batchId: string, rowKey: string): string {
  return `${batchId.length}:${batchId}:${rowKey}`;
}

function plain(held: HeldRecord): BulkJournalRecord {
  const { owner: _owner, leaseUntil: _lease, ...record } = held;
  return record;
}

/**
 * A journal in memory: the default. It protects the rows of one process (several batches, or two
 * runners of the same batch, sharing it), and is lost with the process: a rerun then relies on the
 * service's replay of the derived Idempotency-Keys alone (24 hours). Use `fileJournal` or
 * `redisJournal` for a batch you may have to resume.
 */
export function memoryJournal(): BulkJournal {
  const state = new JournalState();
  return {
    async claim(request) {
      return state.claim(request).answer;
    },
    async read(batchId, rowKeys) {
      return rowKeys.map((key) => state.get(batchId, key));
    },
    async settle(batchId, rowKey, owner, outcome) {
      state.settle(batchId, rowKey, owner, outcome);
    },
    async release(batchId, rowKey, owner, error) {
      state.release(batchId, rowKey, owner, error);
    },
  };
}
