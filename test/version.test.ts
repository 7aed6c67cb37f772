/** The User-Agent names the SDK version: src/version.ts must follow package.json (changesets bumps the latter). */
import { readFileSync } from 'node:fs';
import { VERSION } from 'payments-sdk';
import { expect, it } from 'vitest';

it('src/version.ts VERSION equals the package.json version', () => {
  const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string };
  expect(VERSION).toBe(pkg.version);
  expect(VERSION).toMatch(/^\d+\.\d+\.\d+(-[\w.]+)?$/);
});
