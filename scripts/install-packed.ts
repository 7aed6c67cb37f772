/**
 * Installs the BUILT package into `<dir>/node_modules/payments-sdk` as `npm install payments-sdk`
 * would: `npm pack` (so only `files` ship, resolved through `exports`), extracted in place. Its
 * dependencies (ky, zod) are copied from this repository's node_modules unless `<dir>` has them,
 * so nothing is fetched. Used by test-runtimes.ts and test-frameworks.ts; run `tsup` first.
 */
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const root = fileURLToPath(new URL('..', import.meta.url));

/** Packs the repository and installs the tarball's contents under `dir`; returns the package directory. */
export function installPacked(dir: string): string {
  const scratch = mkdtempSync(join(tmpdir(), 'payments-sdk-pack-'));
  try {
    const packed = JSON.parse(
      execFileSync('npm', ['pack', '--json', '--ignore-scripts', '--pack-destination', scratch], {
        cwd: root,
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'ignore'],
      }),
    ) as Array<{ filename: string }>;
    execFileSync('tar', ['-xzf', join(scratch, packed[0]?.filename ?? ''), '-C', scratch]);
    const target = join(dir, 'node_modules', 'payments-sdk');
    rmSync(target, { recursive: true, force: true });
    mkdirSync(join(dir, 'node_modules'), { recursive: true });
    renameSync(join(scratch, 'package'), target);
    const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { dependencies?: Record<string, string> };
    for (const dependency of Object.keys(manifest.dependencies ?? {})) {
      const link = join(dir, 'node_modules', ...dependency.split('/'));
      if (existsSync(link)) continue;
      mkdirSync(join(link, '..'), { recursive: true });
      // Copied, not linked: a bundler (Next.js's Turbopack) does not resolve through a link that
      // leaves the project, as an installed dependency never does.
      cpSync(join(root, 'node_modules', dependency), link, { recursive: true, dereference: true });
    }
    return target;
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}
