/**
 * The clock of the in-process stores (memory, file): this process's, in ms since the epoch, never
 * going back. Each reading moves it on by the larger of the two clocks' advances since the last
 * one: the wall clock's (`Date.now()`) and the monotonic clock's (`performance.now()`). A wall clock
 * set back (NTP, a daylight-saving mistake) therefore neither revives an expired lease nor makes an
 * age negative, and the time a suspended machine slept, which the monotonic clock does not count,
 * still counts in a record's age: a row sent before a day-long suspend is a day older after it.
 */

let wall = Date.now();
let steady = performance.now();
let now = wall;

/** Now, in ms since the epoch, by this process's store clock (see the module). */
export function processNow(): number {
  const wallNow = Date.now();
  const steadyNow = performance.now();
  now += Math.max(0, wallNow - wall, steadyNow - steady);
  wall = wallNow;
  steady = steadyNow;
  return Math.floor(now);
}
