import { defineConfig, type Options } from 'tsup';

// One build for the seven public entries: ESM + CommonJS + .d.ts/.d.cts each,
// matching package.json `exports` (checked by `npm run check:package`: publint + attw on the tarball).
// `payments-sdk/webhooks` must not pull in the HTTP client, so chunks are split per entry and nothing
// under src/webhooks imports src/client.ts (checked by `npm run size` on the built files).
const library: Options = {
  entry: {
    index: 'src/index.ts',
    webhooks: 'src/webhooks/index.ts',
    testing: 'src/testing/index.ts',
    schemas: 'src/schemas/index.ts',
    stores: 'src/stores/index.ts',
    opentelemetry: 'src/opentelemetry/index.ts',
  },
  format: ['esm', 'cjs'],
  // `stripInternal`: members marked `@internal` (the client's request methods the resources call,
  // constructors merchants do not call) stay out of the published types.
  dts: { compilerOptions: { stripInternal: true } },
  // The CLI's file is built by the second config at the same time: cleaning must leave it.
  clean: ['!cli.js'],
  // No source maps: dist is not minified, so a merchant's stack trace already points at readable
  // code in files that ship, while a map would send it to src/*.ts, which the tarball leaves out.
  sourcemap: false,
  // Not minified: the merchant's bundler minifies; readable dist is easier to audit and debug.
  minify: false,
  // Node 22+ (engines), Bun, Deno and edge runtimes all run ES2022 natively.
  target: 'es2022',
  platform: 'neutral',
  treeshake: true,
  splitting: true,
  // Dependencies (ky, zod) stay imports, resolved from the merchant's node_modules: one copy of zod
  // in a program that uses zod itself, and a zod fix reaches merchants without a rebuild of the SDK.
  // tsup leaves `dependencies` external; msw and @opentelemetry/api (optional peers) and Node builtins (platform
  // 'neutral' does not know them; only src/testing may import them) are named here.
  external: ['msw', /^@opentelemetry\//, /^node:/],
  // tsup strips `node:` by default (for Node < 14.18). Keep it: Deno, Bun and Workers' nodejs_compat
  // resolve `node:http` reliably, a bare `http` not always.
  removeNodeProtocol: false,
};

// The `payments-sdk` bin (package.json `bin`): Node only, one ESM file with the SDK code it uses
// inlined. Its own dependencies (commander, csv-parse, csv-stringify, cli-progress, and the optional
// store drivers loaded only for a --database-url or --store URL) stay imports of
// this file alone, so the library entries above never load them (checked by `npm run size`).
const cli: Options = {
  entry: { cli: 'src/cli/index.ts' },
  format: ['esm'],
  dts: false,
  clean: false,
  // As for the library: the bin's stack traces point at dist/cli.js itself.
  sourcemap: false,
  minify: false,
  target: 'node22',
  platform: 'node',
  splitting: false,
  treeshake: true,
  banner: { js: '#!/usr/bin/env node' },
  // Dependencies stay imports, as in the library build above.
  // The store drivers (pg, postgres, redis, ioredis) load only for a --store URL, whichever is installed.
  external: ['msw', 'pg', 'postgres', 'redis', 'ioredis', 'commander', 'cli-progress', /^csv-(parse|stringify)(\/.*)?$/, /^node:/],
  removeNodeProtocol: false,
};

export default defineConfig([library, cli]);
