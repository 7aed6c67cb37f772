/**
 * Where a command's output goes: one line of machine (`--json`) output on stdout, and the `Output`
 * sinks that rows are written to (a file that appears whole or not at all, or stdout with
 * back-pressure), each taking a whole chunk per call so the output always ends on a complete row.
 */
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { closeSync, openSync, renameSync, rmSync, writeSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { CliError, EXIT } from './exit-codes.js';

/** A count with its noun, singular for one: `1 row`, `2 rows`, `0 rows` (`nouns` for an irregular plural). */
export function plural(count: number, noun: string, nouns = `${noun}s`): string {
  return `${count} ${count === 1 ? noun : nouns}`;
}

/** Writes one line of machine output (`--json`) to stdout. */
export function printJson(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value)}\n`);
}

/** Where rows go: a whole chunk per call, so the output always ends on a complete row. */
export interface Output {
  write(chunk: string): Promise<void>;
  /** Finishes the output: a file appears under its name, whole, replacing any earlier one. */
  close(): void;
  /** Gives the output up: a file's name keeps what it held before (or stays absent); nothing is written there. */
  discard(): void;
}

/**
 * A file that appears whole or not at all. Rows are written synchronously, chunk by chunk, to a
 * temporary file beside it (same directory, so the rename never crosses file systems): a page's rows
 * leave memory before the next page is read. `close()` renames it over `path`; `discard()` removes
 * it, and whatever `path` held before stays untouched, as it does when the process is killed.
 */
export function fileOutput(path: string): Output {
  const temporary = join(dirname(path), `.${basename(path)}.${process.pid}.${randomBytes(4).toString('hex')}.partial`);
  const fd = openSync(temporary, 'wx');
  let open = true;
  const finish = () => {
    if (!open) return false;
    open = false;
    closeSync(fd);
    return true;
  };
  return {
    async write(chunk) {
      const written = writeSync(fd, chunk);
      if (written < Buffer.byteLength(chunk)) {
        const rest = Buffer.from(chunk).subarray(written);
        for (let at = 0; at < rest.length; ) at += writeSync(fd, rest, at);
      }
    },
    close() {
      if (finish()) renameSync(temporary, path);
    },
    discard() {
      if (finish()) rmSync(temporary, { force: true });
    },
  };
}

/** stdout, waiting for `drain` when the reader is slower than the export. */
export function stdoutOutput(): Output {
  return {
    async write(chunk) {
      if (!process.stdout.write(chunk)) await once(process.stdout, 'drain');
    },
    close() {},
    discard() {},
  };
}

/**
 * Where a command's rows go: `path` as a file that appears whole or not at all, or stdout without
 * one. A path that cannot be written (a missing folder, no permission) is a usage error, before
 * anything is read.
 */
export function openOutput(path: string | undefined): Output {
  try {
    return path ? fileOutput(path) : stdoutOutput();
  } catch (error) {
    throw new CliError(`cannot write ${path}: ${(error as Error).message}`, EXIT.usage);
  }
}
