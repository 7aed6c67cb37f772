/**
 * A real PostgreSQL server for the benches that need one: the test helper's (test/helpers/postgres.ts:
 * `initdb` into a temporary directory, started on 127.0.0.1 as an unprivileged user when run as
 * root), bundled for plain Node, since its imports are written for the test runner's resolution.
 */
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = fileURLToPath(new URL('..', import.meta.url));

/** Starts a server; `url` connects to it, `stop()` ends it and removes its directory. */
export async function startBenchPostgres(): Promise<{ url: string; stop: () => Promise<void> }> {
  const cache = join(root, 'node_modules', '.cache');
  await mkdir(cache, { recursive: true });
  const bundleDir = await mkdtemp(join(cache, 'bench-postgres-'));
  await build({
    entryPoints: [join(root, 'test/helpers/postgres.ts')],
    bundle: true,
    platform: 'node',
    format: 'esm',
    packages: 'external',
    outfile: join(bundleDir, 'postgres.mjs'),
    logLevel: 'error',
  });
  const { startPostgresServer } = (await import(join(bundleDir, 'postgres.mjs'))) as typeof import('../test/helpers/postgres.js');
  await rm(bundleDir, { recursive: true, force: true });
  return startPostgresServer();
}
