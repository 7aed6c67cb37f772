/**
 * Adaptive concurrency and pace of a bulk payout. Concurrency is additive increase, multiplicative
 * decrease: halved when the service says it is overloaded (429, 503), and grown by one after a streak
 * of successes, never above the caller's maximum.
 *
 * A 429 that names a wait (`Retry-After` ≥ 1 s) is a rate limit, which fewer sends in flight alone
 * do not respect when answers are fast. The first one pauses every send for its wait, and from then
 * on sends are also paced, at 95 % of the rate that succeeded over the wait before it. A later one,
 * once paced, lowers the pace by 10 % and pauses only the throttled send: the limit may be shared
 * with other runners (other workers of one batch, other processes on the same API key), and a runner
 * that stopped everything for a second at each of their throttles would leave its share unused. The
 * pace rises by 1 % each second without a throttle, to find the limit again. A 503 (overloaded)
 * always pauses every send for its wait.
 */
export class AdaptiveConcurrency {
  /** Sends allowed in flight now. */
  current: number;
  readonly max: number;
  /** No new send before this instant (ms, `Date.now()`). */
  pausedUntil = 0;
  /** Sends per second once paced; `Infinity` until a rate limit is met. */
  rate = Number.POSITIVE_INFINITY;
  #streak = 0;
  /** Bumped at each decrease: a throttle seen by a send started before it is already accounted for. */
  #epoch = 0;
  #nextAt = 0;
  #raisedAt = 0;
  #startedAt = Number.POSITIVE_INFINITY;
  /** Times of the successes of the last two seconds. */
  #recent: number[] = [];

  constructor(max: number) {
    this.max = max;
    this.current = max;
  }

  /** The epoch a send starts in; give it back to {@link throttled}. */
  get epoch(): number {
    return this.#epoch;
  }

  /** `true` once a rate limit was met: sends are paced. */
  get paced(): boolean {
    return this.rate < Number.POSITIVE_INFINITY;
  }

  /** A send succeeded (or was refused for a reason of its own). */
  succeeded(now = Date.now()): void {
    this.#recent.push(now);
    while ((this.#recent[0] as number) < now - 2000) this.#recent.shift();
    if (++this.#streak >= Math.max(4, this.current * 2) && this.current < this.max) {
      this.current += 1;
      this.#streak = 0;
    }
    if (this.paced && now - this.#raisedAt >= 1000) {
      this.rate *= 1.01;
      this.#raisedAt = now;
    }
  }

  /**
   * The service throttled a send started in `epoch`, asking for `waitMs` before the next: halve
   * (once per wave of sends: those already in flight when it halved do not halve again), and either
   * pause every send for `waitMs` or, for a rate limit once paced, slow the pace (the throttled send
   * itself still waits `waitMs`: the runner defers it). `limited`: the service said it is a rate
   * limit (429), not that it is overloaded (503), which pauses every send whatever the pace.
   */
  throttled(epoch: number, waitMs: number, now = Date.now(), limited = true): void {
    this.#streak = 0;
    const rateLimit = limited && waitMs >= 1000;
    if (!(rateLimit && this.paced)) this.pausedUntil = Math.max(this.pausedUntil, now + waitMs);
    if (epoch !== this.#epoch) return;
    this.#epoch += 1;
    this.current = Math.max(1, Math.floor(this.current / 2));
    if (!rateLimit) return;
    if (this.paced) {
      this.rate = Math.max(1, 0.9 * this.rate);
      this.#raisedAt = now;
      return;
    }
    // What succeeded over the last `waitMs` (1 to 2 s): the limit's own window, as nearly as known.
    // Not before a whole window of sending (a limit spent by an earlier run, or a first burst the
    // limit allowed from its reserve, would mislead), and not on fewer than two successes.
    const window = Math.min(waitMs, 2000);
    const count = this.#recent.filter((t) => t > now - window).length;
    if (now - this.#startedAt >= window && count >= 2) this.rate = Math.max(1, (0.95 * count * 1000) / window);
    this.#raisedAt = now + waitMs;
  }

  /** Milliseconds before the next send may start (0: now, and the slot is taken). */
  wait(now = Date.now()): number {
    const at = Math.max(this.pausedUntil, this.#nextAt);
    if (at > now) return at - now;
    this.#startedAt = Math.min(this.#startedAt, now);
    this.#nextAt = this.paced ? Math.max(now, this.#nextAt) + 1000 / this.rate : 0;
    return 0;
  }
}
