/**
 * Runs before every test file. Nothing to preload today; kept as the one place for per-file setup.
 */
export {};
