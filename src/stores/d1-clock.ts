/**
 * The server-side bound of a D1 call. D1 has no statement timeout, so each write carries the D1 time
 * after which the caller has given up (`NOW <= deadline` in its SQL) and changes nothing past it: a
 * call that timed out never lands later.
 *
 * The deadline is the caller's own deadline moved onto D1's clock by an offset measured on every
 * answer, which ends with D1's time: D1 read its time at some moment between sending and receiving,
 * so D1's time minus the local time at the answer never exceeds the true offset, and a deadline moved
 * by the largest recent measure falls at or before the caller's (early by at most its round
 * trip). The local time is `performance.now()`: monotonic in Node, the wall clock in a Worker. A
 * Worker clock set back makes the next deadline fall early; the store then sees D1's time past a
 * deadline that refused a write while the call is still in time, and tries that write once more with
 * the offset its answer measured. Only the deadline uses the offset: leases and ages are decided by
 * D1's clock alone.
 *
 * @module
 */

/** How long the best measure of the offset is kept, in ms, before a newer one replaces it. */
const MEASURE_KEPT_MS = 60_000;

/** Tracks the offset between D1's clock and this isolate's `performance.now()`. */
export class D1Clock {
  #offset = Number.NEGATIVE_INFINITY;
  /** When the offset in use was measured (local time). */
  #measuredAt = Number.NEGATIVE_INFINITY;

  /**
   * Records D1's time `now` (ms) read in a statement whose answer came at local time `answeredAt`.
   * The largest measure is kept for {@link MEASURE_KEPT_MS} at most, so that a Worker clock set
   * forward (which makes later measures smaller) loosens the bound for that long at most.
   */
  sample(now: unknown, answeredAt: number): void {
    if (typeof now !== 'number' || !Number.isFinite(now)) return;
    const offset = now - answeredAt;
    const stale = answeredAt - this.#measuredAt > MEASURE_KEPT_MS || answeredAt < this.#measuredAt;
    if (offset >= this.#offset || stale) {
      this.#offset = offset;
      this.#measuredAt = answeredAt;
    }
  }

  /**
   * D1's time (whole ms) at or before the local time `localDeadline`. Before any sample
   * (D1 answered the table's creation without its time) there is no server-side bound, only the
   * caller's: the largest safe integer.
   */
  deadline(localDeadline: number): number {
    return Number.isFinite(this.#offset) ? Math.floor(this.#offset + localDeadline) : Number.MAX_SAFE_INTEGER;
  }
}

/** The local clock, in ms (in a Worker it moves on I/O, which is when it is read). */
export const localNow = (): number => performance.now();
