/** A one-shot signal for tests: `fired` resolves once `fire()` is called (any number of times). */
export function signal(): { fired: Promise<void>; fire: () => void } {
  let fire = () => {};
  const fired = new Promise<void>((resolve) => {
    fire = resolve;
  });
  return { fired, fire };
}
