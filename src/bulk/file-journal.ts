/**
 * `fileJournal(path)`: the journal of a bulk payout as an append-only file of JSON lines, one line
 * per claim, outcome or release. Each claim is on disk (`fsync`) before its payout is sent; claims
 * made together share one `fsync` (group commit), which keeps the cost per row small. An outcome
 * line is written (to the operating system, which keeps it when the process dies) before the row's
 * result is reported, but not `fsync`ed: one lost with the machine leaves its row "sent, outcome
 * unknown", resent with the same key and replayed by the service.
 *
 * Read back after a crash (even `SIGKILL` in the middle of a write), a torn last line is dropped:
 * it can only be a line whose write had not completed, so its send had not started.
 *
 * One process at a time per file, enforced: the journal holds a lock file beside it (`<path>.lock`,
 * created exclusively, holding the process id) from its first use until `close()`. A second process
 * is refused; a lock left by a process that no longer runs (killed) is taken over. For several
 * processes on one batch, use `redisJournal`.
 *
 * The file system comes from `process.getBuiltinModule('node:fs')` (Node 22.3+, Bun, Deno) when
 * the journal is first used: this module is part of the main entry, which edge runtimes load, and
 * must import nothing from `node:`.
 */
import type * as Fs from 'node:fs';
import { PaymentsError } from '../core/errors.js';
import { type BulkErrorInfo, type BulkJournal, type BulkJournalRecord, type BulkOutcome, JournalState } from './journal.js';

type FileHandle = Awaited<ReturnType<typeof Fs.promises.open>>;

/** One line of the file. */
type Line =
  | {
      op: 'claim';
      batch: string;
      key: string;
      ik: string;
      index: number;
      sentAt: number;
      attempts: number;
      hash?: string;
      gen?: number;
    }
  | { op: 'settle'; batch: string; key: string; outcome: BulkOutcome }
  | { op: 'release'; batch: string; key: string; error?: BulkErrorInfo };

async function loadFs(): Promise<typeof Fs> {
  // biome-ignore lint/suspicious/noExplicitAny: feature detection on a global that has no type here.
  const proc = (globalThis as any).process;
  const fs = typeof proc?.getBuiltinModule === 'function' ? (proc.getBuiltinModule('node:fs') as typeof Fs | undefined) : undefined;
  if (!fs) {
    throw new PaymentsError(
      'fileJournal needs a file system (Node.js 22.3+, Bun or Deno). On an edge runtime, use redisJournal or your own BulkJournal.',
    );
  }
  return fs;
}

/** Whether a process with this id runs on this machine (a zombie or another user's counts as running). */
function running(pid: number): boolean {
  try {
    // biome-ignore lint/suspicious/noExplicitAny: see loadFs.
    (globalThis as any).process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as { code?: unknown }).code === 'EPERM';
  }
}

/**
 * Takes the journal's lock: creates `lockPath` exclusively with this process's id. A lock whose
 * process no longer runs is stale and taken over; a live one refuses, naming the process.
 */
async function lock(fs: typeof Fs, lockPath: string, journalPath: string): Promise<void> {
  // biome-ignore lint/suspicious/noExplicitAny: see loadFs.
  const pid = Number((globalThis as any).process.pid);
  for (let attempt = 0; ; attempt++) {
    try {
      await fs.promises.writeFile(lockPath, `${pid}\n`, { flag: 'wx' });
      return;
    } catch (error) {
      if ((error as { code?: unknown }).code !== 'EEXIST' || attempt >= 3) throw error;
    }
    const holder = Number.parseInt(await fs.promises.readFile(lockPath, 'utf8').catch(() => ''), 10);
    if (Number.isSafeInteger(holder) && holder > 0 && running(holder)) {
      throw new PaymentsError(
        `fileJournal: ${journalPath} is in use by process ${holder}${holder === pid ? ' (this one)' : ''}: one run at a time per journal file. ` +
          `Wait for it to finish; if no such process runs, delete ${lockPath}.`,
      );
    }
    // Stale (its process is gone) or not yet written by a process that is creating it: an empty
    // file younger than a second is left alone, anything else is removed and the lock taken again.
    if (!Number.isSafeInteger(holder)) {
      const age =
        Date.now() -
        (await fs.promises.stat(lockPath).then(
          (st) => st.mtimeMs,
          () => 0,
        ));
      if (age < 1000) {
        await new Promise((resolve) => setTimeout(resolve, 1000 - age));
        continue;
      }
    }
    await fs.promises.rm(lockPath, { force: true });
  }
}

/**
 * A journal in an append-only file of JSON lines at `path` (created when missing), flushed to disk
 * before each send and safe to read back after a crash. Keep the file until the batch is settled:
 * it is what tells a rerun which rows are done. One process at a time per file: a second one is
 * refused while `<path>.lock` names a running process.
 *
 * ```ts
 * const batch = client.payouts.createMany(rows, { batchId: 'payroll-2026-11', journal: fileJournal('payroll-2026-11.journal') });
 * ```
 */
export function fileJournal(path: string): BulkJournal {
  if (typeof path !== 'string' || path.trim() === '') throw new PaymentsError('fileJournal(path): path must be a non-empty string.');
  const state = new JournalState();
  let handle: FileHandle | undefined;
  let opening: Promise<void> | undefined;
  // Group commit: lines queued while a write is in progress go out together, with one fsync.
  let queue: string[] = [];
  // Waiters of the queued lines: claims wait for the fsync, outcomes and releases for the write.
  let waiters: Array<{ resolve: () => void; reject: (error: unknown) => void; sync: boolean }> = [];
  let writing = false;
  let failed: unknown;
  const lockPath = `${path}.lock`;
  let unlock: (() => Promise<void>) | undefined;

  const open = () => {
    if (opening) return opening;
    opening = (async () => {
      const fs = await loadFs();
      await lock(fs, lockPath, path);
      unlock = () => fs.promises.rm(lockPath, { force: true });
      let text = '';
      try {
        text = await fs.promises.readFile(path, 'utf8');
      } catch (error) {
        if ((error as { code?: unknown }).code !== 'ENOENT') throw error;
      }
      const end = text.lastIndexOf('\n') + 1;
      if (end < text.length) {
        // A torn last line: its write never completed (the process died in it). Drop it, so that the
        // next line starts on a line of its own.
        const h = await fs.promises.open(path, 'r+');
        try {
          await h.truncate(new TextEncoder().encode(text.slice(0, end)).length);
        } finally {
          await h.close();
        }
      }
      replay(state, text.slice(0, end), path);
      handle = await fs.promises.open(path, 'a');
    })();
    // A journal that cannot be opened (locked, damaged) gives its lock back and can be tried again.
    opening.catch(async () => {
      opening = undefined;
      const release = unlock;
      unlock = undefined;
      await release?.();
    });
    return opening;
  };

  const flush = async () => {
    writing = true;
    while (queue.length > 0 && handle) {
      const lines = queue;
      const done = waiters;
      queue = [];
      waiters = [];
      try {
        await handle.write(lines.join(''));
        for (const w of done) if (!w.sync) w.resolve();
        // fdatasync: the data and the size of the file (what reading it back needs), not its times.
        if (done.some((w) => w.sync)) await handle.datasync();
        for (const w of done) if (w.sync) w.resolve();
      } catch (error) {
        failed = error;
        for (const w of done) w.reject(error);
      }
    }
    writing = false;
  };

  const append = async (line: Line) => {
    await open();
    if (failed) throw failed;
    const promise = new Promise<void>((resolve, reject) => waiters.push({ resolve, reject, sync: line.op === 'claim' }));
    queue.push(`${JSON.stringify(line)}\n`);
    if (!writing) void flush();
    return promise;
  };

  return {
    async claim(request) {
      await open();
      const { answer, changed } = state.claim(request);
      if (changed) {
        await append({
          op: 'claim',
          batch: request.batchId,
          key: request.rowKey,
          ik: changed.idempotencyKey,
          index: changed.index,
          sentAt: changed.sentAt ?? request.now,
          attempts: changed.attempts,
          ...(changed.rowHash !== undefined && { hash: changed.rowHash }),
          ...(changed.generation !== undefined && { gen: changed.generation }),
        });
      }
      return answer;
    },
    async read(batchId, rowKeys) {
      await open();
      return rowKeys.map((key) => state.get(batchId, key));
    },
    // Only what the state accepted is written: a late outcome from a runner whose row another took
    // over would otherwise be read back as the row's outcome.
    async settle(batchId, rowKey, owner, outcome) {
      if (!state.settle(batchId, rowKey, owner, outcome)) return;
      await append({ op: 'settle', batch: batchId, key: rowKey, outcome });
    },
    async release(batchId, rowKey, owner, error) {
      if (!state.release(batchId, rowKey, owner, error)) return;
      await append(error ? { op: 'release', batch: batchId, key: rowKey, error } : { op: 'release', batch: batchId, key: rowKey });
    },
    async close() {
      if (!opening) return;
      await opening;
      while (writing || queue.length > 0) await new Promise((resolve) => setTimeout(resolve, 1));
      await handle?.sync();
      await handle?.close();
      handle = undefined;
      opening = undefined;
      await unlock?.();
      unlock = undefined;
    },
  };
}

/** Rebuilds the records from the file's complete lines. A line that is not a journal line is an error: the file is not this journal. */
function replay(state: JournalState, text: string, path: string): void {
  let lineNo = 0;
  for (const raw of text.split('\n')) {
    lineNo++;
    if (raw.trim() === '') continue;
    let line: Line;
    try {
      line = JSON.parse(raw) as Line;
    } catch {
      throw new PaymentsError(`fileJournal: line ${lineNo} of ${path} is not JSON: the file is damaged or is not a bulk payout journal.`);
    }
    const found = state.get(line.batch, line.key);
    if (line.op === 'claim') {
      // A claim under a new generation (a refused row sent again) starts a new record.
      const same = found !== undefined && (found.generation ?? 0) === (line.gen ?? 0);
      const record: BulkJournalRecord = {
        ...(same ? found : {}),
        idempotencyKey: line.ik,
        index: line.index,
        ...(line.hash !== undefined && { rowHash: same ? (found.rowHash ?? line.hash) : line.hash }),
        ...(line.gen !== undefined && { generation: line.gen }),
        sentAt: (same ? found.sentAt : undefined) ?? line.sentAt,
        attempts: line.attempts,
      };
      state.load(line.batch, line.key, record);
    } else if (found && line.op === 'settle') {
      state.load(line.batch, line.key, { ...found, outcome: line.outcome, lastError: undefined });
    } else if (found && line.op === 'release' && line.error) {
      state.load(line.batch, line.key, { ...found, lastError: line.error });
    }
  }
}
