/** Validation of the numeric options of the stores and handlers. */
import { PaymentsError } from '../core/errors.js';

/** `value` when it is a positive safe integer, `fallback` when it is undefined; anything else throws, naming the option. */
export function positiveInt(value: unknown, fallback: number, name: string): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 1) {
    throw new PaymentsError(`${name} must be a positive integer, got ${typeof value === 'number' ? value : typeof value}.`);
  }
  return value;
}
