/**
 * msw is an optional peer dependency of `payments-sdk/testing` only: a merchant who uses `mock.fetch`
 * must not need it. The entry is bundled here as ESM and as CommonJS with msw external (as tsup
 * does), then run in child processes: in a folder where msw cannot be found (`mock.fetch` works,
 * `mock.handlers` says how to install msw) and in this project (`mock.handlers` loads it).
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { build } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';

const run = promisify(execFile);
const root = process.cwd();
const node22 = join(root, 'node_modules/node22/bin/node');
let dir = '';

const SCRIPT = (load: string) => `${load}
const mock = createMockService();
const response = await mock.fetch(mock.baseUrl + '/api/v1/checkout-sessions', {
  method: 'POST',
  headers: { Authorization: 'Bearer ' + mock.apiKey, 'Content-Type': 'application/json' },
  body: JSON.stringify({ amount: 5000, currency: 'XOF' }),
});
let handlers;
try { handlers = mock.handlers.length; } catch (error) { handlers = error.message; }
console.log(JSON.stringify({ status: response.status, handlers }));
`;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'payments-sdk-testing-'));
  for (const format of ['esm', 'cjs'] as const) {
    await build({
      entryPoints: [join(root, 'src/testing/index.ts')],
      bundle: true,
      format,
      platform: 'node',
      target: 'node22',
      external: ['msw'],
      outfile: join(dir, format === 'esm' ? 'testing.mjs' : 'testing.cjs'),
      logLevel: 'silent',
    });
  }
  await writeFile(join(dir, 'esm.mjs'), SCRIPT("import { createMockService } from './testing.mjs';"));
  // CommonJS has no top-level await: the same script inside an async function.
  await writeFile(join(dir, 'cjs.cjs'), `const { createMockService } = require('./testing.cjs');\n(async () => {\n${SCRIPT('')}\n})();`);
}, 30_000);

afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

async function runIn(cwd: string, file: string, nodeBin = process.execPath) {
  const { stdout } = await run(nodeBin, [join(dir, file)], { cwd, timeout: 15_000 });
  return JSON.parse(stdout.trim()) as { status: number; handlers: number | string };
}

describe('msw stays optional in both module formats', () => {
  it('neither bundle imports msw statically', async () => {
    for (const file of ['testing.mjs', 'testing.cjs']) {
      const text = await readFile(join(dir, file), 'utf8');
      // esbuild writes module specifiers in double quotes; the single-quoted `import('msw')` in the
      // kit's error message is text, not code.
      expect(text).not.toMatch(/from\s*"msw"/);
      expect(text).not.toMatch(/\brequire\(\s*"msw"\s*\)/);
      expect(text).not.toMatch(/\bimport\(\s*"msw"\s*\)/);
      expect(text).toContain('("msw")');
    }
  });

  for (const file of ['esm.mjs', 'cjs.cjs']) {
    it(`${file}: without msw, mock.fetch works and mock.handlers says how to get msw`, async () => {
      const result = await runIn(dir, file);
      expect(result.status).toBe(201);
      expect(result.handlers).toMatch(/needs msw, an optional peer dependency of payments-sdk\/testing: npm install --save-dev msw@\^3/);
    });

    it(`${file}: with msw installed, mock.handlers loads it`, async () => {
      expect(await runIn(root, file)).toEqual({ status: 201, handlers: 1 });
    });

    it.runIf(existsSync(node22))(`${file}: the same on Node 22`, async () => {
      expect(await runIn(root, file, node22)).toEqual({ status: 201, handlers: 1 });
      expect((await runIn(dir, file, node22)).status).toBe(201);
    });
  }
});

describe('requireMsw() in this process', () => {
  it('says how to get msw when it cannot be found, or cannot be loaded synchronously, then loads it', async () => {
    const { requireMsw } = await import('../../src/testing/msw.js');
    const cwd = vi.spyOn(process, 'cwd').mockReturnValue(dir);
    try {
      expect(() => requireMsw()).toThrow(/npm install --save-dev msw@\^3/);
    } finally {
      cwd.mockRestore();
    }
    const getBuiltinModule = vi.spyOn(process, 'getBuiltinModule').mockReturnValue(undefined as never);
    try {
      expect(() => requireMsw()).toThrow(/mock\.createHandlers\(await import\('msw'\)\)/);
    } finally {
      getBuiltinModule.mockRestore();
    }
    expect(typeof requireMsw().http.all).toBe('function');
  });
});
