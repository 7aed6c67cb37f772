/**
 * The exit codes of every `payments-sdk` command and the one-line error report: the `EXIT` table,
 * its `--help` text, the `CliError` a command throws to stop with a given code, and the functions
 * that map any error to its exit code and print it (one line, or the stack under `--debug`).
 */
import { APIConnectionError, APIError, InvalidParamsError } from '../core/errors.js';
import { MockServiceError } from '../testing/mock-errors.js';
import type { GlobalOptions } from './global-options.js';

/** Exit codes of every command (documented in `--help` and docs/cli.md). */
export const EXIT = Object.freeze({
  /** Everything asked was done. */
  ok: 0,
  /** The command ran but part of the work failed (an endpoint answered non-2xx, a payout row failed), or reconcile found payments to look at. */
  failed: 1,
  /** Bad usage: an unknown command or option, a bad option value, a missing API key or secret. */
  usage: 2,
  /** Bad input data (a CSV or seed file): every problem is listed and nothing is sent. */
  invalidInput: 3,
  /** The service could not be used: an API error, a network failure, or an unexpected error. */
  service: 4,
  /** Interrupted by Ctrl-C (SIGINT) after a clean stop: no file half-written, the store is written. */
  interrupted: 130,
});

/** The exit-code table printed at the end of `--help`. */
export const EXIT_CODES_HELP = `
Exit codes:
  0    success
  1    the command ran but part of the work failed (endpoint answered non-2xx or late, a payout row failed),
       or reconcile found payments to look at
  2    bad usage: unknown command or option, bad value, missing API key or secret
  3    invalid input file: every bad row is listed, nothing is sent
  4    service or network error
  130  interrupted (Ctrl-C): an --out file is not written (its old content stays), stdout ends on
       a complete row, the store is written`;

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
