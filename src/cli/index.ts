/**
 * The `payments-sdk` command line (`npx payments-sdk <command>`): `mock`, `trigger`, `export`,
 * `payouts bulk`, `reconcile` and `db schema`. Keys come from the environment (`PAYMENTS_API_KEY`, `PAYMENTS_BASE_URL`,
 * `PAYMENTS_WEBHOOK_SECRET`, `PAYMENTS_STORE_URL`) or flags and are never printed. Errors are one line (`--debug` adds the
 * stack); exit codes are listed in `--help`. Built for Node only, as `dist/cli.js`.
 */
import { Command, CommanderError } from 'commander';
import { VERSION } from '../version.js';
import { registerDb } from './db.js';
import { EXIT, EXIT_CODES_HELP, reportError } from './exit-codes.js';
import { registerExport } from './export.js';
import type { GlobalOptions } from './global-options.js';
import { registerMock } from './mock.js';
import { registerPayouts } from './payouts-bulk.js';
import { registerReconcile } from './reconcile.js';
import { registerTrigger } from './trigger.js';

/** Builds the program with every command. */
export function buildProgram(): Command {
  const program = new Command('payments-sdk')
    .description('Command line of payments-sdk: a local mock service, webhook triggers, exports, bulk payouts and reconciliation.')
    .version(VERSION, '-v, --version')
    .option('--json', 'machine output: JSON on stdout')
    .option('--debug', 'print stacks with errors')
    .showSuggestionAfterError()
    .exitOverride();
  registerMock(program);
  registerTrigger(program);
  registerExport(program);
  registerPayouts(program);
  registerReconcile(program);
  registerDb(program);
  program.addHelpText(
    'afterAll',
    `\nKeys come from PAYMENTS_API_KEY, PAYMENTS_BASE_URL, PAYMENTS_WEBHOOK_SECRET and PAYMENTS_STORE_URL\n(or flags: prefer the environment, as flags show in the process list), and are never printed.${EXIT_CODES_HELP}`,
  );
  for (const command of program.commands) {
    command.exitOverride();
    for (const sub of command.commands) sub.exitOverride();
  }
  return program;
}

/** Runs the command line with `argv` (process.argv by default). Sets `process.exitCode`. */
export async function main(argv: string[] = process.argv): Promise<void> {
  const program = buildProgram();
  process.stdout.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code === 'EPIPE') process.exit(EXIT.ok);
  });
  try {
    await program.parseAsync(argv);
  } catch (error) {
    if (error instanceof CommanderError) {
      // Help and version exit 0; anything else commander reports (already printed as one line) is usage.
      process.exitCode = error.exitCode === 0 ? EXIT.ok : EXIT.usage;
      return;
    }
    // The reader of stdout went away (`| head`): what it wanted was written; stop quietly, as Unix tools do.
    if ((error as { code?: string }).code === 'EPIPE') return;
    reportError(error, program.opts<GlobalOptions>());
  }
}

await main();
