/**
 * What every command of the `payments-sdk` command line shares: exit codes, the one-line error
 * report, the client built from the environment or flags, the TTY-only progress bar, Ctrl-C
 * handling and machine (`--json`) output. Node only: the CLI is never loaded by the library entries.
 */
import { once } from 'node:events';
import { closeSync, openSync, writeSync } from 'node:fs';
import cliProgress from 'cli-progress';
import { PaymentsClient } from '../client.js';
import { APIConnectionError, APIError, InvalidParamsError, PaymentsError } from '../core/errors.js';
import { MockServiceError } from '../testing/mock-errors.js';

/** Exit codes of every command (documented in `--help` and docs/cli.md). */
export const EXIT = Object.freeze({
  /** Everything asked was done. */
  ok: 0,
  /** The command ran but part of the work failed: an endpoint answered non-2xx, a payout row failed. */
  failed: 1,
  /** Bad usage: an unknown command or option, a bad option value, a missing API key or secret. */
  usage: 2,
  /** Bad input data (a CSV or seed file): every problem is listed and nothing is sent. */
  invalidInput: 3,
  /** The service could not be used: an API error, a network failure, or an unexpected error. */
  service: 4,
  /** Interrupted by Ctrl-C (SIGINT) after a clean stop: files are valid, the journal is written. */
  interrupted: 130,
});

/** The exit-code table printed at the end of `--help`. */
export const EXIT_CODES_HELP = `
Exit codes:
  0    success
  1    the command ran but part of the work failed (endpoint answered non-2xx, a payout row failed)
  2    bad usage: unknown command or option, bad value, missing API key or secret
  3    invalid input file: every bad row is listed, nothing is sent
  4    service or network error
  130  interrupted (Ctrl-C): output valid up to the last complete row, journal written`;

/** An error the CLI reports as one line, with its exit code. */
export class CliError extends Error {
  /** The process exit code. */
  readonly exitCode: number;

  /** `message` is printed as is after `error: `. */
  constructor(message: string, exitCode: number = EXIT.usage) {
    super(message);
    this.name = 'CliError';
    this.exitCode = exitCode;
  }
}

/** Options every command takes (declared on the program, read with `optsWithGlobals()`). */
export interface GlobalOptions {
  /** Machine output: JSON on stdout. */
  json?: boolean;
  /** Stacks on errors. */
  debug?: boolean;
}

/** The exit code an error maps to. */
export function exitCodeOf(error: unknown): number {
  if (error instanceof CliError) return error.exitCode;
  if (error instanceof InvalidParamsError || error instanceof MockServiceError) return EXIT.usage;
  return EXIT.service;
}

/** One line for an error: its message, with the HTTP status for API errors. Never a stack. */
export function describeError(error: unknown): string {
  if (error instanceof APIError) return `${error.message} (HTTP ${error.status})`;
  if (error instanceof APIConnectionError) {
    const cause = error.cause instanceof Error ? `: ${error.cause.message}` : '';
    return `${error.message}${cause}`;
  }
  if (error instanceof Error) return error.message.split('\n')[0] ?? error.name;
  return String(error);
}

/** Prints the error (one line, or the stack under `--debug`) and sets the exit code. */
export function reportError(error: unknown, options: GlobalOptions): void {
  const line = describeError(error);
  if (options.json) process.stdout.write(`${JSON.stringify({ error: line, exitCode: exitCodeOf(error) })}\n`);
  process.stderr.write(`error: ${line}\n`);
  if (options.debug && error instanceof Error && error.stack) process.stderr.write(`${error.stack}\n`);
  process.exitCode = exitCodeOf(error);
}

/** Flags that give the client's connection (the environment is the default). */
export interface ClientFlags {
  apiKey?: string;
  baseUrl?: string;
}

/**
 * The SDK client of a command: the key from `--api-key` or `PAYMENTS_API_KEY`, the service root
 * from `--base-url` or `PAYMENTS_BASE_URL`. A missing one is a usage error naming both ways.
 */
export function clientFrom(flags: ClientFlags): PaymentsClient {
  const apiKey = flags.apiKey ?? process.env.PAYMENTS_API_KEY;
  const baseUrl = flags.baseUrl ?? process.env.PAYMENTS_BASE_URL;
  const missing = [
    apiKey ? undefined : 'an API key (PAYMENTS_API_KEY or --api-key)',
    baseUrl ? undefined : 'the service URL (PAYMENTS_BASE_URL or --base-url)',
  ].filter(Boolean);
  if (missing.length > 0) throw new CliError(`missing ${missing.join(' and ')}.`, EXIT.usage);
  try {
    return new PaymentsClient({ apiKey, baseUrl });
  } catch (error) {
    if (error instanceof PaymentsError) throw new CliError(error.message, EXIT.usage);
    throw error;
  }
}

/** Writes one line of machine output (`--json`) to stdout. */
export function printJson(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value)}\n`);
}

/** A progress display that can be a no-op. */
export interface Progress {
  /** Sets the total when it becomes known (`meta.total`). */
  setTotal(total: number): void;
  /** Sets how many items are done. */
  update(done: number): void;
  /** Removes the bar from the terminal. */
  stop(): void;
}

const NO_PROGRESS: Progress = { setTotal() {}, update() {}, stop() {} };

/**
 * A progress bar on stderr, only when stderr is a terminal: items out of the total, rate and ETA.
 * In a pipe or a file there is none (machine-readable output stays clean).
 */
export function createProgress(label: string, total = 0): Progress {
  if (!process.stderr.isTTY) return NO_PROGRESS;
  const started = Date.now();
  const bar = new cliProgress.SingleBar(
    {
      stream: process.stderr,
      format: `${label} [{bar}] {value}/{total} | {rate}/s | ETA {eta_formatted}`,
      barCompleteChar: '#',
      barIncompleteChar: '-',
      hideCursor: true,
      clearOnComplete: true,
      etaBuffer: 50,
      fps: 10,
    },
    cliProgress.Presets.legacy,
  );
  bar.start(total, 0, { rate: '0' });
  return {
    setTotal: (n) => bar.setTotal(n),
    update: (done) => {
      const seconds = (Date.now() - started) / 1000;
      bar.update(done, { rate: seconds > 0 ? Math.round(done / seconds).toString() : '0' });
    },
    stop: () => bar.stop(),
  };
}

/**
 * Ctrl-C handling for a command that stops cleanly: the first SIGINT calls `stop` (the command
 * finishes what is in flight and writes what it must), a second one exits at once with 130.
 * Returns a function that removes the handler.
 */
export function onInterrupt(stop: () => void): () => void {
  let count = 0;
  const handler = () => {
    count += 1;
    if (count === 1) {
      process.stderr.write('\nStopping (Ctrl-C again to quit at once)…\n');
      stop();
    } else {
      process.exit(EXIT.interrupted);
    }
  };
  process.on('SIGINT', handler);
  return () => process.off('SIGINT', handler);
}

/** Parses a non-negative integer option, or throws a usage error naming it. */
export function integerOption(name: string, min: number, max: number): (value: string) => number {
  return (value: string) => {
    const n = Number(value);
    if (!/^\d+$/.test(value.trim()) || !Number.isSafeInteger(n) || n < min || n > max) {
      throw new CliError(`${name} must be an integer from ${min} to ${max}, got ${JSON.stringify(value)}.`, EXIT.usage);
    }
    return n;
  };
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
