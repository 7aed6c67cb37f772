/**
 * The package as a merchant type-checks it: the packed tarball installed in new projects under the
 * system's temp directory, then `tsc --strict` with `skipLibCheck: false` over
 *
 *   - small merchant programs using each entry (scripts/consumer/: an Express 5 shop, a Hono
 *     handler, a Fastify route, a CommonJS script, the testing kit with and without msw),
 *   - every example at the top of examples/ (its own folder's examples have their own package.json),
 *   - every ```ts snippet of README.md and docs/*.md, each as its own module,
 *
 * with two toolchains: the pinned one (this repo's typescript and @types/node) and the newest
 * (`typescript@latest`, `@types/node@latest`, what a merchant installs today). Each project is
 * checked without msw (an optional peer of payments-sdk/testing), then with it. The CommonJS
 * script also runs, `require`-ing every entry from the tarball, and in the pinned project every
 * command of the CLI runs through `npx payments-sdk` (scripts/consumer-cli.ts).
 *
 *   npm run test:consumer      (builds, packs, installs from the npm registry, checks)
 *
 * Exits non-zero on the first project that does not type-check, naming the files and errors.
 */
import { execFileSync } from 'node:child_process';
import { copyFileSync, cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { checkCliFromTarball } from './consumer-cli.ts';

const root = fileURLToPath(new URL('..', import.meta.url));
const keep = process.argv.includes('--keep');

function run(command: string, args: string[], cwd: string): string {
  try {
    return execFileSync(command, args, {
      cwd,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, npm_config_update_notifier: 'false' },
    });
  } catch (error) {
    const { stdout = '', stderr = '' } = error as { stdout?: string; stderr?: string };
    throw new Error(`${command} ${args.join(' ')} failed in ${cwd}:\n${stdout}${stderr}`);
  }
}

function installedVersion(name: string): string {
  return (JSON.parse(readFileSync(join(root, 'node_modules', name, 'package.json'), 'utf8')) as { version: string }).version;
}

function devRange(name: string): string {
  const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { devDependencies: Record<string, string> };
  const range = pkg.devDependencies[name];
  if (!range) throw new Error(`check-consumer: ${name} is not a devDependency of payments-sdk`);
  return range;
}

/**
 * The ```ts (or ```typescript) blocks of a markdown text, in order. A block right after a
 * `<!-- from examples/frameworks/… -->` line is an excerpt of a recipe that `npm run test:frameworks`
 * type-checks in its own app (and test/webhooks/recipe-snippets.test.ts keeps it verbatim): left out.
 */
export function tsSnippets(markdown: string): string[] {
  const blocks: string[] = [];
  const fence = /(<!-- from [^\n]*-->\n)?^```(?:ts|typescript)[^\S\n]*\n([\s\S]*?)^```[^\S\n]*$/gm;
  for (const match of markdown.matchAll(fence)) if (!match[1]) blocks.push(match[2] ?? '');
  return blocks;
}

const work = mkdtempSync(join(tmpdir(), 'payments-sdk-consumer-'));
try {
  // 1. The tarball npm would publish.
  const packed = JSON.parse(run('npm', ['pack', '--json', '--ignore-scripts', '--pack-destination', work], root)) as Array<{
    filename: string;
    files: Array<{ path: string }>;
  }>;
  const pack = packed[0] as { filename: string; files: Array<{ path: string }> };
  const tarball = join(work, pack.filename);
  // Go-to-definition lands in these files: each name says what it holds, none is a rollup hash.
  const declarations = pack.files.map((file) => file.path).filter((path) => /\.d\.c?ts$/.test(path));
  const hashed = declarations.filter((path) => /-[A-Za-z0-9_-]{8}\.d\.c?ts$/.test(path));
  if (declarations.length === 0 || hashed.length > 0) {
    throw new Error(`check-consumer: declaration files named by hash in the tarball: ${hashed.join(', ') || '(no .d.ts at all)'}`);
  }

  // 2. The sources to check, laid out once and copied into each project.
  const sources = join(work, 'sources');
  mkdirSync(join(sources, 'examples'), { recursive: true });
  mkdirSync(join(sources, 'readme'), { recursive: true });
  const consumerDir = join(root, 'scripts', 'consumer');
  for (const file of readdirSync(consumerDir)) copyFileSync(join(consumerDir, file), join(sources, file));
  const examples = readdirSync(join(root, 'examples')).filter((file) => /\.m?ts$/.test(file));
  for (const file of examples) copyFileSync(join(root, 'examples', file), join(sources, 'examples', file));
  const guides = [
    'README.md',
    ...readdirSync(join(root, 'docs'))
      .filter((file) => file.endsWith('.md'))
      .map((file) => `docs/${file}`),
  ];
  let snippets = 0;
  for (const guide of guides) {
    const blocks = tsSnippets(readFileSync(join(root, guide), 'utf8'));
    if (guide === 'README.md' && blocks.length === 0)
      throw new Error('check-consumer: README.md has no ```ts snippet: the extraction is broken.');
    blocks.forEach((code, index) => {
      // `export {}` makes a snippet without imports a module too (top-level await, no global clashes).
      const name = `${guide.replace(/\.md$/, '').replace(/\//g, '-')}-${String(index + 1).padStart(2, '0')}.ts`;
      writeFileSync(join(sources, 'readme', name), `${code}\nexport {};\n`);
    });
    snippets += blocks.length;
  }
  console.log(
    `check-consumer: ${examples.length} examples, ${snippets} snippets of ${guides.join(', ')}, ${readdirSync(consumerDir).length} merchant programs`,
  );

  const toolchains = [
    // zod: the package's own range in the pinned project; the newest zod in the other, so that the
    // SDK's schemas are checked against a merchant's newest zod 4, in types and at run time
    // (cjs-require.cjs composes a built schema with the merchant's zod).
    { name: 'pinned', typescript: installedVersion('typescript'), typesNode: installedVersion('@types/node'), zod: [] },
    { name: 'newest', typescript: 'latest', typesNode: 'latest', zod: ['zod@latest'] },
  ];
  // What the examples and programs import, at the ranges this repo tests with (fastify: its current major).
  const frameworks = [
    'express',
    '@types/express',
    'hono',
    'redis',
    'ioredis',
    'pg',
    '@types/pg',
    'postgres',
    'undici',
    'vitest',
    // docs/telemetry.md: the optional peer and the Node SDK set-up.
    '@opentelemetry/api',
    '@opentelemetry/sdk-node',
    '@opentelemetry/instrumentation-http',
    '@opentelemetry/instrumentation-express',
  ].map((name) => `${name}@${devRange(name)}`);
  frameworks.push('fastify@^5');

  for (const toolchain of toolchains) {
    const project = join(work, toolchain.name);
    mkdirSync(project);
    cpSync(sources, project, { recursive: true });
    writeFileSync(
      join(project, 'package.json'),
      `${JSON.stringify({ name: `consumer-${toolchain.name}`, private: true, type: 'module' }, null, 2)}\n`,
    );
    run(
      'npm',
      [
        'install',
        '--no-audit',
        '--no-fund',
        '--prefer-offline',
        tarball,
        `typescript@${toolchain.typescript}`,
        `@types/node@${toolchain.typesNode}`,
        ...toolchain.zod,
        ...frameworks,
      ],
      project,
    );
    const versions = `typescript ${readVersion(project, 'typescript')}, @types/node ${readVersion(project, '@types/node')}, zod ${readVersion(project, 'zod')}`;

    // Without msw: everything but the program that imports msw itself, and no DOM lib (a Node server).
    writeTsconfig(project, ['msw-tests.ts'], false);
    check(project, `${toolchain.name} (${versions}), without msw`);
    // The CommonJS script runs: every entry `require`d from the tarball.
    const out = run(process.execPath, ['cjs-require.cjs'], project);
    if (!out.includes('cjs-require: ok')) throw new Error(`check-consumer: cjs-require.cjs did not finish:\n${out}`);
    // The command line, once: `npx payments-sdk` runs every command from the tarball.
    if (toolchain.name === 'pinned') {
      await checkCliFromTarball(project);
      console.log('check-consumer: npx payments-sdk --help, mock, trigger, export, payouts bulk (and its rerun): ok');
    }

    run('npm', ['install', '--no-audit', '--no-fund', '--prefer-offline', `msw@${devRange('msw')}`], project);
    // msw's own declarations name DOM types (MessageEvent, ResponseType): a project with msw has the DOM lib.
    writeTsconfig(project, [], true);
    check(project, `${toolchain.name} (${versions}), with msw ${readVersion(project, 'msw')}`);
  }
  console.log('check-consumer: every project type-checks');
} finally {
  if (keep) console.log(`check-consumer: kept ${work}`);
  else rmSync(work, { recursive: true, force: true });
}

function readVersion(project: string, name: string): string {
  return (JSON.parse(readFileSync(join(project, 'node_modules', name, 'package.json'), 'utf8')) as { version: string }).version;
}

/** A merchant's strict tsconfig: Node's module resolution, library types checked too, the DOM lib only when asked. */
function writeTsconfig(project: string, exclude: string[], dom: boolean): void {
  const tsconfig = {
    compilerOptions: {
      strict: true,
      skipLibCheck: false,
      noEmit: true,
      target: 'es2022',
      module: 'nodenext',
      moduleResolution: 'nodenext',
      lib: dom ? ['es2023', 'dom', 'dom.iterable'] : ['es2023'],
      types: ['node'],
      esModuleInterop: true,
    },
    include: ['*.ts', '*.cts', 'examples/*.ts', 'readme/*.ts'],
    exclude,
  };
  writeFileSync(join(project, 'tsconfig.json'), `${JSON.stringify(tsconfig, null, 2)}\n`);
}

function check(project: string, label: string): void {
  const tsc = join(project, 'node_modules', 'typescript', 'bin', 'tsc');
  try {
    execFileSync(process.execPath, [tsc, '-p', 'tsconfig.json'], { cwd: project, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  } catch (error) {
    const { stdout = '', stderr = '' } = error as { stdout?: string; stderr?: string };
    console.error(`check-consumer: ${label}: tsc --strict failed:\n${stdout}${stderr}`);
    console.error(
      `(Snippets are named <guide>-<n>.ts, numbered in order of appearance, in ${basename(project)}/readme/. Re-run with --keep to inspect.)`,
    );
    process.exitCode = 1;
    throw new Error('check-consumer: type errors');
  }
  console.log(`check-consumer: ${label}: ok`);
}
