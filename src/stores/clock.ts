/**
 * The clock of the in-process stores (memory, file): this process's, in ms since the epoch, but
 * steady. It reads the wall clock once and then counts with `performance.now()`, so a wall clock
 * set back (NTP, a daylight-saving mistake) neither revives an expired lease nor makes an age
 * negative while the process runs.
 */

const origin = Date.now() - performance.now();

/** Now, in ms since the epoch, by this process's steady clock. */
export function processNow(): number {
  return Math.floor(origin + performance.now());
}
