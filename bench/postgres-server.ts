/**
 * A real PostgreSQL server for the benches that need one: the test helper's (test/helpers/postgres.ts:
 * `initdb` into a temporary directory, started on 127.0.0.1 as an unprivileged user when run as
 * root), bundled for plain Node, since its imports are written for the test runner's resolution.
 */
const { bundleScript } = (await import(
  new URL('../test/helpers/bundle-script.ts', import.meta.url).href
)) as typeof import('../test/helpers/bundle-script.js');

/** Starts a server; `url` connects to it, `stop()` ends it and removes its directory. */
export async function startBenchPostgres(): Promise<{ url: string; stop: () => Promise<void> }> {
  const bundle = await bundleScript('test/helpers/postgres.ts');
  const { startPostgresServer } = (await import(bundle.file)) as typeof import('../test/helpers/postgres.js');
  await bundle.cleanup();
  return startPostgresServer();
}
