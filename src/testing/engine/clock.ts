/** The mock's clock, and reading the instants options and seeds give. */

import { MockServiceError } from '../mock-errors.js';
import type { MockClockOption } from '../options.js';

/** The mock's clock: a base (real time, a function, or a frozen instant) plus what `advance()` added. */
export class Clock {
  readonly #base: () => number;
  #offset = 0;

  constructor(option: MockClockOption | undefined) {
    if (option === undefined) this.#base = () => Date.now();
    else if (typeof option === 'function') this.#base = () => toMs(option(), 'now()');
    else {
      const fixed = toMs(option, 'now');
      this.#base = () => fixed;
    }
  }

  /** Milliseconds since the epoch on this clock. */
  now(): number {
    return this.#base() + this.#offset;
  }

  /** Moves the clock forward by `ms` (a finite number ≥ 0). */
  advance(ms: number): void {
    if (typeof ms !== 'number' || !Number.isFinite(ms) || ms < 0)
      throw new MockServiceError(`advance(ms): ms must be a finite number ≥ 0, got ${String(ms)}.`);
    this.#offset += ms;
  }
}

/** Milliseconds since the epoch of a Date, timestamp or ISO string; `label` names the value in the error. */
export function toMs(value: Date | number | string, label: string): number {
  const ms = value instanceof Date ? value.getTime() : typeof value === 'string' ? Date.parse(value) : value;
  if (typeof ms !== 'number' || !Number.isFinite(ms))
    throw new MockServiceError(`${label} must give a valid Date, timestamp or ISO string, got ${String(value)}.`);
  return ms;
}
