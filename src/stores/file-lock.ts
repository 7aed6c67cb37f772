/**
 * The file system of the Node-only stores, and their lock file. `node:fs` comes from
 * `process.getBuiltinModule` (Node 22.3+, Bun, Deno) when a store is first used: `payments-sdk/stores`
 * is loaded by edge runtimes too, and imports nothing from `node:`.
 */
import type * as Fs from 'node:fs';
import type * as Path from 'node:path';
import { PaymentsError } from '../core/errors.js';

/** `node:fs` and `node:path`, from the runtime. */
export interface NodeFs {
  fs: typeof Fs;
  path: typeof Path;
}

// biome-ignore lint/suspicious/noExplicitAny: feature detection on a global that has no type here.
const proc = () => (globalThis as any).process;

/** `node:fs` and `node:path`, or an error saying which runtimes have them and what to use elsewhere. */
export function loadFs(who: string): NodeFs {
  const getBuiltin = proc()?.getBuiltinModule;
  const fs = typeof getBuiltin === 'function' ? (getBuiltin('node:fs') as typeof Fs | undefined) : undefined;
  const path = typeof getBuiltin === 'function' ? (getBuiltin('node:path') as typeof Path | undefined) : undefined;
  if (!fs || !path) {
    throw new PaymentsError(
      `${who} needs a file system (Node.js 22.3+, Bun or Deno). On an edge runtime, use d1Store, redisStore or postgresStore.`,
    );
  }
  return { fs, path };
}

/** Whether a process with this id runs on this machine (a zombie or another user's counts as running). */
function running(pid: number): boolean {
  try {
    proc().kill(pid, 0);
    return true;
  } catch (error) {
    return (error as { code?: unknown }).code === 'EPERM';
  }
}

/**
 * Takes the lock of `file`: creates `lockPath` exclusively, holding this process's id. A lock whose
 * process no longer runs is stale and taken over; a live one refuses, naming the lock file and its
 * process. Resolves to the function that gives the lock back.
 *
 * A stale lock is taken over by one process at a time, under a second lock (the directory
 * `<lockPath>.takeover`): two processes that found the same stale lock would otherwise both remove it,
 * the second removing the lock the first had just created, and both would hold the file.
 */
export async function takeLock(fs: typeof Fs, who: string, lockPath: string, file: string): Promise<() => Promise<void>> {
  const pid = Number(proc().pid);
  const create = () =>
    fs.promises.writeFile(lockPath, `${pid}\n`, { flag: 'wx' }).then(
      () => true,
      (error: unknown) => {
        if ((error as { code?: unknown }).code !== 'EEXIST') throw error;
        return false;
      },
    );
  const giveBack = () => fs.promises.rm(lockPath, { force: true });
  if (await create()) return giveBack;
  const endTakeover = await startTakeover(fs, lockPath);
  try {
    for (let attempt = 0; ; attempt++) {
      if (attempt > 0 && (await create())) return giveBack;
      const holder = Number.parseInt(await fs.promises.readFile(lockPath, 'utf8').catch(() => ''), 10);
      if (Number.isSafeInteger(holder) && holder > 0 && running(holder)) {
        throw new PaymentsError(
          `${who}: ${file} is in use by process ${holder}${holder === pid ? ' (this one)' : ''}, which holds its lock file ${lockPath}: ` +
            `one process at a time per store file. Close the other store first; if no such process runs, delete ${lockPath}.`,
        );
      }
      if (attempt >= 3)
        throw new PaymentsError(`${who}: the lock file ${lockPath} could not be taken over; delete it if no process uses ${file}.`);
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
  } finally {
    await endTakeover();
  }
}

/** How long a takeover may hold its directory before it counts as left by a process that died in it. */
const TAKEOVER_STALE_MS = 10_000;

/** Waits for the takeover of `lockPath` to be this process's alone; resolves to the function that ends it. */
async function startTakeover(fs: typeof Fs, lockPath: string): Promise<() => Promise<void>> {
  const dir = `${lockPath}.takeover`;
  for (;;) {
    try {
      await fs.promises.mkdir(dir);
      return () => fs.promises.rm(dir, { recursive: true, force: true });
    } catch (error) {
      if ((error as { code?: unknown }).code !== 'EEXIST') throw error;
    }
    // Another process is taking the lock over: that lasts a few seconds at most.
    const since = await fs.promises.stat(dir).then(
      (st) => Date.now() - st.mtimeMs,
      () => 0,
    );
    if (since > TAKEOVER_STALE_MS) await fs.promises.rm(dir, { recursive: true, force: true });
    else await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
