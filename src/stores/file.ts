/**
 * `fileStore(path)`: a store in a file of JSON lines, for one Node process at a time.
 *
 * The file starts with a header line; then each write appends the whole record it changed (the last
 * line of a key is its record), and resolves once that line is on disk (`fdatasync`; writes made
 * together share one). Read back after a crash, even `SIGKILL` in the middle of a write, a torn last
 * line is dropped: its call had not resolved. When most lines are superseded the file is rewritten
 * with the live records only: a new file written whole and synced, then renamed over the old one,
 * so the file on disk is always one or the other, complete.
 *
 * Leases are not written: a lease lives in the process that holds the lock, and when that process
 * is gone, so are its owners. A key claimed but neither settled nor released when it died is claimed
 * by the next owner at once.
 */
import type * as Fs from 'node:fs';
import { PaymentsError } from '../core/errors.js';
import { DAY_MS } from '../internal/durations.js';
import { positiveInt } from '../internal/positive-int.js';
import { withinTime } from '../internal/within-time.js';
import { processNow } from './clock.js';
import { StoreTimeoutError } from './errors.js';
import { loadFs, type NodeFs, takeLock } from './file-lock.js';
import { type HeldRecord, RecordTable } from './records.js';
import type { Store, StoreJsonObject } from './store.js';

type FileHandle = Awaited<ReturnType<typeof Fs.promises.open>>;

/** Options of {@link fileStore}. */
export interface FileStoreOptions {
  /**
   * How long a record is kept after its last write, in ms. Default 30 days: longer than the
   * service keeps an Idempotency-Key (24 hours), so a batch resumed days later still knows which
   * rows were sent.
   */
  ttlMs?: number;
  /**
   * How long a call may wait, in ms. Default 5 000. A call that waits longer rejects with
   * `StoreTimeoutError`. When it was still waiting for the file to open, nothing was written and
   * it may be repeated; when it was waiting for the disk to confirm a write, that write may still
   * reach the file, so every later call rejects too, until the store is closed and opened again.
   */
  timeoutMs?: number;
}

/** The first line of every store file: what the file is, so that another file is never taken for one. */
const HEADER = '{"payments-sdk":"store","version":1}';

/** A record as one line of the file. */
interface Line {
  k: string;
  c: number;
  f: number;
  w: number;
  d?: StoreJsonObject;
  s?: true;
  r?: StoreJsonObject;
  n?: StoreJsonObject;
}

/** The file is rewritten once it holds this many record lines, and more than twice as many as records. */
const COMPACT_AFTER_LINES = 1_000;

/** A {@link fileStore}: a `Store` that holds its file until closed. */
export interface FileStore extends Store {
  /** Writes what is pending, gives the lock file back and closes the file: another process may then open it. */
  close(): Promise<void>;
}

/**
 * A store in a file at `path` (created when missing), for one Node.js (22.3+), Bun or Deno process
 * at a time: a bulk payout you may resume after a crash, a single server's webhook endpoint that
 * must remember across restarts. Each call resolves once what it wrote is on disk; the file stays
 * whole through a crash or `SIGKILL`.
 *
 * The store holds a lock file beside it (`<path>.lock`, holding the process id) from its first use
 * until `close()`: a second store on the same file, in this process or another, is refused with an
 * error naming the lock file and the process holding it. A lock left by a process that no longer
 * runs is taken over.
 *
 * ```ts
 * import { fileStore } from 'payments-sdk/stores';
 * const store = fileStore('payroll-2026-11.store');
 * await client.payouts.createMany(rows, { batchId: 'payroll-2026-11', key: (row) => row.line, store }).summary();
 * await store.close();
 * ```
 */
export function fileStore(path: string, options: FileStoreOptions = {}): FileStore {
  if (typeof path !== 'string' || path.trim() === '') throw new PaymentsError('fileStore(path): path must be a non-empty string.');
  if (options === null || typeof options !== 'object') throw new PaymentsError('fileStore(path, options): options must be an object.');
  const ttlMs = positiveInt(options.ttlMs, 30 * DAY_MS, 'fileStore: ttlMs');
  const timeoutMs = positiveInt(options.timeoutMs, 5_000, 'fileStore: timeoutMs');
  const lockPath = `${path}.lock`;

  let table = new RecordTable('fileStore', ttlMs);
  let node: NodeFs | undefined;
  let handle: FileHandle | undefined;
  let unlock: (() => Promise<void>) | undefined;
  let opening: Promise<void> | undefined;
  /** Record lines in the file (the header aside). */
  let lines = 0;
  // Group commit: lines queued while a write is in progress go out together, with one fdatasync.
  let queue: string[] = [];
  let waiters: Array<{ resolve: () => void; reject: (error: unknown) => void }> = [];
  let writing: Promise<void> | undefined;
  /** Resolves when everything queued so far is on disk: what a call that observed the state waits for. */
  let tail: Promise<void> = Promise.resolve();
  /** Set once a write failed or a call timed out: every later call rejects with it. */
  let failed: Error | undefined;

  const open = () => {
    if (opening) return opening;
    opening = (async () => {
      node = loadFs('fileStore');
      unlock = await takeLock(node.fs, 'fileStore', lockPath, path).catch((error: unknown) => {
        throw cannotOpen(path, error);
      });
      try {
        await load(node);
      } catch (error) {
        // A store that cannot be opened (damaged, not a store file) gives its lock back, and can be tried again.
        await handle?.close().catch(() => {});
        handle = undefined;
        const release = unlock;
        unlock = undefined;
        await release?.();
        throw cannotOpen(path, error);
      }
    })();
    opening.catch(() => {
      opening = undefined;
    });
    return opening;
  };

  const load = async (nodeFs: NodeFs) => {
    const { fs } = nodeFs;
    table = new RecordTable('fileStore', ttlMs);
    lines = 0;
    let text = '';
    try {
      text = await fs.promises.readFile(path, 'utf8');
    } catch (error) {
      if ((error as { code?: unknown }).code !== 'ENOENT') throw error;
    }
    if (text !== '' && !text.startsWith(`${HEADER}\n`) && !`${HEADER}\n`.startsWith(text)) throw notAStoreFile(path);
    const end = text.lastIndexOf('\n') + 1;
    if (end < text.length) {
      // A torn last line: its write never completed (the process died in it), and its call never
      // resolved. Drop it, so that the next line starts on a line of its own.
      const h = await fs.promises.open(path, 'r+');
      try {
        await h.truncate(new TextEncoder().encode(text.slice(0, end)).length);
        await h.datasync();
      } finally {
        await h.close();
      }
    }
    lines = replay(table, text.slice(0, end), path);
    handle = await fs.promises.open(path, 'a');
    if (end === 0) {
      await handle.appendFile(`${HEADER}\n`);
      await handle.sync();
      await syncDirectory(nodeFs, path);
    } else if (shouldCompact()) {
      await compact();
    }
  };

  const shouldCompact = () => lines > COMPACT_AFTER_LINES && lines > 2 * table.size;

  /** Rewrites the file with the live records: a new file, synced, then renamed over the old one. */
  const compact = async () => {
    if (!node || !handle) return;
    const { fs } = node;
    const now = processNow();
    const records = [...table.live(now)];
    const next = `${path}.compacting`;
    const h = await fs.promises.open(next, 'w');
    try {
      await h.writeFile(`${HEADER}\n${records.map(lineOf).join('')}`);
      await h.sync();
    } finally {
      await h.close();
    }
    await handle.close();
    handle = undefined;
    await fs.promises.rename(next, path);
    await syncDirectory(node, path);
    handle = await fs.promises.open(path, 'a');
    lines = records.length;
  };

  const flush = async () => {
    while (queue.length > 0) {
      const text = queue.join('');
      const done = waiters;
      lines += queue.length;
      queue = [];
      waiters = [];
      try {
        // After a failed write (perhaps half written) or a timeout, nothing more goes to the file:
        // a line after a torn one would leave the file damaged before its last line.
        if (failed) throw failed;
        if (!handle) throw new PaymentsError(`fileStore: ${path} is closed.`);
        await handle.appendFile(text);
        // fdatasync: the data and the size of the file (what reading it back needs), not its times.
        await handle.datasync();
        if (shouldCompact()) await compact();
        for (const w of done) w.resolve();
      } catch (error) {
        failed ??= new PaymentsError(`fileStore: writing ${path} failed; the store refuses every call until it is opened again.`, {
          cause: error,
        });
        for (const w of done) w.reject(failed);
      }
    }
    writing = undefined;
  };

  /** Appends the records' lines; resolves once they are on disk. */
  const append = (records: readonly HeldRecord[]): Promise<void> => {
    const written = new Promise<void>((resolve, reject) => waiters.push({ resolve, reject }));
    for (const record of records) queue.push(lineOf(record));
    tail = written;
    writing ??= flush();
    return written;
  };

  /**
   * Runs `step` on the opened store, within `timeoutMs`. A call that times out before its step
   * began (the file still opening) never runs it; one that times out in its step (waiting for the
   * disk) may still reach the file, so the store stops deciding anything until it is opened again.
   */
  const call = <T>(step: (now: number) => Promise<T>): Promise<T> => {
    const progress: { phase: 'opening' | 'stepping' | 'late' } = { phase: 'opening' };
    const work = (async () => {
      if (failed) throw failed;
      await open();
      if (failed) throw failed;
      if (progress.phase === 'late') throw new StoreTimeoutError(`fileStore: ${path} opened too late for this call.`);
      progress.phase = 'stepping';
      return step(processNow());
    })();
    return withinTime(work, timeoutMs, () => {
      if (progress.phase === 'opening') {
        progress.phase = 'late';
        return new StoreTimeoutError(
          `fileStore: ${path} did not open within ${timeoutMs} ms; nothing was written, and the call may be repeated.`,
        );
      }
      failed ??= new StoreTimeoutError(
        `fileStore: ${path} did not answer within ${timeoutMs} ms (the disk did not confirm a write); the store refuses every call until it is opened again.`,
      );
      return failed;
    });
  };

  return {
    kind: 'file',
    claim(requests) {
      return call(async (now) => {
        const { answers, written } = table.claim(requests, now);
        await (written.length > 0 ? append(written) : tail);
        return answers;
      });
    },
    renew(key, owner, leaseMs) {
      // A lease is not written (see the module): renewing waits only for what it observed.
      return call(async (now) => {
        const renewed = table.renew(key, owner, leaseMs, now) !== undefined;
        await tail;
        return renewed;
      });
    },
    settle(key, owner, result) {
      return call(async (now) => {
        const record = table.settle(key, owner, result, now);
        await (record ? append([record]) : tail);
        return record !== undefined;
      });
    },
    release(key, owner, note) {
      return call(async (now) => {
        const record = table.release(key, owner, note, now);
        await (record ? append([record]) : tail);
        return record !== undefined;
      });
    },
    read(keys) {
      return call(async (now) => {
        const records = keys.map((key) => table.read(key, now));
        await tail;
        return records;
      });
    },
    async close() {
      if (!opening) return;
      await opening;
      while (writing) await writing;
      await handle?.sync();
      await handle?.close();
      handle = undefined;
      opening = undefined;
      failed = undefined;
      tail = Promise.resolve();
      const release = unlock;
      unlock = undefined;
      await release?.();
    },
  };
}

function lineOf(record: HeldRecord): string {
  const line: Line = { k: record.key, c: record.claims, f: record.firstAt, w: record.writtenAt };
  if (record.data !== undefined) line.d = record.data;
  if (record.settled) line.s = true;
  if (record.result !== undefined) line.r = record.result;
  if (record.note !== undefined) line.n = record.note;
  return `${JSON.stringify(line)}\n`;
}

/** Loads the records of the file's complete lines; answers how many record lines it holds. */
function replay(table: RecordTable, text: string, path: string): number {
  if (text === '') return 0;
  const rows = text.split('\n');
  rows.pop();
  if (rows[0] !== HEADER) throw notAStoreFile(path);
  for (let i = 1; i < rows.length; i++) {
    let line: Line;
    try {
      line = JSON.parse(rows[i] as string) as Line;
    } catch {
      throw new PaymentsError(`fileStore: line ${i + 1} of ${path} is not JSON: the file is damaged.`);
    }
    if (typeof line?.k !== 'string' || typeof line.c !== 'number' || typeof line.f !== 'number' || typeof line.w !== 'number') {
      throw new PaymentsError(`fileStore: line ${i + 1} of ${path} is not a store record: the file is damaged.`);
    }
    table.load({
      key: line.k,
      claims: line.c,
      firstAt: line.f,
      writtenAt: line.w,
      settled: line.s === true,
      ...(line.d !== undefined && { data: line.d }),
      ...(line.r !== undefined && { result: line.r }),
      ...(line.n !== undefined && { note: line.n }),
    });
  }
  return rows.length - 1;
}

/** A PaymentsError as it is, anything else (a file system error) wrapped in one that names the file. */
function cannotOpen(path: string, error: unknown): PaymentsError {
  if (error instanceof PaymentsError) return error;
  const code = (error as { code?: unknown } | null)?.code;
  return new PaymentsError(
    `fileStore: cannot open ${path}${typeof code === 'string' ? ` (${code})` : ''}: ${String((error as Error)?.message ?? error)}`,
    {
      cause: error,
    },
  );
}

function notAStoreFile(path: string): PaymentsError {
  return new PaymentsError(
    `fileStore: ${path} is not a store file (its first line is not the store's header): give fileStore a new path, or the path of a file it wrote.`,
  );
}

/** Makes a new or renamed file's directory entry durable (where the platform can sync a directory). */
async function syncDirectory({ fs, path }: NodeFs, file: string): Promise<void> {
  let dir: FileHandle | undefined;
  try {
    dir = await fs.promises.open(path.dirname(path.resolve(file)), 'r');
    await dir.sync();
  } catch (error) {
    // Windows cannot open a directory; some file systems refuse to sync one. The data is synced.
    const code = (error as { code?: unknown }).code;
    if (code !== 'EISDIR' && code !== 'EPERM' && code !== 'EINVAL' && code !== 'EACCES') throw error;
  } finally {
    await dir?.close();
  }
}
