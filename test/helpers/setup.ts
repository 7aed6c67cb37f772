/**
 * Runs before every test file. The transport loads ky on the first request (src/internal/http.ts,
 * to keep `import 'payments-sdk'` light). That load is real I/O, which a test on a fake clock never
 * lets finish, so the outcome would depend on whether another file in the same worker loaded ky
 * first. Loading it here makes every file start alike.
 */
await import('../../src/internal/ky.js');

export {};
