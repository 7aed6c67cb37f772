import { defineConfig } from 'tsup';

// One build for the three public entries (API.md "Package"): ESM + CommonJS + .d.ts each.
// `payments-sdk/webhooks` must not pull in the HTTP client, so chunks are split per entry
// and nothing under src/webhooks imports src/core/client.
export default defineConfig({
  entry: {
    index: 'src/index.ts',
    webhooks: 'src/webhooks/index.ts',
    testing: 'src/testing/index.ts',
  },
  format: ['esm', 'cjs'],
  dts: true,
  clean: true,
  sourcemap: true,
  target: 'es2022',
  platform: 'neutral',
  treeshake: true,
  splitting: true,
  external: ['msw', 'ky', 'zod'],
});
