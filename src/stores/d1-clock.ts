/**
 * The server-side bound of a D1 call. D1 has no statement timeout, so each write carries the D1 time
 * after which the caller has given up (`NOW <= deadline` in its SQL) and changes nothing past it: a
 * call that timed out never lands later.
 *
 * The deadline is the caller's own deadline moved onto D1's clock by an offset measured on answers
 * that carry D1's time: D1 read its time at some moment between sending and receiving, so D1's time
 * minus the local monotonic time at the answer never exceeds the true offset, and a deadline moved by
 * it falls at or before the caller's (early by at most the round trip of the best measure). Only the
 * deadline uses it: leases and ages are decided by D1's clock alone.
 *
 * @module
 */

/** Tracks the offset between D1's clock and this isolate's monotonic clock. */
export class D1Clock {
  #offset = Number.NEGATIVE_INFINITY;

  /** Records D1's time `now` (ms) read in a statement whose answer came at local time `answeredAt`. */
  sample(now: unknown, answeredAt: number): void {
    if (typeof now === 'number' && Number.isFinite(now)) this.#offset = Math.max(this.#offset, now - answeredAt);
  }

  /**
   * D1's time (whole ms) at or before the local monotonic time `localDeadline`. Before any sample
   * (D1 answered the table's creation without its time) there is no server-side bound, only the
   * caller's: the largest safe integer.
   */
  deadline(localDeadline: number): number {
    return Number.isFinite(this.#offset) ? Math.floor(this.#offset + localDeadline) : Number.MAX_SAFE_INTEGER;
  }
}

/** The local monotonic clock, in ms (in a Worker it moves on I/O, which is when it is read). */
export const monotonicNow = (): number => performance.now();
