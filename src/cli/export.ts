/**
 * `payments-sdk export <resource>`: every page of a list, streamed through the SDK's pagination to
 * CSV or JSON lines, written page by page as it arrives (one page in memory). Amounts stay in minor
 * units, each followed by a formatted column. Ctrl-C stops between pages: the file ends on the last
 * complete row.
 */
import v8 from 'node:v8';
import { runInNewContext } from 'node:vm';
import type { Command } from 'commander';
import type { PaymentsClient } from '../client.js';
import type { PagePromise } from '../core/pagination.js';
import { readAhead } from '../internal/read-ahead.js';
import { amountFormatterFor } from '../money.js';
import { type ClientFlags, clientFrom } from './client-from-env.js';
import { csvWriter } from './csv-writer.js';
import { CliError, EXIT } from './exit-codes.js';
import type { GlobalOptions } from './global-options.js';
import { integerOption } from './integer-option.js';
import { onInterrupt } from './interrupt.js';
import { fileOutput, type Output, printJson, stdoutOutput } from './output.js';
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
}

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
    .option('--per-page <n>', 'page size', integerOption('--per-page', 1, 100), 100)
    .option('--api-key <key>', 'API key (default: PAYMENTS_API_KEY; prefer the environment)')
    .option('--base-url <url>', 'service URL (default: PAYMENTS_BASE_URL)')
    .addHelpText(
      'after',
      `
CSV columns: the resource's fields; nested objects as JSON; amounts in minor units, each followed by
<field>_formatted. Payouts and payment links add the fields of their first page. A progress bar
shows on stderr when it is a terminal. Ctrl-C stops after the current page: the file ends on the
last complete row (exit 130).`,
    )
    .action(async (resource: string, options: ExportOptions, command: Command) => {
      await runExport(resource, options, command.optsWithGlobals<GlobalOptions>());
    });
}

const DATE = /^\d{4}-\d{2}-\d{2}$/;

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

/** The semi-space capacity at which an export stops the young generation's growth (two of them: 16 MB). */
const SEMI_SPACE_CAP = 8 * 1024 * 1024;
/** How much the old generation's use may grow between two full collections during an export. */
const OLD_GENERATION_SLACK = 8 * 1024 * 1024;
/** Calls after which V8 compiles a function with Maglev during an export (V8's default is far lower). */
const MAGLEV_INVOCATIONS = 2000;

/**
 * Keeps an export's memory flat; called after each page. An export allocates fast and briefly (a
 * `Request` per page, the body, the parsed envelope, the CSV text), and V8 answers that rate in two
 * ways that hold memory which is almost all dead:
 * - It doubles the young generation up to its default maximum (128 MB). `--max-semi-space-size` is
 *   read only when the heap is made, but the growth factor is read at each resize: once a semi-space
 *   has reached the cap, a factor of 1 stops it there. A semi-space's capacity is what it holds plus
 *   what it has left (`space_used_size + space_available_size` of `new_space`), counted without page
 *   headers, so a little under the power of two it is sized to: more than half the cap means it has
 *   doubled to the cap. The new space's `space_size` is no measure of it: since V8 14 (Node 26) it
 *   counts only the pages committed so far, which reach twice the capacity only after the next
 *   doubling has already happened.
 * - What a scavenge cannot free moves to the old generation: each request's fetch objects (request,
 *   headers, streams, abort signals), tied to finalizers and weak references that only a full
 *   collection clears, however often the young generation is scavenged. V8 collects the old
 *   generation only near a limit sized for far larger heaps; a full collection each time its use
 *   has grown by the slack keeps it near its live size (a few milliseconds each).
 * Scavenges run on this thread alone: in a young generation this small little survives each one,
 * and they take no longer without V8's helper threads, whose CPU the rest of the machine can use.
 * At an export's start hundreds of functions reach V8's Maglev threshold at once, and their queued
 * compile jobs hold tens of megabytes of compiler memory at the peak, most of it kept by malloc
 * after. A higher threshold leaves out the lukewarm ones (half as many compilations, a lower peak);
 * the hot ones are compiled as before. (Figures: BENCHMARKS.md, CLI.)
 * All of it changes this process only, which ends with the export.
 */
function memoryKeeper(): () => void {
  let capped = false;
  let collect: (() => void) | undefined;
  let oldFloor = -1;
  v8.setFlagsFromString('--no-parallel-scavenge');
  v8.setFlagsFromString(`--invocation-count-for-maglev=${MAGLEV_INVOCATIONS}`);
  try {
    v8.setFlagsFromString('--expose-gc');
    collect = runInNewContext('gc') as () => void;
  } catch {
    collect = undefined;
  }
  return () => {
    const spaces = v8.getHeapSpaceStatistics();
    const young = spaces.find((s) => s.space_name === 'new_space');
    // A V8 that reports no new space is capped at once: the cap must not depend on finding it.
    if (!capped && (!young || young.space_used_size + young.space_available_size > SEMI_SPACE_CAP / 2)) {
      v8.setFlagsFromString('--semi-space-growth-factor=1');
      capped = true;
    }
    const old = spaces.find((s) => s.space_name === 'old_space')?.space_used_size ?? 0;
    if (oldFloor < 0) oldFloor = old;
    else if (collect && old >= oldFloor + OLD_GENERATION_SLACK) {
      collect();
      oldFloor = v8.getHeapSpaceStatistics().find((s) => s.space_name === 'old_space')?.space_used_size ?? 0;
    }
  };
}

function cell(value: unknown): unknown {
  if (value === null || value === undefined) return '';
  if (typeof value === 'object') return JSON.stringify(value);
  return value;
}

async function runExport(resource: string, options: ExportOptions, globals: GlobalOptions): Promise<void> {
  const spec = RESOURCES[resource];
  const problems: string[] = [];
  if (!spec) problems.push(`unknown resource ${JSON.stringify(resource)}: choose one of ${Object.keys(RESOURCES).join(', ')}`);
  if (options.from !== undefined && !DATE.test(options.from))
    problems.push(`--from must be YYYY-MM-DD, got ${JSON.stringify(options.from)}`);
  if (options.to !== undefined && !DATE.test(options.to)) problems.push(`--to must be YYYY-MM-DD, got ${JSON.stringify(options.to)}`);
  const format = options.format ?? (options.out?.endsWith('.jsonl') || options.out?.endsWith('.ndjson') ? 'jsonl' : 'csv');
  if (format !== 'csv' && format !== 'jsonl') problems.push(`--format must be csv or jsonl, got ${JSON.stringify(options.format)}`);
  if (problems.length > 0) throw new CliError(`${problems.join('; ')}.`);
  const client = clientFrom(options);
  const params: Record<string, unknown> = { per_page: options.perPage };
  if (options.from) params.from = options.from;
  if (options.to) params.to = options.to;
  if (options.status) params.status = options.status;

  const controller = new AbortController();
  const removeHandler = onInterrupt(() => controller.abort());
  let out: Output;
  try {
    out = options.out ? fileOutput(options.out) : stdoutOutput();
  } catch (error) {
    removeHandler();
    throw new CliError(`cannot write ${options.out}: ${(error as Error).message}`, EXIT.usage);
  }
  let progress: Progress | undefined;
  const amount = amountFormatter(options.locale);
  const { amounts } = spec as ResourceSpec;
  let header: string[] | undefined;
  let count = 0;
  let interrupted = false;
  const keepMemoryFlat = memoryKeeper();
  const csv = format === 'csv' ? csvWriter() : undefined;
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
        if (csv) await out.write(csv([header]));
      }
      let chunk = '';
      if (!csv) {
        for (const item of page.data) chunk += `${JSON.stringify(item)}\n`;
      } else if (page.data.length > 0) {
        chunk = csv(page.data.map((item) => plan.map((column) => column(item))));
      }
      // One write per page: the file always ends on a complete row.
      await out.write(chunk);
      count += page.data.length;
      keepMemoryFlat();
      progress?.update(count);
      if (controller.signal.aborted) break;
    }
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
  const summary = { resource, format, count, out: options.out ?? null, interrupted };
  if (globals.json && options.out) printJson(summary);
  else
    process.stderr.write(
      `${interrupted ? 'Interrupted: ' : ''}exported ${count} ${resource}${options.out ? ` to ${options.out}` : ''}${interrupted ? ' (valid up to the last complete row)' : ''}\n`,
    );
  process.exitCode = interrupted ? EXIT.interrupted : EXIT.ok;
}
