/**
 * `payments-sdk export <resource>`: every page of a list, streamed through the SDK's pagination to
 * CSV or JSON lines, written page by page as it arrives (one page in memory). Amounts stay in minor
 * units, each followed by a formatted column. Memory stays flat by back-pressure alone: a page is
 * written before the page after the next is asked for. A file appears whole or not at all: a
 * failure or Ctrl-C leaves whatever `--out` held before.
 */
import { extname } from 'node:path';
import type { Command } from 'commander';
import type { PaymentsClient } from '../client.js';
import type { PagePromise } from '../core/pagination.js';
import { readAhead } from '../internal/read-ahead.js';
import { amountFormatterFor } from '../money.js';
import { isCalendarDate } from '../schemas/list-params.js';
import { type ClientFlags, clientFrom } from './client-from-env.js';
import { CSV_SEPARATORS, csvWriter } from './csv-writer.js';
import { CliError, describeError, EXIT, exitCodeOf } from './exit-codes.js';
import type { GlobalOptions } from './global-options.js';
import { integerOption } from './integer-option.js';
import { onInterrupt } from './interrupt.js';
import { openOutput, plural, printJson } from './output.js';
import { createProgress, type Progress } from './progress.js';

/** What each resource exports: its list call, its leading columns, and which of them are amounts. */
interface ResourceSpec {
  list(client: PaymentsClient, params: Record<string, unknown>, signal: AbortSignal): PagePromise<Record<string, unknown>>;
  columns: string[];
  amounts: string[];
}

/** The columns of a payment in CSV, in order (amounts in minor units). */
export const PAYMENT_COLUMNS: readonly string[] = [
  'uuid',
  'created_at',
  'status',
  'checkout_session',
  'currency',
  'gross_amount',
  'psp_fee_amount',
  'platform_fee_amount',
  'net_amount_to_merchant',
  'payment_method',
  'mobile_money_country',
  'mobile_money_provider',
  'psp_reference',
  'failure_reason',
];

const RESOURCES: Record<string, ResourceSpec> = {
  payments: {
    list: (c, params, signal) => c.payments.list(params, { signal }) as unknown as PagePromise<Record<string, unknown>>,
    columns: [...PAYMENT_COLUMNS],
    amounts: ['gross_amount', 'psp_fee_amount', 'platform_fee_amount', 'net_amount_to_merchant'],
  },
  'checkout-sessions': {
    list: (c, params, signal) => c.checkoutSessions.list(params, { signal }) as unknown as PagePromise<Record<string, unknown>>,
    columns: [
      'reference',
      'created_at',
      'status',
      'currency',
      'amount',
      'description',
      'payer_name',
      'payer_email',
      'payer_phone',
      'success_url',
      'cancel_url',
      'checkout_url',
      'expires_at',
      'metadata',
    ],
    amounts: ['amount'],
  },
  payouts: {
    list: (c, params, signal) => c.payouts.list(params, { signal }) as unknown as PagePromise<Record<string, unknown>>,
    columns: ['id', 'created_at', 'status', 'currency', 'amount'],
    amounts: ['amount'],
  },
  'payment-links': {
    list: (c, params, signal) => c.paymentLinks.list(params, { signal }) as unknown as PagePromise<Record<string, unknown>>,
    columns: ['uuid', 'created_at', 'status', 'title', 'currency', 'amount', 'minimum_amount', 'url'],
    amounts: ['amount', 'minimum_amount'],
  },
};

interface ExportOptions extends ClientFlags {
  from?: string;
  to?: string;
  status?: string;
  format?: 'csv' | 'jsonl';
  out?: string;
  locale?: string;
  perPage: number;
  /** `false` with `--no-escape-formulas`. */
  escapeFormulas: boolean;
  bom?: boolean;
  delimiter?: string;
}

/** Each resource's name for one and for many, for messages: `1 payment`, `2 checkout sessions`. */
const NOUNS: Readonly<Record<string, readonly [string, string]>> = {
  payments: ['payment', 'payments'],
  'checkout-sessions': ['checkout session', 'checkout sessions'],
  payouts: ['payout', 'payouts'],
  'payment-links': ['payment link', 'payment links'],
};

/** Registers `export` on the program. */
export function registerExport(program: Command): void {
  program
    .command('export')
    .description('stream every page of a list to CSV or JSON lines')
    .argument('<resource>', `one of ${Object.keys(RESOURCES).join(', ')}`)
    .option('--from <YYYY-MM-DD>', 'created on or after this date')
    .option('--to <YYYY-MM-DD>', 'created on or before this date')
    .option('--status <status>', 'only this status')
    .option('--format <csv|jsonl>', "output format (default: from --out's extension, else csv)")
    .option('--out <file>', 'write to this file (default: stdout)')
    .option('--locale <bcp47>', "locale of the formatted amount columns (default: the system's)")
    .option('--no-escape-formulas', "write CSV cells that start with =, +, -, @, tab or CR as they are (default: prefixed with ')")
    .option('--bom', 'start the CSV with a UTF-8 byte-order mark, so that Excel reads accents and currency signs right')
    .option('--delimiter <char>', 'CSV field separator: "," (default), ";" (Excel where a comma is the decimal separator) or tab')
    .option('--per-page <n>', 'page size', integerOption('--per-page', 1, 100), 100)
    .option('--api-key <key>', 'API key (default: PAYMENTS_API_KEY; prefer the environment)')
    .option('--base-url <url>', 'service URL (default: PAYMENTS_BASE_URL)')
    .addHelpText(
      'after',
      `
CSV columns: the resource's fields; nested objects as JSON; amounts in minor units, each followed by
<field>_formatted. Payouts and payment links add the fields of their first page. A text cell that
starts with =, +, -, @, tab or CR gets a leading ' so that a spreadsheet shows it as text instead
of running it as a formula (--no-escape-formulas turns this off). A progress bar shows on stderr
when it is a terminal.

--out appears whole or not at all: it is written beside its name and renamed at the end. A failure
or Ctrl-C (exit 130) leaves whatever the file held before; the message says how many rows were
read. On stdout, Ctrl-C stops after the current page, on a complete row.`,
    )
    .action(async (resource: string, options: ExportOptions, command: Command) => {
      await runExport(resource, options, command.optsWithGlobals<GlobalOptions>());
    });
}

/** The CSV header of a resource: its columns, the first page's other fields, and a formatted column after each amount. */
function headerOf(spec: ResourceSpec, first: readonly Record<string, unknown>[]): string[] {
  const fields = [...spec.columns];
  for (const item of first) for (const key of Object.keys(item)) if (!fields.includes(key)) fields.push(key);
  return fields.flatMap((field) => (spec.amounts.includes(field) ? [field, `${field}_formatted`] : [field]));
}

/**
 * The formatted amount of a cell: `formatAmount` with the code checked and the formatter found once
 * per currency (`amountFormatterFor`), kept for the export's few currencies. An unknown currency
 * gives an empty column, never a guessed exponent.
 */
function amountFormatter(locale: string | undefined): (amount: unknown, currency: unknown) => string {
  const byCurrency = new Map<string, ((amount: number) => string) | null>();
  return (amount, currency) => {
    if (typeof amount !== 'number' || typeof currency !== 'string') return '';
    let format = byCurrency.get(currency);
    if (format === undefined) {
      try {
        format = amountFormatterFor(currency, locale);
      } catch {
        format = null;
      }
      // Currencies come from the service: a bound, so that a stream of bad codes cannot grow it.
      if (byCurrency.size >= 64) byCurrency.clear();
      byCurrency.set(currency, format);
    }
    if (format === null) return '';
    try {
      return format(amount);
    } catch {
      return '';
    }
  };
}

function cell(value: unknown): unknown {
  if (value === null || value === undefined) return '';
  if (typeof value === 'object') return JSON.stringify(value);
  return value;
}

/** The file extensions of each format. A file named otherwise would be misread (`x.xlsx` holding CSV). */
const EXTENSIONS: Record<'csv' | 'jsonl', readonly string[]> = { csv: ['.csv'], jsonl: ['.jsonl', '.ndjson'] };

/**
 * The format of an export: `--format`, else the `--out` extension's, else CSV. An `--out` whose
 * extension is not one of the format's is a problem, found before any request.
 */
function formatOf(options: ExportOptions, problems: string[]): 'csv' | 'jsonl' {
  const extension = options.out === undefined ? '' : extname(options.out).toLowerCase();
  const byExtension = (Object.keys(EXTENSIONS) as Array<'csv' | 'jsonl'>).find((f) => EXTENSIONS[f].includes(extension));
  const format = options.format ?? byExtension ?? 'csv';
  if (format !== 'csv' && format !== 'jsonl') {
    problems.push(`--format must be csv or jsonl, got ${JSON.stringify(options.format)}`);
    return 'csv';
  }
  if (extension !== '' && byExtension !== format) {
    problems.push(
      `--out ${options.out}: a ${format === 'csv' ? 'CSV' : 'JSON lines'} export goes to a ${EXTENSIONS[format].join(' or ')} file, not ${extension}` +
        (options.format === undefined ? ' (exports are CSV or JSON lines; Excel opens a .csv: add --bom)' : ''),
    );
  }
  if (options.bom && format !== 'csv') problems.push('--bom is for CSV files only (a byte-order mark breaks JSON lines readers)');
  if (options.delimiter !== undefined && format !== 'csv') problems.push('--delimiter is for CSV files only');
  else if (options.delimiter !== undefined && CSV_SEPARATORS[options.delimiter.toLowerCase()] === undefined)
    problems.push(`--delimiter must be ",", ";" or tab, got ${JSON.stringify(options.delimiter)}`);
  return format;
}

async function runExport(resource: string, options: ExportOptions, globals: GlobalOptions): Promise<void> {
  const spec = RESOURCES[resource];
  const problems: string[] = [];
  if (!spec) problems.push(`unknown resource ${JSON.stringify(resource)}: choose one of ${Object.keys(RESOURCES).join(', ')}`);
  if (options.from !== undefined && !isCalendarDate(options.from))
    problems.push(`--from must be a date YYYY-MM-DD, got ${JSON.stringify(options.from)}`);
  if (options.to !== undefined && !isCalendarDate(options.to))
    problems.push(`--to must be a date YYYY-MM-DD, got ${JSON.stringify(options.to)}`);
  const format = formatOf(options, problems);
  if (problems.length > 0) throw new CliError(`${problems.join('; ')}.`);
  const client = clientFrom(options);
  const params: Record<string, unknown> = { per_page: options.perPage };
  if (options.from) params.from = options.from;
  if (options.to) params.to = options.to;
  if (options.status) params.status = options.status;

  const controller = new AbortController();
  const out = openOutput(options.out);
  const removeHandler = onInterrupt(() => controller.abort());
  let progress: Progress | undefined;
  const amount = amountFormatter(options.locale);
  const { amounts } = spec as ResourceSpec;
  let header: string[] | undefined;
  let count = 0;
  let pages = 0;
  let failure: unknown;
  const delimiter = CSV_SEPARATORS[(options.delimiter ?? ',').toLowerCase()] ?? ',';
  const csv = format === 'csv' ? csvWriter({ escape_formulas: options.escapeFormulas !== false, delimiter }) : undefined;
  try {
    let plan: Array<(item: Record<string, unknown>) => unknown> = [];
    for await (const page of readAhead((spec as ResourceSpec).list(client, params, controller.signal).pages())) {
      if (header === undefined) {
        progress = createProgress(`export ${resource}`, page.meta.total);
        header = headerOf(spec as ResourceSpec, page.data);
        plan = header.map((column) => {
          const base = column.slice(0, -'_formatted'.length);
          if (column.endsWith('_formatted') && amounts.includes(base)) return (item) => amount(item[base], item.currency);
          return (item) => cell(item[column]);
        });
        if (csv) await out.write(`${options.bom ? '\uFEFF' : ''}${csv([header])}`);
      }
      let chunk = '';
      if (!csv) {
        for (const item of page.data) chunk += `${JSON.stringify(item)}\n`;
      } else if (page.data.length > 0) {
        chunk = csv(page.data.map((item) => plan.map((column) => column(item))));
      }
      // One write per page, finished (or drained, on stdout) before the page after the next is
      // asked for: back-pressure keeps memory flat, and stdout always ends on a complete row.
      await out.write(chunk);
      count += page.data.length;
      pages += 1;
      progress?.update(count);
      if (controller.signal.aborted) break;
    }
  } catch (error) {
    if (!controller.signal.aborted) failure = error;
  } finally {
    progress?.stop();
    removeHandler();
  }
  const interrupted = controller.signal.aborted;
  // A file is renamed into place only when every page was written; otherwise its old content stays.
  if (failure === undefined && !interrupted) out.close();
  else out.discard();
  const [one, many] = NOUNS[resource] ?? [resource, resource];
  const read = `${plural(count, one, many)} read over ${plural(pages, 'page')}`;
  const notWritten = options.out ? `${options.out} not written (what it held before is untouched)` : undefined;
  if (failure !== undefined) {
    // What was and was not written: nothing is said when nothing was read and no file is at stake.
    const said = [pages > 0 ? read : undefined, notWritten ?? (pages > 0 ? 'stdout holds only those rows' : undefined)];
    const what = said.filter(Boolean).join(', ');
    const wrapped = new CliError(`${describeError(failure)}${what ? `; ${what}.` : ''}`, exitCodeOf(failure));
    if (failure instanceof Error && failure.stack) wrapped.stack = `${wrapped.message}\n${failure.stack}`;
    throw wrapped;
  }
  const written = options.out !== undefined && !interrupted;
  if (globals.json && options.out) printJson({ resource, format, count, out: options.out, written, interrupted });
  else if (interrupted) {
    process.stderr.write(
      `Interrupted: ${read}; ${notWritten ?? 'stdout ends on the last complete row'}. Run the command again for the whole export.\n`,
    );
  } else process.stderr.write(`exported ${plural(count, one, many)}${options.out ? ` to ${options.out}` : ''}\n`);
  process.exitCode = interrupted ? EXIT.interrupted : EXIT.ok;
}
