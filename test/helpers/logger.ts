/** A logger for the tests: every line it is given, with its level and arguments, and all of them as text. */
import { inspect } from 'node:util';
import type { Logger } from 'payments-sdk';

/** A logger that keeps each line (`lines`) and renders them all, arguments deep, as one text (`text()`). */
export function recordingLogger(): { lines: { level: string; args: unknown[] }[]; logger: Logger; text: () => string } {
  const lines: { level: string; args: unknown[] }[] = [];
  const at =
    (level: string) =>
    (...args: unknown[]) => {
      lines.push({ level, args });
    };
  const logger: Logger = { error: at('error'), warn: at('warn'), info: at('info'), debug: at('debug') };
  return { lines, logger, text: () => inspect(lines, { depth: Number.POSITIVE_INFINITY }) };
}
