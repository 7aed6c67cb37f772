/**
 * `payments-sdk reconcile --from DATE`: the findings of `payments.reconcile` over a window, one CSV
 * row or JSON line each, with its `kind`, for a person to read or a cron job to alert on (exit 1
 * when there is any). With a store (`--store` or `PAYMENTS_STORE_URL`: the one the webhook endpoint
 * records its deliveries in), only the payments whose final event it never recorded are `missed`.
 * Without one, every payment whose status is final is listed (kind `missed`), for the merchant to
 * compare with their own records. Payments stuck unsettled are listed apart (kind `stale`). Files
 * appear whole or not at all, as with `export`.
 */
import type { Command } from 'commander';
import type { ReconcileFinding, ReconcileOptions } from '../core/reconcile.js';
import { isCalendarDate } from '../schemas/list-params.js';
import { readField } from '../schemas/read-field.js';
import { type ClientFlags, clientFrom } from './client-from-env.js';
import { csvWriter } from './csv-writer.js';
import { CliError, EXIT } from './exit-codes.js';
import { PAYMENT_COLUMNS } from './export.js';
import type { GlobalOptions } from './global-options.js';
import { integerOption } from './integer-option.js';
import { onInterrupt } from './interrupt.js';
import { openOutput, printJson } from './output.js';
import { createProgress, type Progress } from './progress.js';
import { type OpenedStore, openStore, storeUrlFrom, withoutStoreSecrets } from './store-url.js';

interface ReconcileCliOptions extends ClientFlags {
  from: string;
  to?: string;
  staleAfter: number;
  format?: 'csv' | 'jsonl';
  out?: string;
  store?: string;
}

/** CSV columns: what was found, then the payment. */
const COLUMNS = ['kind', 'expected_event', ...PAYMENT_COLUMNS];
/** Rows written per write: each write holds whole rows, so the output always ends on a complete one. */
const ROWS_PER_WRITE = 100;

/** Registers `reconcile` on the program. */
export function registerReconcile(program: Command): void {
  program
    .command('reconcile')
    .description('list the payments of a window whose final status was never handled, and those stuck pending')
    .requiredOption('--from <YYYY-MM-DD>', 'first day of the window (inclusive, UTC)')
    .option('--to <YYYY-MM-DD>', 'last day of the window (inclusive, UTC; default: no end)')
    .option(
      '--stale-after <minutes>',
      'report a payment still pending this long after its creation',
      integerOption('--stale-after', 0, 525_600),
      30,
    )
    .option('--format <csv|jsonl>', "output format (default: from --out's extension, else csv)")
    .option('--out <file>', 'write to this file (default: stdout)')
    .option(
      '--store <file|url>',
      'the store your webhook endpoint records its deliveries in: a file, or a redis:// or postgres:// URL (default: PAYMENTS_STORE_URL; prefer the environment)',
    )
    .option('--api-key <key>', 'API key (default: PAYMENTS_API_KEY; prefer the environment)')
    .option('--base-url <url>', 'service URL (default: PAYMENTS_BASE_URL)')
    .addHelpText(
      'after',
      `
One CSV row or JSON line per finding, each with its kind:
  missed  a failed payment, or one succeeded or past it (refunded, disputed, a newer status),
          whose event was not handled (expected_event says which)
  stale   a payment still pending or processing past --stale-after
With a store, only the payments whose final event the store never recorded are missed: the
webhooks your endpoint lost. Without one, every payment of the window whose status is final is listed
as missed, for you to compare with your own records. Give a URL in PAYMENTS_STORE_URL rather than
--store: a flag, with its password, is visible to every user of the machine in the process list;
the flag wins when both are set. A redis:// URL needs the redis or ioredis package next to
payments-sdk, a postgres:// URL the pg or postgres package. The store is only read, and its URL is
never printed (its password neither). To handle the missed payments, run
client.payments.reconcile({ from, store, onEvent }) in your app.
Exit 0 when there is no finding, 1 when there is any (for a cron job to alert). CSV cells that
would run as spreadsheet formulas are escaped. A progress bar shows on stderr when it is a terminal.
A file given with --out appears whole or not at all; Ctrl-C stops after the current page (exit 130).`,
    )
    .action(async (options: ReconcileCliOptions, command: Command) => {
      await runReconcile(options, command.optsWithGlobals<GlobalOptions>());
    });
}

/** A finding as one CSV row: its kind and expected event, then the payment's columns. */
function csvRow(finding: ReconcileFinding): unknown[] {
  const row: unknown[] = [finding.kind, finding.expectedEvent ?? ''];
  for (const column of PAYMENT_COLUMNS) {
    const value = readField(finding.payment, column);
    row.push(value === null || value === undefined ? '' : typeof value === 'object' ? JSON.stringify(value) : value);
  }
  return row;
}

function checkOptions(options: ReconcileCliOptions): 'csv' | 'jsonl' {
  const problems: string[] = [];
  if (!isCalendarDate(options.from)) problems.push(`--from must be a date YYYY-MM-DD, got ${JSON.stringify(options.from)}`);
  if (options.to !== undefined && !isCalendarDate(options.to))
    problems.push(`--to must be a date YYYY-MM-DD, got ${JSON.stringify(options.to)}`);
  else if (options.to !== undefined && isCalendarDate(options.from) && options.to < options.from)
    problems.push('--to must not be before --from');
  const format = options.format ?? (options.out?.endsWith('.jsonl') || options.out?.endsWith('.ndjson') ? 'jsonl' : 'csv');
  if (format !== 'csv' && format !== 'jsonl') problems.push(`--format must be csv or jsonl, got ${JSON.stringify(options.format)}`);
  if (problems.length > 0) throw new CliError(`${problems.join('; ')}.`);
  return format;
}

async function runReconcile(options: ReconcileCliOptions, globals: GlobalOptions): Promise<void> {
  const storeUrl = storeUrlFrom(options.store);
  const format = checkOptions(options);
  const client = clientFrom(options);
  const opened = storeUrl ? await openStore(storeUrl) : undefined;
  try {
    await reconcileTo(options, format, client, opened, globals);
  } catch (error) {
    // The command's own errors (a --out it cannot write) name no store, and keep their exit code.
    throw storeUrl && !(error instanceof CliError) ? withoutStoreSecrets(error, storeUrl.url) : error;
  } finally {
    await opened?.close().catch(() => {});
  }
}

async function reconcileTo(
  options: ReconcileCliOptions,
  format: 'csv' | 'jsonl',
  client: ReturnType<typeof clientFrom>,
  opened: OpenedStore | undefined,
  globals: GlobalOptions,
): Promise<void> {
  const controller = new AbortController();
  let progress: Progress | undefined;
  const reconcileOptions: ReconcileOptions<unknown, unknown> = {
    from: options.from,
    ...(options.to ? { to: options.to } : {}),
    stalePendingAfter: options.staleAfter * 60_000,
    // With no store nothing tells this command what was handled: every final payment is listed for comparison.
    ...(opened ? { store: opened.store } : { isHandled: () => false }),
    onProgress: ({ read, total }) => {
      progress ??= createProgress('reconcile', total);
      progress.setTotal(total);
      progress.update(read);
    },
  };
  // Checked before the output is opened: a bad window leaves no file behind.
  const findings = client.payments.reconcile(reconcileOptions, { signal: controller.signal });

  const out = openOutput(options.out);
  const removeHandler = onInterrupt(() => controller.abort());
  const csv = format === 'csv' ? csvWriter({ escape_formulas: true }) : undefined;
  const counts = { missed: 0, stale: 0 };
  let interrupted = false;
  let rows: ReconcileFinding[] = [];
  const flush = async () => {
    if (rows.length === 0) return;
    const chunk = csv ? csv(rows.map(csvRow)) : rows.map((finding) => `${JSON.stringify(finding)}\n`).join('');
    rows = [];
    await out.write(chunk);
  };
  try {
    if (csv) await out.write(csv([COLUMNS]));
    for await (const finding of findings) {
      counts[finding.kind] += 1;
      rows.push(finding);
      if (rows.length >= ROWS_PER_WRITE) await flush();
      if (controller.signal.aborted) break;
    }
    await flush();
  } catch (error) {
    if (!controller.signal.aborted) {
      out.discard();
      throw error;
    }
  } finally {
    progress?.stop();
    removeHandler();
    interrupted = controller.signal.aborted;
    out.close();
  }
  const window = `${options.from} to ${options.to ?? 'now'}`;
  const summary = { from: options.from, to: options.to ?? null, format, ...counts, out: options.out ?? null, interrupted };
  if (globals.json && options.out) printJson(summary);
  else
    process.stderr.write(
      `${interrupted ? 'Interrupted: ' : ''}reconciled payments from ${window}: ${counts.missed} missed, ${counts.stale} stale${options.out ? ` (written to ${options.out})` : ''}\n` +
        (counts.missed > 0 && !opened
          ? 'Without a record of what your endpoint handled, every succeeded or failed payment is listed: compare it with your own.\n'
          : ''),
    );
  process.exitCode = interrupted ? EXIT.interrupted : counts.missed + counts.stale > 0 ? EXIT.failed : EXIT.ok;
}
