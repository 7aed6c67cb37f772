/**
 * Where a command's output goes: one line of machine (`--json`) output on stdout, and the `Output`
 * sinks that rows are written to (a file written synchronously, or stdout with back-pressure), each
 * taking a whole chunk per call so the output always ends on a complete row.
 */
import { once } from 'node:events';
import { closeSync, openSync, writeSync } from 'node:fs';

/** Writes one line of machine output (`--json`) to stdout. */
export function printJson(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value)}\n`);
}

/** Where rows go: a whole chunk per call, so the output always ends on a complete row. */
export interface Output {
  write(chunk: string): Promise<void>;
  close(): void;
}

/**
 * A file written synchronously, chunk by chunk: a page's rows reach the file before the next page is
 * processed (nothing piles up in a stream's buffer), and Ctrl-C between pages finds whole rows only.
 */
export function fileOutput(path: string): Output {
  const fd = openSync(path, 'w');
  return {
    async write(chunk) {
      const written = writeSync(fd, chunk);
      if (written < Buffer.byteLength(chunk)) {
        const rest = Buffer.from(chunk).subarray(written);
        for (let at = 0; at < rest.length; ) at += writeSync(fd, rest, at);
      }
    },
    close: () => closeSync(fd),
  };
}

/** stdout, waiting for `drain` when the reader is slower than the export. */
export function stdoutOutput(): Output {
  return {
    async write(chunk) {
      if (!process.stdout.write(chunk)) await once(process.stdout, 'drain');
    },
    close() {},
  };
}
