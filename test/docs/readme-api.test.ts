/**
 * The README's "API" table says which entry exports which names. Each name it lists must be
 * exported by that entry, and by no other (each public name comes from exactly one entry): the
 * values are imported from the entries as a merchant imports them (aliased to src/ here), the types
 * are read from the entries' declarations by the TypeScript compiler.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import * as main from 'payments-sdk';
import * as opentelemetry from 'payments-sdk/opentelemetry';
import * as schemas from 'payments-sdk/schemas';
import * as stores from 'payments-sdk/stores';
import * as testing from 'payments-sdk/testing';
import * as webhooks from 'payments-sdk/webhooks';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../..', import.meta.url));
const readme = readFileSync(`${root}README.md`, 'utf8');

/** Each entry: what it gives at run time, and the source file its declarations come from. */
const entries: Record<string, { runtime: Record<string, unknown>; source: string }> = {
  'payments-sdk': { runtime: main, source: 'src/index.ts' },
  'payments-sdk/webhooks': { runtime: webhooks, source: 'src/webhooks/index.ts' },
  'payments-sdk/stores': { runtime: stores, source: 'src/stores/index.ts' },
  'payments-sdk/testing': { runtime: testing, source: 'src/testing/index.ts' },
  'payments-sdk/schemas': { runtime: schemas, source: 'src/schemas/index.ts' },
  'payments-sdk/opentelemetry': { runtime: opentelemetry, source: 'src/opentelemetry/index.ts' },
};

/** The rows of the table under `### API`: the entry, and each name listed, `type X` as a type. */
function apiTable(): Array<{ entry: string; values: string[]; types: string[] }> {
  const start = readme.indexOf('\n### API\n');
  expect(start, 'README.md has an "### API" section').toBeGreaterThan(0);
  const section = readme.slice(start + 1, readme.indexOf('\n## ', start));
  const rows = section.split('\n').filter((line) => /^\| `payments-sdk/.test(line));
  return rows.map((row) => {
    const [entryCell = '', exportsCell = ''] = row.split('|').slice(1);
    const entry = /`([^`]+)`/.exec(entryCell)?.[1] ?? '';
    const values: string[] = [];
    const types: string[] = [];
    for (const match of exportsCell.matchAll(/(types? )?`([A-Za-z_$][\w$]*)`/g)) {
      const name = match[2] as string;
      // "types `A`, `B`" lists several types: every name after the word "type(s)" in the cell is one.
      if (match[1] || types.length > 0) types.push(name);
      else values.push(name);
    }
    return { entry, values, types };
  });
}

/** The names each entry exports, types included, as the compiler sees them. */
function declaredExports(): Map<string, Set<string>> {
  const files = Object.values(entries).map((entry) => `${root}${entry.source}`);
  const program = ts.createProgram(files, {
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.ESNext,
    moduleResolution: ts.ModuleResolutionKind.Bundler,
    skipLibCheck: true,
    noEmit: true,
  });
  const checker = program.getTypeChecker();
  const result = new Map<string, Set<string>>();
  for (const [name, { source }] of Object.entries(entries)) {
    const file = program.getSourceFile(`${root}${source}`);
    const symbol = file && checker.getSymbolAtLocation(file);
    result.set(name, new Set(symbol ? checker.getExportsOfModule(symbol).map((s) => s.getName()) : []));
  }
  return result;
}

const table = apiTable();
const declared = declaredExports();

describe("README.md's API table", () => {
  it('lists every entry of package.json, once', () => {
    const pkg = JSON.parse(readFileSync(`${root}package.json`, 'utf8')) as { exports: Record<string, unknown> };
    const published = Object.keys(pkg.exports)
      .filter((key) => key !== './package.json')
      .map((key) => (key === '.' ? 'payments-sdk' : `payments-sdk/${key.slice(2)}`));
    expect(table.map((row) => row.entry).sort()).toEqual(published.sort());
    expect(Object.keys(entries).sort()).toEqual(published.sort());
  });

  it.each(table.map((row) => [row.entry, row] as const))('%s exports every name listed for it', (entry, { values, types }) => {
    expect(values.length).toBeGreaterThan(0);
    const runtime = entries[entry]?.runtime ?? {};
    const missingValues = values.filter((name) => !(name in runtime));
    const missingTypes = types.filter((name) => !declared.get(entry)?.has(name));
    expect({ missingValues, missingTypes }).toEqual({ missingValues: [], missingTypes: [] });
  });

  it.each(table.map((row) => [row.entry, row] as const))('no other entry exports a name listed for %s', (entry, { values, types }) => {
    const elsewhere = [...values, ...types].flatMap((name) =>
      [...declared].filter(([other, names]) => other !== entry && names.has(name)).map(([other]) => `${name} in ${other}`),
    );
    expect(elsewhere).toEqual([]);
  });

  it('keeps the webhook names and the telemetry types out of the main entry', () => {
    const names = declared.get('payments-sdk') ?? new Set();
    for (const name of ['verifyWebhook', 'webhookHandler', 'expressWebhook', 'WebhookVerificationError', 'WebhookEvent', 'Telemetry']) {
      expect(names.has(name), name).toBe(false);
    }
  });
});
