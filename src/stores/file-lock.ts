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
 */
export async function takeLock(fs: typeof Fs, who: string, lockPath: string, file: string): Promise<() => Promise<void>> {
  const pid = Number(proc().pid);
  for (let attempt = 0; ; attempt++) {
    try {
      await fs.promises.writeFile(lockPath, `${pid}\n`, { flag: 'wx' });
      return () => fs.promises.rm(lockPath, { force: true });
    } catch (error) {
      if ((error as { code?: unknown }).code !== 'EEXIST' || attempt >= 3) throw error;
    }
    const holder = Number.parseInt(await fs.promises.readFile(lockPath, 'utf8').catch(() => ''), 10);
    if (Number.isSafeInteger(holder) && holder > 0 && running(holder)) {
      throw new PaymentsError(
        `${who}: ${file} is in use by process ${holder}${holder === pid ? ' (this one)' : ''}, which holds its lock file ${lockPath}: ` +
          `one process at a time per store file. Close the other store first; if no such process runs, delete ${lockPath}.`,
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
