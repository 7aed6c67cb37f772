/**
 * `@opentelemetry/api` is an optional peer: `payments-sdk` and `payments-sdk/webhooks` never load an
 * `@opentelemetry` module (ESM or CommonJS), and `payments-sdk/opentelemetry` does. Each entry of the
 * built package is loaded in a fresh Node process that records every module it resolves.
 */
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../..', import.meta.url));

/** Every module URL a fresh process resolves while loading `entry` (a dist/ file) with `how`. */
function modulesLoadedBy(entry: string, how: 'import' | 'require'): string[] {
  const load =
    how === 'import'
      ? `await import(${JSON.stringify(`${root}dist/${entry}`)});`
      : `createRequire(import.meta.url)(${JSON.stringify(`${root}dist/${entry}`)});`;
  const script = `
    import { createRequire, registerHooks } from 'node:module';
    const resolved = [];
    registerHooks({ resolve(specifier, context, next) { const result = next(specifier, context); resolved.push(result.url); return result; } });
    ${load}
    process.stdout.write(JSON.stringify(resolved));
  `;
  const child = spawnSync(process.execPath, ['--input-type=module', '-e', script], { cwd: root, encoding: 'utf8' });
  if (child.status !== 0) throw new Error(`loading dist/${entry} failed: ${child.stderr}`);
  return JSON.parse(child.stdout) as string[];
}

const opentelemetry = (urls: string[]) => urls.filter((url) => url.includes('@opentelemetry'));

describe('payments-sdk loads no @opentelemetry module', () => {
  for (const [entry, how] of [
    ['index.js', 'import'],
    ['index.cjs', 'require'],
    ['webhooks.js', 'import'],
    ['webhooks.cjs', 'require'],
  ] as const) {
    it(`${how} dist/${entry}`, () => {
      const loaded = modulesLoadedBy(entry, how);
      expect(loaded.length).toBeGreaterThan(1);
      expect(opentelemetry(loaded)).toEqual([]);
    });
  }

  it('payments-sdk/opentelemetry does load @opentelemetry/api (the check sees it)', () => {
    expect(opentelemetry(modulesLoadedBy('opentelemetry.js', 'import')).length).toBeGreaterThan(0);
    expect(opentelemetry(modulesLoadedBy('opentelemetry.cjs', 'require')).length).toBeGreaterThan(0);
  });
});
