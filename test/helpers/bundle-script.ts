/**
 * Bundles a TypeScript script of this repository into one ES module that plain Node runs: for the
 * child processes of the crash and multi-process tests, and for the benches that reuse a test helper.
 * Packages stay external and the bundle lives under node_modules/.cache, so they resolve from the
 * project's node_modules. Imports only Node and esbuild, so plain Node can load this file as well.
 */
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** `entry` (a path from the repository's root) bundled to `file`; `cleanup()` removes it. */
export async function bundleScript(entry: string): Promise<{ file: string; cleanup(): Promise<void> }> {
  const cache = join(ROOT, 'node_modules', '.cache');
  await mkdir(cache, { recursive: true });
  const dir = await mkdtemp(join(cache, 'bundle-'));
  const file = join(dir, 'script.mjs');
  await build({
    entryPoints: [join(ROOT, entry)],
    bundle: true,
    platform: 'node',
    format: 'esm',
    packages: 'external',
    outfile: file,
    logLevel: 'error',
  });
  return { file, cleanup: () => rm(dir, { recursive: true, force: true }) };
}
