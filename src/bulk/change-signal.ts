/**
 * One event for "something changed" (a result, a finished send, an abort), shared by the loops of a
 * run that wait for each other's state to move: every `wait()` pending resolves at the next `notify()`.
 */
export class ChangeSignal {
  #tick: (() => void) | undefined;
  #changed!: Promise<void>;

  /** Wakes every waiter. Bound to the signal, so that it can be an event listener. */
  readonly notify = (): void => {
    this.#tick?.();
    this.#changed = new Promise<void>((resolve) => (this.#tick = resolve));
  };

  constructor() {
    this.notify();
  }

  /**
   * Resolves at the next `notify()`, or after `ms` milliseconds when given, whichever comes first.
   * The timer ends with the wait: a run that stops during a long `Retry-After` does not keep the
   * process alive until it would have fired.
   */
  wait(ms?: number): Promise<void> {
    if (ms === undefined) return this.#changed;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const elapsed = new Promise<void>((resolve) => {
      // A row already due gives a negative delay: waited as 0, which setTimeout takes without the
      // TimeoutNegativeWarning Node prints for a negative one.
      timer = setTimeout(resolve, Math.max(0, ms));
    });
    return Promise.race([this.#changed, elapsed]).finally(() => clearTimeout(timer));
  }
}
