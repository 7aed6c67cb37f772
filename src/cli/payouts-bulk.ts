/**
 * `payments-sdk payouts bulk <file.csv> --batch-id ID`: `client.payouts.createMany` from a CSV.
 * Each row needs a stable identity: a `key` column, or `--key-by-position` (the store then keeps
 * a hash of each row and refuses a rerun whose rows moved). The CSV is read strictly (every row has
 * the header's fields; the separator is detected or given) and every row is checked before anything
 * is sent (all bad rows are listed with their CSV line); then a progress bar, and a results CSV
 * (row, key, payout id, status, error; spreadsheet formulas escaped) that appears whole at the end.
 * A store (by default a file named after the batch id, locked while the command runs; `--store` or
 * `PAYMENTS_STORE_URL` for another file, or a Redis or Postgres URL that several machines share)
 * makes a rerun resume the batch: rows done are skipped, rows sent without a known outcome are resent
 * with the same Idempotency-Key, and with `--retry-failed` rows the service refused before creating
 * anything are sent again under their same key. Ctrl-C stops new sends, waits for those in flight,
 * and leaves the store whole.
 */
import { createHash } from 'node:crypto';
import { closeSync, createReadStream, mkdirSync, openSync, readSync, realpathSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import type { Command } from 'commander';
import { parse } from 'csv-parse';
import { BulkRowsChangedError } from '../bulk/rows-changed-error.js';
import type { BulkInvalidRow, BulkResult, BulkSummary } from '../bulk/types.js';
import { InvalidParamsError, PaymentsError } from '../core/errors.js';
import type { PayoutCreateParams } from '../schemas/payout.js';
import { BulkResultsFile, startsWithBom } from './bulk-results.js';
import { type ClientFlags, clientFrom } from './client-from-env.js';
import { CSV_SEPARATORS } from './csv-writer.js';
import { CliError, describeError, EXIT } from './exit-codes.js';
import type { GlobalOptions } from './global-options.js';
import { integerOption } from './integer-option.js';
import { onInterrupt } from './interrupt.js';
import { plural, printJson } from './output.js';
import { createProgress } from './progress.js';
import { openStore, STORE_URL_VARIABLE, storeTargetOf, storeUrlFrom, withoutStoreSecrets } from './store-url.js';

interface BulkOptions extends ClientFlags {
  batchId: string;
  store?: string;
  concurrency: number;
  results?: string;
  keyByPosition?: boolean;
  retryFailed?: boolean;
  delimiter?: string;
  escapeFormulas: boolean;
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
const shown = (separator: string) => (separator === '\t' ? 'tab' : `"${separator}"`);

/** The field separator of the CSV and where it came from, for messages. */
interface Separator {
  char: string;
  /** `detected` from the header line, or `given` by --delimiter. */
  source: 'detected' | 'given';
}

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
    .argument('<file.csv>', `columns: key, ${REQUIRED.join(', ')}; optional: type (default mobile_money)`)
    .requiredOption('--batch-id <id>', "names the batch: every row's Idempotency-Key derives from it and the row key")
    .option(
      '--store <file|url>',
      `where runs remember each row: a file, or a redis:// or postgres:// URL shared by several machines (default: ${STORE_URL_HELP})`,
    )
    .option('--concurrency <n>', 'sends in flight at most', integerOption('--concurrency', 1, 256), 4)
    .option('--results <file>', 'results CSV (default: <file.csv>.<batch-id>.results.csv; "-" for stdout)')
    .option(
      '--key-by-position',
      'key rows by their position when the CSV has no "key" column (the file must then never change between runs)',
    )
    .option('--retry-failed', 'send again the rows an earlier run had refused before anything was created (under their same key)')
    .option('--delimiter <separator>', 'field separator: "," ";" or tab (default: detected from the header line)')
    .option('--no-escape-formulas', "write results cells starting with = + - @ tab or CR as they are (default: prefixed with ')")
    .option('--api-key <key>', 'live API key (default: PAYMENTS_API_KEY; prefer the environment)')
    .option('--base-url <url>', 'service URL (default: PAYMENTS_BASE_URL)')
    .addHelpText(
      'after',
      `
Columns may also be spelled destination_type, destination_country, destination_provider,
destination_phone; other columns are ignored. Give each row a stable "key" column (a payroll
line id): the key, with --batch-id, makes the Idempotency-Key, so a row is never paid twice. A CSV
without it is refused, unless --key-by-position: then a row's position is its key, and a rerun whose
rows moved or changed is refused before anything is sent.
Every row must have the header's number of fields; every row is checked first; bad rows are listed
with their CSV line and nothing is sent (exit 3).
Payouts need a live key: a sandbox key is refused before anything is sent.
The store remembers each row: by default the file ${DEFAULT_STORE_DIR}/<batch id>.store in the
current directory, named after the batch id (not the CSV, so a renamed CSV finds it); or --store
FILE, or --store URL (redis://, rediss://, postgres://, postgresql://; needs the redis or ioredis,
pg or postgres package) for workers on several machines. Give a URL with a password in
PAYMENTS_STORE_URL rather than --store: a flag shows in the process list. One run at a time per
store file.
Rerun the same command to resume: rows done are skipped. Each row has one Idempotency-Key, from
--batch-id and its key alone, so a rerun without the store (deleted, another file) is replayed by
the service, never paid twice. Rows refused before anything was created (an invalid phone since
corrected) are sent again, under their same key, with --retry-failed; a row the service keeps
refusing under its key can only be sent in a new batch (a new --batch-id).
Ctrl-C stops new sends, waits for those in flight, and writes the store (exit 130). Exit 1 when a
row is left unpaid.`,
    )
    .action(async (file: string, options: BulkOptions, command: Command) => {
      try {
        await runBulk(file, options, command.optsWithGlobals<GlobalOptions>());
      } catch (error) {
        // Whatever failed, a store URL and its password are never printed.
        const url = storeUrlFrom(options.store)?.url;
        throw url === undefined || error instanceof CliError ? error : withoutStoreSecrets(error, url);
      }
    });
}

/**
 * The separator of the CSV: the one given, or the most frequent of comma, semicolon and tab on its
 * header line (outside quotes); comma when there is none.
 */
function separatorOf(path: string, given: string | undefined): Separator {
  if (given !== undefined) {
    const char = CSV_SEPARATORS[given.toLowerCase()];
    if (!char) throw new CliError(`--delimiter must be ",", ";" or tab, not ${JSON.stringify(given)}.`);
    return { char, source: 'given' };
  }
  const head = Buffer.alloc(65_536);
  const fd = openSync(path, 'r');
  let length: number;
  try {
    length = readSync(fd, head, 0, head.length, 0);
  } finally {
    closeSync(fd);
  }
  const text = head.subarray(0, length).toString('utf8');
  const counts = new Map<string, number>([
    [',', 0],
    [';', 0],
    ['\t', 0],
  ]);
  let quoted = false;
  for (const char of text) {
    if (char === '"') quoted = !quoted;
    else if (!quoted && (char === '\n' || char === '\r')) break;
    else if (!quoted && counts.has(char)) counts.set(char, (counts.get(char) ?? 0) + 1);
  }
  const [char, count] = [...counts].reduce((best, next) => (next[1] > best[1] ? next : best));
  return { char: count > 0 ? char : ',', source: 'detected' };
}

/** How the CSV was read, for messages: `separator ";" (detected)`. */
function readWith(separator: Separator): string {
  return `separator ${shown(separator.char)} (${separator.source === 'given' ? 'from --delimiter' : 'detected'})`;
}

/** The header of the CSV, checked: which column index goes where. */
function readHeader(
  header: string[],
  separator: Separator,
  keyByPosition: boolean,
): { fields: Array<string[] | undefined>; ignored: string[] } {
  const names = header.map((h) =>
    h
      .trim()
      .toLowerCase()
      .replace(/^destination[_.]/, ''),
  );
  const missing = REQUIRED.filter((name) => !names.includes(name));
  if (missing.length > 0) {
    const others = Object.keys(CSV_SEPARATORS)
      .filter((name) => name !== '\\t' && CSV_SEPARATORS[name] !== separator.char)
      .map((name) => `--delimiter '${name === 'tab' ? 'tab' : name}'`);
    throw new CliError(
      `the CSV has no ${missing.map((m) => `"${m}"`).join(', ')} column (its header line, read with ${readWith(separator)}, has ${header.length} field${header.length === 1 ? '' : 's'}: ${header.join(' | ')}). ` +
        `If the file uses another separator, pass ${others.join(' or ')}.`,
      EXIT.invalidInput,
    );
  }
  if (!names.includes('key') && !keyByPosition) {
    throw new CliError(
      'the CSV has no "key" column: give each row a stable key (e.g. the payroll line or employee id) in a "key" column, ' +
        'so that a rerun never pays a row twice even if rows are added, removed or reordered. ' +
        'Or pass --key-by-position to key rows by their position (the file must then never change between runs).',
      EXIT.invalidInput,
    );
  }
  if (names.includes('key') && keyByPosition) {
    throw new CliError('the CSV has a "key" column: drop --key-by-position, the key column names each row.', EXIT.usage);
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
function csvRows(
  path: string,
  separator: Separator,
  keyByPosition: boolean,
  onHeader: (ignored: string[]) => void,
): () => AsyncIterable<CsvRow> {
  return async function* rows() {
    const parser = createReadStream(path).pipe(
      parse({
        bom: true,
        trim: true,
        skip_empty_lines: true,
        info: true,
        delimiter: separator.char,
        // Both line endings, even mixed in one file (a header saved by one tool, rows by another).
        record_delimiter: ['\r\n', '\n'],
        // Field counts are checked here, so that every bad line is listed at once.
        relax_column_count: true,
      }),
    );
    let fields: Array<string[] | undefined> | undefined;
    const badCounts: string[] = [];
    for await (const { record, info } of parser as AsyncIterable<{ record: string[]; info: { lines: number } }>) {
      if (!fields) {
        const header = readHeader(record, separator, keyByPosition);
        fields = header.fields;
        onHeader(header.ignored);
        continue;
      }
      if (record.length !== fields.length) {
        badCounts.push(`line ${info.lines}: ${record.length} field${record.length === 1 ? '' : 's'}, the header has ${fields.length}`);
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
    if (badCounts.length > 0) {
      process.stderr.write(`${badCounts.join('\n')}\n`);
      throw new CliError(
        `${badCounts.length} line${badCounts.length === 1 ? '' : 's'} of the CSV (listed above, read with ${readWith(separator)}) ` +
          `do not have the header's ${fields.length} fields: nothing was sent. Quote a value that contains the separator.`,
        EXIT.invalidInput,
      );
    }
  };
}

/** Where the default store files are kept, in the current directory. */
const DEFAULT_STORE_DIR = '.payments-sdk';
const STORE_URL_HELP = `${DEFAULT_STORE_DIR}/<batch id>.store, or ${STORE_URL_VARIABLE}`;

/**
 * The default store of a batch: a file named after the batch id alone (never after the CSV, so a
 * renamed or moved CSV finds it), in `.payments-sdk/` of the current directory. An id with other
 * characters than letters, digits, `.`, `_` and `-` gets them replaced and a hash of the id
 * appended, so that two ids never share a file.
 */
function defaultStorePath(batchId: string): string {
  const safe = batchId.replace(/[^A-Za-z0-9._-]/g, '_');
  const name =
    safe === batchId && !batchId.startsWith('.') ? safe : `${safe}-${createHash('sha256').update(batchId).digest('hex').slice(0, 12)}`;
  return join(DEFAULT_STORE_DIR, `${name}.store`);
}

/** The file a path names, resolved through links; for a file not there yet, its resolved directory and name. */
function realPath(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    try {
      return join(realpathSync(dirname(path)), basename(path));
    } catch {
      return resolve(path);
    }
  }
}

/** Refuses, before anything is read, sent or written, two of the CSV, the results and the store naming one file. */
function refuseSameFile(files: Record<string, string | undefined>): void {
  const seen = new Map<string, string>();
  for (const [role, path] of Object.entries(files)) {
    if (path === undefined) continue;
    const real = realPath(path);
    const other = seen.get(real);
    if (other) throw new CliError(`${other} and ${role} name the same file (${real}): give each its own file.`);
    seen.set(real, role);
    // The store's lock file is the store's too.
    if (role === '--store') seen.set(realPath(`${path}.lock`), role);
  }
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
  if (result.status === 'skipped') return result.record?.result?.status === 'conflict';
  return result.status === 'failed' || result.status === 'conflict' || result.status === 'needs_reconciliation';
}

async function runBulk(file: string, options: BulkOptions, globals: GlobalOptions): Promise<void> {
  const batchId = options.batchId.trim();
  if (batchId === '') throw new CliError('--batch-id must not be empty.');
  const safeId = batchId.replace(/[^A-Za-z0-9._-]/g, '_');
  const storeUrl = storeUrlFrom(options.store) ?? { url: defaultStorePath(batchId), source: '--store' };
  const resultsPath = options.results ?? join(dirname(file), `${basename(file)}.${safeId}.results.csv`);
  const target = storeTargetOf(storeUrl);
  const storeFile = target.kind === 'file' ? target.path : undefined;
  refuseSameFile({ 'the CSV': file, '--results': resultsPath === '-' ? undefined : resultsPath, '--store': storeFile });
  const client = clientFrom(options);
  const keyByPosition = options.keyByPosition === true;
  let separator: Separator;
  let bom: boolean;
  try {
    separator = separatorOf(file, options.delimiter);
    bom = startsWithBom(file);
  } catch (error) {
    if (error instanceof CliError) throw error;
    throw new CliError(`the CSV cannot be read: ${describeError(error)}`, EXIT.invalidInput);
  }

  // Index → CSV line and key, filled as the rows are read (the check reads them all first).
  const lineOf = new Map<number, number>();
  const keyOf = new Map<number, string>();
  let ignored: string[] = [];
  const read = csvRows(file, separator, keyByPosition, (columns) => {
    ignored = columns;
  });
  let index = 0;
  const rows = () => {
    index = 0;
    return (async function* () {
      for await (const row of read()) {
        keyOf.set(index, row[KEY] ?? '');
        lineOf.set(index++, row[LINE] as number);
        yield row;
      }
    })();
  };

  // The store is opened (a file store locked) first: a second run on it is refused before anything
  // else. The default file's directory is made when missing; a store given is the merchant's.
  if (storeFile !== undefined && storeUrlFrom(options.store) === undefined) mkdirSync(dirname(storeFile), { recursive: true });
  const opened = await openStore(storeUrl);
  try {
    await opened.store.read([]);
  } catch (error) {
    await opened.close().catch(() => {});
    // A store file in use by another run (its lock), or that cannot be read: one line, exit 2.
    if (error instanceof PaymentsError) throw new CliError(describeError(withoutStoreSecrets(error, storeUrl.url)));
    throw error;
  }

  const controller = new AbortController();
  let progress: ReturnType<typeof createProgress> | undefined;
  const batch = client.payouts.createMany(rows, {
    batchId,
    // Without a key column (--key-by-position), the library keys rows by position and compares
    // each row with the one recorded at its position before anything is sent.
    ...(!keyByPosition && { key: (row: CsvRow) => row[KEY] ?? '' }),
    store: opened.store,
    retryFailed: options.retryFailed === true,
    concurrency: options.concurrency,
    signal: controller.signal,
    onProgress: (p) => {
      progress ??= createProgress(`payouts ${batchId}`, p.total ?? 0);
      progress.update(p.done);
    },
  });

  const removeHandler = onInterrupt(() => controller.abort());
  const results = new BulkResultsFile(resultsPath, { separator: separator.char, bom, escapeFormulas: options.escapeFormulas });
  let unpaidRows = 0;
  let retryable = 0;
  let summary: BulkSummary | undefined;
  try {
    const iterator = batch[Symbol.asyncIterator]();
    let first: IteratorResult<BulkResult<CsvRow>>;
    try {
      first = await iterator.next();
    } catch (error) {
      throw checkError(error, lineOf, globals, batchId);
    }
    if (ignored.length > 0) process.stderr.write(`note: ignored columns: ${ignored.join(', ')}\n`);
    for (let step = first; !step.done; step = await iterator.next()) {
      const result = step.value;
      if (unpaid(result)) unpaidRows += 1;
      if (result.retryable) retryable += 1;
      keyOf.set(result.index, result.key);
      results.add(result, lineOf.get(result.index) ?? result.index + 2);
    }
    summary = await batch.summary();
  } finally {
    progress?.stop();
    removeHandler();
    await opened.close();
  }
  // One line per input row, in the input's order, rewritten whole (an interrupted run too).
  await results.write([...lineOf].sort(([a], [b]) => a - b).map(([i, line]) => ({ line, key: keyOf.get(i) ?? '' })));
  const interrupted = controller.signal.aborted || summary.aborted;
  const counts = `created ${summary.created}, replayed ${summary.replayed}, skipped ${summary.skipped}, failed ${summary.failed}, conflict ${summary.conflict}, needs_reconciliation ${summary.needs_reconciliation}`;
  if (globals.json)
    printJson({
      batchId,
      ...summary,
      unpaid: unpaidRows,
      interrupted,
      retryable,
      results: resultsPath === '-' ? null : resultsPath,
      store: opened.shown,
    });
  process.stderr.write(
    `${interrupted ? 'Interrupted: ' : ''}payouts ${batchId}: ${plural(summary.total, 'row')}: ${counts}.${resultsPath === '-' ? '' : ` Results: ${resultsPath}.`}${interrupted ? ' Rerun the same command to finish the batch.' : ''}\n`,
  );
  if (retryable > 0)
    process.stderr.write(
      `${retryable} row${retryable === 1 ? ' was' : 's were'} refused before any payout was created (see the results): once the cause is fixed (the key, the row), rerun the same command with --retry-failed to send ${retryable === 1 ? 'it' : 'them'} again.\n`,
    );
  process.exitCode = interrupted ? EXIT.interrupted : unpaidRows > 0 ? EXIT.failed : EXIT.ok;
}

/** The check's error, as the CLI reports it: every bad row with its CSV line (exit 3). */
function checkError(error: unknown, lineOf: Map<number, number>, globals: GlobalOptions, batchId: string): unknown {
  if (error instanceof BulkRowsChangedError) {
    const lines = error.rows.map((index) => lineOf.get(index) ?? index + 2);
    const listed = lines.slice(0, 20).join(', ') + (lines.length > 20 ? `, … (${lines.length} in all)` : '');
    return new CliError(
      `${lines.length} row${lines.length === 1 ? '' : 's'} of the CSV (line${lines.length === 1 ? '' : 's'} ${listed}) differ from the rows at the same positions in the earlier run of batch ${batchId}: ` +
        'with --key-by-position a row is known by its position, so the file must not change between runs. Nothing was sent. ' +
        'Restore the file as it was for this batch, and put new rows in a new file with a new --batch-id.',
      EXIT.invalidInput,
    );
  }
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
      error: `${plural(rows.length, 'bad row')}: nothing was sent`,
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
