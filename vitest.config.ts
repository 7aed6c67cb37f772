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
      { find: /^payments-sdk$/, replacement: src('index.ts') },
    ],
  },
  test: {
    include: ['test/**/*.test.ts', 'examples/**/*.test.ts'],
    // The framework apps have their own install and config: `npm run test:frameworks`.
    exclude: [...configDefaults.exclude, 'examples/frameworks/**'],
    environment: 'node',
    // Prints the one line that says why the Redis tests are skipped (fails the run under CI=true).
    globalSetup: ['test/helpers/redis.ts'],
    testTimeout: 20_000,
    hookTimeout: 20_000,
    coverage: {
      provider: 'v8',
      include: ['src/**/*.ts'],
      reporter: ['text-summary', 'json-summary'],
      thresholds: { lines: 90 },
    },
  },
});
