/**
 * Parsing of the CLI's numeric option values: an option that takes an integer accepts only digits
 * within its bounds, and any other value is a usage error naming the option and the value given.
 */
import { CliError, EXIT } from './exit-codes.js';

/** Parses a non-negative integer option, or throws a usage error naming it. */
export function integerOption(name: string, min: number, max: number): (value: string) => number {
  return (value: string) => {
    const n = Number(value);
    if (!/^\d+$/.test(value.trim()) || !Number.isSafeInteger(n) || n < min || n > max) {
      throw new CliError(`${name} must be an integer from ${min} to ${max}, got ${JSON.stringify(value)}.`, EXIT.usage);
    }
    return n;
  };
}
