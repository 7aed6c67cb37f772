/**
 * Bundle budgets: what a merchant's bundler ships for one import, measured
 * on the BUILT package (dist/, resolved through package.json `exports`, as a merchant resolves it),
 * minified by esbuild with every dependency included (ky, zod/mini), then gzipped, as one file: what a
 * bundler that does not split code (wrangler, say) ships, everything the import reaches included.
 *
 *   npm run size        (builds first, then runs this file on the pinned toolchain Node)
 *
 * Exits non-zero when a budget is exceeded, when the webhooks entry pulls in the HTTP transport or
 * loads a package other than zod, when a built file carries a copy of zod, or when a bundle fails
 * to build. 1 KB = 1000 bytes here (the stricter reading of "KB").
 */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import * as esbuild from 'esbuild';
import ts from 'typescript';

const root = fileURLToPath(new URL('..', import.meta.url));

/**
 * A string that survives minification and exists only in the SDK's HTTP transport
 * (src/internal/transport.ts, over ky). It is asserted PRESENT in the client bundle, along with ky's own
 * files, so the "no transport in webhooks" check is known to be able to fail; if the message changes,
 * this script says so instead of passing silently.
 */
const TRANSPORT_MARKER = "was aborted by the caller's signal";

/**
 * A string that survives minification and exists only in zod's core (the key of its configuration
 * shared on globalThis, set up whenever any of zod is included): zod in a bundle's text, whatever
 * its inputs say.
 */
const ZOD_MARKER = '__zod_globalConfig';

/**
 * The command line's own dependencies (package.json `dependencies`, needed by the `payments-sdk` bin
 * at run time). No library entry may bundle or load them: the CLI is a separate Node-only build.
 */
const CLI_PACKAGES = ['commander', 'csv-parse', 'csv-stringify', 'cli-progress'];

/** CLI packages (or CLI source) among a bundle's inputs or an entry's loaded packages. */
function cliInputs(paths: Iterable<string>): string[] {
  const found = new Set<string>();
  for (const path of paths) {
    for (const name of CLI_PACKAGES)
      if (path === name || path.startsWith(`${name}/`) || path.includes(`node_modules/${name}/`)) found.add(name);
    if (path.includes('src/cli/') || path.endsWith('dist/cli.js')) found.add(path);
  }
  return [...found];
}

interface Case {
  /** Row label. */
  label: string;
  /** The merchant's import, as an ES module re-export (so tree-shaking keeps exactly that). */
  code: string;
  /** Budget in bytes of gzip, enforced (exit 1 when over), or null to report only. */
  budget: number | null;
  /** A tighter goal in bytes of gzip, reported (not enforced) when missed. */
  goal?: number;
  platform: 'browser' | 'node';
  /** Dependencies left out of the bundle (optional peers the merchant already has). */
  external?: string[];
  /**
   * true: the HTTP transport (ky and the SDK's request code) may not be in it; false: it and zod must
   * be (proves the check can fail); undefined: not checked.
   */
  transportFree?: boolean;
  note?: string;
}

const cases: Case[] = [
  {
    label: "{ PaymentsClient } from 'payments-sdk'",
    code: "export { PaymentsClient } from 'payments-sdk';",
    // zod/mini, ky and the SDK (stripe-node's client is 32.9 KB, openai-node's 86.3 KB), at most
    // 39 KB. In it: client.request and withOptions, payments.reconcile (statuses past
    // succeeded included), the telemetry hooks, guarded (not OpenTelemetry: that is its own entry),
    // key functions, the debug log's masking of personal data, bulk payouts with their default
    // memoryStore (the whole Store contract), and the webhook verifier. Code added here is paid for
    // by code taken out.
    budget: 39_000,
    platform: 'browser',
    transportFree: false,
  },
  {
    // zod/mini included: an event's `data` is checked with the same schemas as a response.
    label: "{ verifyWebhook } from 'payments-sdk/webhooks'",
    code: "export { verifyWebhook } from 'payments-sdk/webhooks';",
    budget: 15_000,
    platform: 'browser',
    transportFree: true,
  },
  {
    // The fetch-style handler: verification, the default memory store (the whole Store contract),
    // the two-key claim of a payment's final event, the answers and the store's telemetry span.
    label: "{ webhookHandler } from 'payments-sdk/webhooks'",
    code: "export { webhookHandler } from 'payments-sdk/webhooks';",
    budget: 18_200,
    platform: 'browser',
    transportFree: true,
  },
  {
    // Validating a stored payload: one schema and zod/mini, without the client.
    label: "{ PaymentSchema } from 'payments-sdk/schemas'",
    code: "export { PaymentSchema } from 'payments-sdk/schemas';",
    budget: 15_000,
    platform: 'browser',
  },
  {
    // The testing kit runs in the merchant's test process (Node), may use `node:` modules, and msw is
    // an optional peer the merchant installs themselves: reported, not budgeted.
    label: "* from 'payments-sdk/testing'",
    code: "export * from 'payments-sdk/testing';",
    budget: null,
    platform: 'node',
    external: ['msw', 'msw/*'],
    note: 'platform node, msw external',
  },
];

interface Row {
  label: string;
  minified: number;
  gzip: number;
  budget: number | null;
  ok: boolean;
  notes: string[];
}

/** Bytes per input file in the output, largest first: what to look at when a budget is blown. */
function topInputs(metafile: esbuild.Metafile, count: number): string[] {
  const output = Object.values(metafile.outputs)[0];
  if (!output) return [];
  const byPackage = new Map<string, number>();
  for (const [path, { bytesInOutput }] of Object.entries(output.inputs)) {
    const match = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(path);
    const key = match ? match[1] : path;
    byPackage.set(key as string, (byPackage.get(key as string) ?? 0) + bytesInOutput);
  }
  return [...byPackage.entries()]
    .sort((a, b) => b[1] - a[1])
    .slice(0, count)
    .map(([path, bytes]) => `${path} ${(bytes / 1000).toFixed(1)} KB min`);
}

async function measure(c: Case): Promise<Row> {
  const result = await esbuild.build({
    // resolveDir is the package root: esbuild resolves the package's own name through its
    // `exports` (self-reference), so these bundles read dist/, exactly as an installed copy would.
    stdin: { contents: c.code, resolveDir: root, loader: 'js', sourcefile: 'merchant-entry.js' },
    // An empty tsconfig: the repo's tsconfig maps `payments-sdk` to src/ (for tests), which must not
    // apply here.
    tsconfigRaw: {},
    bundle: true,
    minify: true,
    treeShaking: true,
    format: 'esm',
    platform: c.platform,
    target: 'es2022',
    external: c.external ?? [],
    write: false,
    metafile: true,
    logLevel: 'silent',
  });
  const text = result.outputFiles[0]?.text ?? '';
  const minified = Buffer.byteLength(text);
  const gzip = gzipSync(text, { level: 9 }).length;
  const notes: string[] = c.note ? [c.note] : [];
  let ok = c.budget === null || gzip <= c.budget;

  const inputs = Object.keys(result.metafile.inputs);
  const zodInputs = inputs.filter((path) => path.includes('node_modules/zod/'));
  const hasZod = zodInputs.length > 0 || text.includes(ZOD_MARKER);
  const fromSrc = inputs.filter((path) => path.startsWith('src/'));
  if (fromSrc.length > 0) {
    ok = false;
    notes.push(`measured src/ instead of dist/ (${fromSrc[0]}): check the resolution`);
  }
  const cli = cliInputs(inputs);
  if (cli.length > 0) {
    ok = false;
    notes.push(`bundles the command line's code: ${cli.join(', ')}`);
  }
  const kyInputs = inputs.filter((path) => path.includes('node_modules/ky/'));
  const transport = text.includes(TRANSPORT_MARKER) || kyInputs.length > 0;
  if (c.transportFree === true && transport) {
    ok = false;
    notes.push('pulls in the HTTP transport');
  } else if (c.transportFree === true) {
    notes.push(`no HTTP transport${hasZod ? '; zod/mini included' : ''}`);
  }
  if (c.transportFree === false && (!hasZod || kyInputs.length === 0 || !text.includes(TRANSPORT_MARKER))) {
    ok = false;
    notes.push(
      `zod (marker ${ZOD_MARKER}), ky (${kyInputs.length} files) or the transport marker (${TRANSPORT_MARKER}) missing from the client bundle: update the check`,
    );
  }
  if (c.goal !== undefined && gzip > c.goal) notes.push(`over the ${kb(c.goal)} goal by ${gzip - c.goal} B (not enforced)`);
  if (c.budget !== null && gzip > c.budget) {
    notes.push(`OVER BUDGET by ${gzip - c.budget} B; largest inputs: ${topInputs(result.metafile, 6).join('; ')}`);
  }
  return { label: c.label, minified, gzip, budget: c.budget, ok, notes };
}

/**
 * The packages a built entry loads WITHOUT a bundler (Node, Bun, Deno import dist/ as is): its
 * static imports/requires, followed through the local chunks. Tree-shaking hides an unused import
 * from the bundle check above, but Node would still load it; this catches that.
 */
function packagesLoadedBy(entry: string): Set<string> {
  const packages = new Set<string>();
  const seen = new Set<string>();
  const pending = [join(root, entry)];
  const specifier = /(?:\bfrom\s*|\bimport\s*\(?\s*|\brequire\s*\(\s*)['"]([^'"]+)['"]/g;
  for (let file = pending.pop(); file !== undefined && seen.size < 500; file = pending.pop()) {
    if (seen.has(file)) continue;
    seen.add(file);
    const code = readFileSync(file, 'utf8').replace(/\/\/# sourceMappingURL=.*$/gm, '');
    // A copy of zod built into dist/: tsup marks each of its files with a `// node_modules/zod/…` line.
    if (/^\/\/ node_modules\/zod\//m.test(code)) packages.add('zod (built in)');
    for (const match of code.matchAll(specifier)) {
      const target = match[1] as string;
      if (target.startsWith('.')) pending.push(join(dirname(file), target));
      else packages.add(target);
    }
  }
  return packages;
}

/** The files package.json `exports` maps a subpath to, per condition (import / require). */
function exportTargets(subpath: string): string[] {
  const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
    exports: Record<string, Record<string, { default: string }>>;
  };
  const conditions = manifest.exports[subpath] ?? {};
  return Object.values(conditions).map((target) => target.default);
}

const kb = (bytes: number) => `${(bytes / 1000).toFixed(2)} KB`;

const rows: Row[] = [];
for (const c of cases) {
  try {
    rows.push(await measure(c));
  } catch (error) {
    rows.push({ label: c.label, minified: 0, gzip: 0, budget: c.budget, ok: false, notes: [`bundle failed: ${String(error)}`] });
  }
}

// Unbundled: `payments-sdk/webhooks` and `payments-sdk/stores` as Node/Bun/Deno
// load them, through ESM and CJS. Each loads at most zod/mini (events are checked with the response
// schemas) and nothing else: neither ky nor a copy of zod, and the database stores take the merchant's
// driver, never import one.
for (const subpath of ['./webhooks', './stores']) {
  for (const target of exportTargets(subpath)) {
    let packages: string[];
    try {
      packages = [...packagesLoadedBy(target)];
    } catch (error) {
      rows.push({ label: `unbundled ${target}`, minified: 0, gzip: 0, budget: null, ok: false, notes: [`cannot read: ${String(error)}`] });
      continue;
    }
    rows.push({
      label: `unbundled ${target}`,
      minified: 0,
      gzip: 0,
      budget: null,
      ok: packages.every((name) => name === 'zod/mini'),
      notes: [
        `loads ${packages.join(', ') || 'no package'}${packages.some((name) => name !== 'zod/mini') ? `: the ${subpath.slice(2)} entry must load zod/mini alone` : ''}`,
      ],
    });
  }
}

// Unbundled: the main entry loads no database driver (they are optional peers, taken from the merchant).
for (const target of exportTargets('.')) {
  let drivers: string[];
  try {
    drivers = [...packagesLoadedBy(target)].filter((name) => name === 'pg' || name === 'postgres' || name.startsWith('pg-'));
  } catch (error) {
    rows.push({ label: `unbundled ${target}`, minified: 0, gzip: 0, budget: null, ok: false, notes: [`cannot read: ${String(error)}`] });
    continue;
  }
  rows.push({
    label: `unbundled ${target} (database drivers)`,
    minified: 0,
    gzip: 0,
    budget: null,
    ok: drivers.length === 0,
    notes: [drivers.length === 0 ? 'loads no database driver' : `loads ${drivers.join(', ')}: the main entry must load no driver`],
  });
}

// Unbundled: every library entry as Node loads it (ESM and CJS) loads none of the CLI's packages.
const librarySubpaths = Object.keys(
  (JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { exports: Record<string, unknown> }).exports,
).filter((subpath) => subpath !== './package.json');
for (const subpath of librarySubpaths) {
  for (const target of exportTargets(subpath)) {
    let loaded: string[];
    try {
      loaded = cliInputs(packagesLoadedBy(target));
    } catch (error) {
      rows.push({ label: `unbundled ${target}`, minified: 0, gzip: 0, budget: null, ok: false, notes: [`cannot read: ${String(error)}`] });
      continue;
    }
    rows.push({
      label: `unbundled ${target} (CLI packages)`,
      minified: 0,
      gzip: 0,
      budget: null,
      ok: loaded.length === 0,
      notes: [loaded.length === 0 ? 'loads no CLI package' : `loads ${loaded.join(', ')}: the CLI's packages must stay out of the library`],
    });
  }
}

// The proof that the check above can fail: the same walk finds the CLI's packages in the bin itself.
{
  const loaded = cliInputs(packagesLoadedBy('dist/cli.js'));
  rows.push({
    label: 'unbundled dist/cli.js (CLI packages)',
    minified: 0,
    gzip: 0,
    budget: null,
    ok: loaded.includes('commander'),
    notes: [
      loaded.includes('commander')
        ? `loads ${loaded.join(', ')} (as it must)`
        : 'does not load commander: the check cannot see CLI packages; fix it',
    ],
  });
}

// No library entry carries a copy of zod: each imports it from the merchant's node_modules.
for (const subpath of librarySubpaths) {
  for (const target of exportTargets(subpath)) {
    const copied = packagesLoadedBy(target).has('zod (built in)');
    rows.push({
      label: `unbundled ${target} (zod copy)`,
      minified: 0,
      gzip: 0,
      budget: null,
      ok: !copied,
      notes: [copied ? 'carries a copy of zod: zod must stay an import (tsup.config.ts)' : 'imports zod, carries no copy'],
    });
  }
}

// The proof that the webhooks check can see zod: the same walk finds the schemas entry importing it.
{
  const found = packagesLoadedBy('dist/schemas.js').has('zod/mini');
  rows.push({
    label: 'unbundled dist/schemas.js (imports zod/mini)',
    minified: 0,
    gzip: 0,
    budget: null,
    ok: found,
    notes: [found ? 'imports zod/mini (as it must)' : 'does not import zod/mini: the checks above cannot see it; fix them'],
  });
}

const header = ['import', 'minified', 'gzip', 'budget (gzip)', 'result'];
// Unbundled rows check an import graph, not a size: no figures for them.
const size = (r: Row, bytes: number) => (r.label.startsWith('unbundled') ? '—' : kb(bytes));
const table = rows.map((r) => [
  r.label,
  size(r, r.minified),
  size(r, r.gzip),
  r.budget === null ? '—' : kb(r.budget),
  r.ok ? 'ok' : 'FAIL',
]);
const widths = header.map((h, i) => Math.max(h.length, ...table.map((row) => (row[i] ?? '').length)));
const line = (cells: string[]) => `| ${cells.map((cell, i) => cell.padEnd(widths[i] ?? 0)).join(' | ')} |`;
console.log('Bundle sizes of the built package (esbuild --minify, dependencies included, gzip -9):\n');
console.log(line(header));
console.log(`|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`);
for (const row of table) console.log(line(row));
for (const r of rows) for (const note of r.notes) console.log(`  ${r.label}: ${note}`);

/**
 * An esbuild plugin that loads the SDK's own source with every string and template literal of prose
 * (text with a space: error messages, hints) emptied. The bundle it yields is not meant to run; its
 * size is the floor that shortening or removing messages could approach, all the code kept.
 */
const emptyStrings: esbuild.Plugin = {
  name: 'empty-strings',
  setup(build) {
    build.onLoad({ filter: /\/src\/.*\.ts$/ }, (args) => {
      const source = ts.createSourceFile(args.path, readFileSync(args.path, 'utf8'), ts.ScriptTarget.Latest, true);
      // Words for people (a space in the text), not names, keys or header values the code relies on.
      const prose = (text: string) => text.includes(' ');
      const isSpecifier = (node: ts.Node) =>
        ts.isImportDeclaration(node.parent) ||
        ts.isExportDeclaration(node.parent) ||
        (ts.isCallExpression(node.parent) && node.parent.expression.kind === ts.SyntaxKind.ImportKeyword);
      const empty: ts.TransformerFactory<ts.SourceFile> = (context) => {
        const visit = (node: ts.Node): ts.Node => {
          if (ts.isStringLiteral(node) && prose(node.text) && !isSpecifier(node) && !ts.isLiteralTypeNode(node.parent))
            return ts.factory.createStringLiteral('');
          if (ts.isNoSubstitutionTemplateLiteral(node) && prose(node.text)) return ts.factory.createNoSubstitutionTemplateLiteral('');
          if (
            ts.isTemplateExpression(node) &&
            prose([node.head, ...node.templateSpans.map((span) => span.literal)].map((part) => part.text).join(''))
          ) {
            const spans = node.templateSpans.map((span, i, all) =>
              ts.factory.createTemplateSpan(
                ts.visitNode(span.expression, visit) as ts.Expression,
                i === all.length - 1 ? ts.factory.createTemplateTail('') : ts.factory.createTemplateMiddle(''),
              ),
            );
            return ts.factory.createTemplateExpression(ts.factory.createTemplateHead(''), spans);
          }
          return ts.visitEachChild(node, visit, context);
        };
        return (file) => ts.visitNode(file, visit) as ts.SourceFile;
      };
      const [emptied] = ts.transform(source, [empty]).transformed;
      return { contents: ts.createPrinter().printFile(emptied as ts.SourceFile), loader: 'ts' };
    });
  },
};

// Where the client bundle's bytes go: each share is the gzip size the bundle loses when that part is
// left out (marked external), so the three add up to the whole. The shares of two features inside the
// SDK's own code are measured on a bundle of src/client.ts. Reported, not enforced.
try {
  // Leaves out the SDK's own modules whose import path ends with one of `modules` (a feature's share).
  const leaveOut = (modules: string[]): esbuild.Plugin => ({
    name: 'leave-out',
    setup(build) {
      build.onResolve({ filter: /^\./ }, (args) => {
        const path = join(args.resolveDir, args.path);
        return modules.some((m) => path.endsWith(m)) ? { path: args.path, external: true } : undefined;
      });
    },
  });
  const gzipOf = async (contents: string, external: string[], modules: string[] = [], plugins: esbuild.Plugin[] = []) => {
    const result = await esbuild.build({
      stdin: { contents, resolveDir: root, loader: 'ts', sourcefile: 'merchant-entry.ts' },
      tsconfigRaw: {},
      bundle: true,
      minify: true,
      format: 'esm',
      platform: 'browser',
      target: 'es2022',
      external,
      plugins: [leaveOut(modules), ...plugins],
      write: false,
      logLevel: 'silent',
    });
    return gzipSync(result.outputFiles[0]?.text ?? '', { level: 9 }).length;
  };
  const built = cases[0]?.code ?? '';
  const fromSrc = "export { PaymentsClient } from './src/client.ts';";
  const whole = await gzipOf(built, []);
  const ky = whole - (await gzipOf(built, ['ky']));
  const zod = (await gzipOf(built, ['ky'])) - (await gzipOf(built, ['ky', 'zod', 'zod/*']));
  const fromSrcWhole = await gzipOf(fromSrc, []);
  const runner = fromSrcWhole - (await gzipOf(fromSrc, [], ['/bulk/result-stream.js']));
  const verifier = fromSrcWhole - (await gzipOf(fromSrc, [], ['/webhooks/verify.js']));
  const wordless = await gzipOf(fromSrc, [], [], [emptyStrings]);
  console.log(
    `\n  client bundle by part (gzip, marginal): ky ${kb(ky)}, zod/mini ${kb(zod)}, payments-sdk's own code ${kb(whole - ky - zod)}, ` +
      `of which the bulk payout runner ${kb(runner)} and the webhook verifier behind client.webhooks.verify ${kb(verifier)}`,
  );
  console.log(
    `  client bundle with every message of the SDK's own code emptied: ${kb(wordless)}, ` +
      `against ${kb(fromSrcWhole)} as written: the floor that shorter messages could approach`,
  );
} catch (error) {
  console.log(`  client bundle by part: not measured (${String(error)})`);
}

if (rows.some((r) => !r.ok)) {
  console.error('\nsize check failed');
  process.exit(1);
}
