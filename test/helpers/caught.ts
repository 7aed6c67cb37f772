// Errors are asserted field by field in the tests: `any` keeps that terse.
// biome-ignore lint/suspicious/noExplicitAny: see above.
type Thrown = any;

/**
 * What a call or a promise rejected with: `caught(() => client.payments.create(...))` or
 * `caught(promise)`. Fails the test when it does not reject.
 */
export async function caught(run: (() => unknown) | Promise<unknown>): Promise<Thrown> {
  try {
    await (typeof run === 'function' ? run() : run);
  } catch (error) {
    return error;
  }
  throw new Error('expected a rejection, but the call succeeded');
}
