/**
 * `payments-sdk payouts bulk <file.csv> --batch-id ID`: `client.payouts.createMany` from a CSV.
 * Every row is checked before anything is sent (all bad rows are listed with their CSV line);
 * then a progress bar, and a results CSV (row, key, payout id, status, error) written as results
 * come. A journal file next to the CSV (or `--journal`) makes a rerun of the same command resume the
 * batch: rows done are skipped, rows sent without a known outcome are resent with the same
 * Idempotency-Key. Ctrl-C stops new sends, waits for those in flight, and leaves the journal whole.
 */
import { createReadStream } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import type { Command } from 'commander';
import { parse } from 'csv-parse';
import { stringify } from 'csv-stringify/sync';
import type { BulkInvalidRow, BulkResult, BulkSummary } from '../bulk/batch.js';
import { fileJournal } from '../bulk/file-journal.js';
import { InvalidParamsError } from '../core/errors.js';
import type { PayoutCreateParams } from '../schemas/payout.js';
import { type ClientFlags, clientFrom } from './client-from-env.js';
import { CliError, describeError, EXIT } from './exit-codes.js';
import type { GlobalOptions } from './global-options.js';
import { integerOption } from './integer-option.js';
import { onInterrupt } from './interrupt.js';
import { fileOutput, printJson, stdoutOutput } from './output.js';
import { createProgress } from './progress.js';

interface BulkOptions extends ClientFlags {
  batchId: string;
  journal?: string;
  concurrency: number;
  results?: string;
}

/** CSV columns and where they go in the payout params. `destination_*` spellings are accepted too. */
const COLUMNS: Record<string, string[]> = {
  key: ['key'],
  amount: ['amount'],
  currency: ['currency'],
  type: ['destination', 'type'],
  country: ['destination', 'country'],
  provider: ['destination', 'provider'],
  phone: ['destination', 'phone'],
};
const REQUIRED = ['amount', 'currency', 'country', 'provider', 'phone'];
const RESULT_COLUMNS = ['row', 'key', 'payout_id', 'status', 'error'];

/** A payout row of the CSV: the params, its key (the `key` column), and its line in the file. */
type CsvRow = PayoutCreateParams & { readonly [LINE]?: number; readonly [KEY]?: string };
const LINE = Symbol('line');
const KEY = Symbol('key');

/** Registers `payouts bulk` on the program. */
export function registerPayouts(program: Command): void {
  const payouts = program.command('payouts').description('payouts from the command line');
  payouts
    .command('bulk')
    .description('create many payouts from a CSV (payouts.createMany): checked first, resumable')
    .argument('<file.csv>', `columns: ${REQUIRED.join(', ')}; optional: key, type (default mobile_money)`)
    .requiredOption('--batch-id <id>', "names the batch: every row's Idempotency-Key derives from it and the row key")
    .option('--journal <file>', 'journal file (default: <file.csv>.<batch-id>.journal, next to the CSV)')
    .option('--concurrency <n>', 'sends in flight at most', integerOption('--concurrency', 1, 256), 4)
    .option('--results <file>', 'results CSV (default: <file.csv>.<batch-id>.results.csv; "-" for stdout)')
    .option('--api-key <key>', 'live API key (default: PAYMENTS_API_KEY; prefer the environment)')
    .option('--base-url <url>', 'service URL (default: PAYMENTS_BASE_URL)')
    .addHelpText(
      'after',
      `
Columns may also be spelled destination_type, destination_country, destination_provider,
destination_phone; other columns are ignored. Give each row a stable "key" column (a payroll
line id): the key, with --batch-id, makes the Idempotency-Key, so a row is never paid twice. Without
it the row's position is its key: do not reorder the file between runs.
Every row is checked first; bad rows are listed with their CSV line and nothing is sent (exit 3).
Rerun the same command to resume: rows done are skipped. Ctrl-C stops new sends, waits for those in
flight, and writes the journal (exit 130). Exit 1 when a row failed.`,
    )
    .action(async (file: string, options: BulkOptions, command: Command) => {
      await runBulk(file, options, command.optsWithGlobals<GlobalOptions>());
    });
}

/** The header of the CSV, checked: which column index goes where. */
function readHeader(header: string[]): { fields: Array<string[] | undefined>; ignored: string[] } {
  const names = header.map((h) =>
    h
      .trim()
      .toLowerCase()
      .replace(/^destination[_.]/, ''),
  );
  const missing = REQUIRED.filter((name) => !names.includes(name));
  if (missing.length > 0) {
    throw new CliError(
      `the CSV has no ${missing.map((m) => `"${m}"`).join(', ')} column (its header line has ${header.join(', ')}).`,
      EXIT.invalidInput,
    );
  }
  const fields = names.map((name) => COLUMNS[name]);
  const ignored = header.filter((_, i) => fields[i] === undefined);
  return { fields, ignored };
}

/**
 * The rows of the CSV file as payout params, read afresh at each call (the batch reads them twice:
 * checked, then sent), streamed from the file. An empty amount or currency is left out (reported as
 * missing), an empty destination cell is kept as '' (reported as empty), and an amount that is not an
 * integer is kept as written: the check names each of them.
 */
function csvRows(path: string, onHeader: (ignored: string[]) => void): () => AsyncIterable<CsvRow> {
  return async function* rows() {
    const parser = createReadStream(path).pipe(
      parse({ bom: true, trim: true, skip_empty_lines: true, info: true, relax_column_count: true }),
    );
    let fields: Array<string[] | undefined> | undefined;
    for await (const { record, info } of parser as AsyncIterable<{ record: string[]; info: { lines: number } }>) {
      if (!fields) {
        const header = readHeader(record);
        fields = header.fields;
        onHeader(header.ignored);
        continue;
      }
      const row: Record<string | symbol, unknown> = { [LINE]: info.lines };
      record.forEach((value, i) => {
        const path = fields?.[i];
        // An empty optional cell is left out; an empty destination cell stays '' so the check names it.
        if (!path || (value === '' && path[0] !== 'destination')) return;
        const typed = path[0] === 'amount' && /^\d+$/.test(value) ? Number(value) : value;
        if (path[0] === 'key') row[KEY] = value;
        else if (path.length === 1) row[path[0] as string] = typed;
        else {
          const destination = (row.destination ?? { type: 'mobile_money' }) as Record<string, unknown>;
          destination[path[1] as string] = typed;
          row.destination = destination;
        }
      });
      yield row as unknown as CsvRow;
    }
    if (!fields) throw new CliError('the CSV is empty: it needs a header line and at least one row.', EXIT.invalidInput);
  };
}

/** One line per bad row, with its CSV line, naming every bad field. */
function badRowLines(rows: BulkInvalidRow[], lineOf: Map<number, number>): string[] {
  return rows.map((r) => {
    const fields = r.issues.map((issue) => `${issue.path.join('.') || 'row'}: ${issue.message}`).join('; ');
    return `line ${lineOf.get(r.index) ?? '?'}${r.key !== undefined ? ` (key ${JSON.stringify(r.key)})` : ''}: ${fields}`;
  });
}

/** Whether a result leaves its row unpaid: failed now, or in an earlier run. */
function unpaid(result: BulkResult<CsvRow>): boolean {
  if (result.status === 'skipped') {
    const earlier = result.record?.outcome?.status;
    return earlier === 'failed' || earlier === 'conflict';
  }
  return result.status === 'failed' || result.status === 'conflict' || result.status === 'needs_reconciliation';
}

function resultRow(result: BulkResult<CsvRow>, line: number | undefined): unknown[] {
  const recorded = result.record?.outcome;
  const payoutId = result.payout?.id ?? recorded?.payout?.id ?? '';
  const error = result.error
    ? describeError(result.error)
    : result.status === 'skipped' && recorded?.error
      ? `earlier run: ${recorded.status}: ${recorded.error.message}`
      : '';
  return [line ?? result.index + 2, result.key, payoutId, result.status, error];
}

async function runBulk(file: string, options: BulkOptions, globals: GlobalOptions): Promise<void> {
  const batchId = options.batchId.trim();
  if (batchId === '') throw new CliError('--batch-id must not be empty.');
  const safeId = batchId.replace(/[^A-Za-z0-9._-]/g, '_');
  const journalPath = options.journal ?? join(dirname(file), `${basename(file)}.${safeId}.journal`);
  const resultsPath = options.results ?? join(dirname(file), `${basename(file)}.${safeId}.results.csv`);
  const client = clientFrom(options);

  // Index → CSV line, filled as the rows are read (the check reads them all first).
  const lineOf = new Map<number, number>();
  let ignored: string[] = [];
  const read = csvRows(file, (columns) => {
    ignored = columns;
  });
  let index = 0;
  const rows = () => {
    index = 0;
    return (async function* () {
      for await (const row of read()) {
        lineOf.set(index++, row[LINE] as number);
        yield row;
      }
    })();
  };

  const controller = new AbortController();
  let progress: ReturnType<typeof createProgress> | undefined;
  const batch = client.payouts.createMany(rows, {
    batchId,
    key: (row, i) => row[KEY] ?? String(i),
    journal: fileJournal(journalPath),
    concurrency: options.concurrency,
    signal: controller.signal,
    onProgress: (p) => {
      progress ??= createProgress(`payouts ${batchId}`, p.total ?? 0);
      progress.update(p.done);
    },
  });

  const removeHandler = onInterrupt(() => controller.abort());
  let out: ReturnType<typeof fileOutput> | undefined;
  let unpaidRows = 0;
  let summary: BulkSummary | undefined;
  try {
    const iterator = batch[Symbol.asyncIterator]();
    let first: IteratorResult<BulkResult<CsvRow>>;
    try {
      first = await iterator.next();
    } catch (error) {
      throw checkError(error, lineOf, globals);
    }
    if (ignored.length > 0) process.stderr.write(`note: ignored columns: ${ignored.join(', ')}\n`);
    out = resultsPath === '-' ? stdoutOutput() : fileOutput(resultsPath);
    await out.write(stringify([RESULT_COLUMNS]));
    for (let step = first; !step.done; step = await iterator.next()) {
      const result = step.value;
      if (unpaid(result)) unpaidRows += 1;
      await out.write(stringify([resultRow(result, lineOf.get(result.index))]));
    }
    summary = await batch.summary();
  } catch (error) {
    out?.discard();
    throw error;
  } finally {
    progress?.stop();
    removeHandler();
    out?.close();
  }
  const interrupted = controller.signal.aborted || summary.aborted;
  const counts = `created ${summary.created}, replayed ${summary.replayed}, skipped ${summary.skipped}, failed ${summary.failed}, conflict ${summary.conflict}, needs_reconciliation ${summary.needs_reconciliation}`;
  if (globals.json)
    printJson({
      batchId,
      ...summary,
      unpaid: unpaidRows,
      interrupted,
      results: resultsPath === '-' ? null : resultsPath,
      journal: journalPath,
    });
  process.stderr.write(
    `${interrupted ? 'Interrupted: ' : ''}payouts ${batchId}: ${summary.total} rows: ${counts}.${resultsPath === '-' ? '' : ` Results: ${resultsPath}.`}${interrupted ? ' Rerun the same command to finish the batch.' : ''}\n`,
  );
  process.exitCode = interrupted ? EXIT.interrupted : unpaidRows > 0 ? EXIT.failed : EXIT.ok;
}

/** The check's error, as the CLI reports it: every bad row with its CSV line (exit 3). */
function checkError(error: unknown, lineOf: Map<number, number>, globals: GlobalOptions): unknown {
  const rows = (error as { rows?: BulkInvalidRow[] }).rows;
  if (!(error instanceof InvalidParamsError) || !Array.isArray(rows)) {
    // A CSV that cannot be parsed names its line in csv-parse's message.
    if ((error as { code?: string }).code?.startsWith('CSV_'))
      return new CliError(`the CSV cannot be read: ${describeError(error)}`, EXIT.invalidInput);
    return error;
  }
  const lines = badRowLines(rows, lineOf);
  if (globals.json) {
    printJson({
      error: `${rows.length} bad rows: nothing was sent`,
      exitCode: EXIT.invalidInput,
      rows: rows.map((r) => ({ line: lineOf.get(r.index), key: r.key, issues: r.issues })),
    });
  }
  process.stderr.write(`${lines.join('\n')}\n`);
  return new CliError(
    `${rows.length} bad row${rows.length === 1 ? '' : 's'} in the CSV (listed above): nothing was sent.`,
    EXIT.invalidInput,
  );
}
