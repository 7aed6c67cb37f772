import { fileURLToPath } from 'node:url';
import { configDefaults, defineConfig } from 'vitest/config';

const src = (path: string) => fileURLToPath(new URL(`./src/${path}`, import.meta.url));

export default defineConfig({
  // Examples and tests import the package by name, as a merchant would; here it resolves to src/.
  resolve: {
    alias: [
      { find: /^payments-sdk\/webhooks$/, replacement: src('webhooks/index.ts') },
      { find: /^payments-sdk\/testing$/, replacement: src('testing/index.ts') },
      { find: /^payments-sdk\/schemas$/, replacement: src('schemas/index.ts') },
      { find: /^payments-sdk\/postgres$/, replacement: src('postgres/index.ts') },
      { find: /^payments-sdk\/stores$/, replacement: src('stores/index.ts') },
      { find: /^payments-sdk\/opentelemetry$/, replacement: src('opentelemetry/index.ts') },
      { find: /^payments-sdk$/, replacement: src('index.ts') },
    ],
  },
  test: {
    include: ['test/**/*.test.ts', 'examples/**/*.test.ts'],
    // The framework apps have their own install and config: `npm run test:frameworks`.
    exclude: [...configDefaults.exclude, 'examples/frameworks/**'],
    environment: 'node',
    // test/helpers/redis.ts prints the one line that says why the Redis tests are skipped (fails the
    // run under CI=true); test/cli/global-setup.ts builds dist/cli.js when it is missing or stale (the
    // CLI tests run the built bin as a child process).
    globalSetup: ['test/helpers/redis.ts', 'test/helpers/postgres.ts', 'test/cli/global-setup.ts'],
    testTimeout: 20_000,
    hookTimeout: 20_000,
    coverage: {
      provider: 'v8',
      include: ['src/**/*.ts'],
      // The command line is tested as the built bin in child processes (test/cli), whose coverage this
      // process cannot see: counting src/cli here would measure nothing but the spawn.
      exclude: ['src/cli/**'],
      reporter: ['text-summary', 'json-summary'],
      thresholds: { lines: 90 },
    },
  },
});
