import { defineConfig } from 'vitest/config';

// `npm run test:frameworks` at the repository root: installs these apps, the packed SDK, builds the
// Next.js apps, then runs this config. Each test starts its app as its own process on 127.0.0.1.
export default defineConfig({
  test: {
    root: import.meta.dirname,
    include: ['test/**/*.test.ts'],
    environment: 'node',
    // One app at a time: next start and the others share two cores with the rest of CI.
    fileParallelism: false,
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});
