/**
 * One msw server per test file: `const server = useMswServer();` then `server.use(http.get(...))`.
 * Unhandled requests ("frames" in msw 3) fail the test, so nothing reaches a real network.
 */
import { setupServer } from 'msw/node';
import { afterAll, afterEach, beforeAll } from 'vitest';

export function useMswServer() {
  const server = setupServer();
  beforeAll(() => server.listen({ onUnhandledFrame: 'error' }));
  afterEach(() => server.resetHandlers());
  afterAll(() => server.close());
  return server;
}
