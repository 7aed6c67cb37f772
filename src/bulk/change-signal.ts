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

  /** Resolves at the next `notify()`, or after `ms` milliseconds when given, whichever comes first. */
  wait(ms?: number): Promise<void> {
    return ms === undefined
      ? this.#changed
      : Promise.race([this.#changed, new Promise<void>((resolve) => setTimeout(resolve, Math.max(0, ms)))]);
  }
}
