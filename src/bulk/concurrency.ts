/**
 * Adaptive concurrency of a bulk payout (additive increase, multiplicative decrease): halved when
 * the service says it is overloaded (429, 503), with every send paused for its `Retry-After`, and
 * grown by one after a streak of successes, never above the caller's maximum.
 */
export class AdaptiveConcurrency {
  /** Sends allowed in flight now. */
  current: number;
  readonly max: number;
  #streak = 0;
  /** Bumped at each decrease: a throttle seen by a send started before it is already accounted for. */
  #epoch = 0;
  /** No new send before this instant (ms, `Date.now()`). */
  pausedUntil = 0;

  constructor(max: number) {
    this.max = max;
    this.current = max;
  }

  /** The epoch a send starts in; give it back to {@link throttled}. */
  get epoch(): number {
    return this.#epoch;
  }

  /** A send succeeded (or was refused for a reason of its own): after `current` in a row, one more is allowed. */
  succeeded(): void {
    if (++this.#streak >= Math.max(4, this.current * 2) && this.current < this.max) {
      this.current += 1;
      this.#streak = 0;
    }
  }

  /**
   * The service throttled a send started in `epoch`: halve (once per wave of sends: those already
   * in flight when it halved do not halve again) and pause every send for `waitMs`.
   */
  throttled(epoch: number, waitMs: number, now = Date.now()): void {
    this.#streak = 0;
    this.pausedUntil = Math.max(this.pausedUntil, now + waitMs);
    if (epoch !== this.#epoch) return;
    this.#epoch += 1;
    this.current = Math.max(1, Math.floor(this.current / 2));
  }
}
