/**
 * The declarations of `payments-sdk/testing` are bundled from src/testing: an `import type … from
 * 'msw'` anywhere there survives into testing.d.ts, and a merchant without msw (an optional peer)
 * gets TS2307. `npm run test:consumer` checks the built declarations in a project without msw; this
 * catches the import at its source, in `npm test`.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const src = fileURLToPath(new URL('../../src', import.meta.url));

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? sourceFiles(join(dir, entry.name)) : entry.name.endsWith('.ts') ? [join(dir, entry.name)] : [],
  );
}

describe('published types and optional peers', () => {
  it('no source file imports msw, not even a type', () => {
    // An import or export statement naming msw (comments and messages may name it).
    const statement = /^\s*(?:import|export)\b[^;]*?\bfrom\s*['"]msw(?:\/[^'"]*)?['"]|^\s*import\s*['"]msw/m;
    const importing = sourceFiles(src).filter((file) => statement.test(readFileSync(file, 'utf8')));
    expect(importing).toEqual([]);
  });
});
