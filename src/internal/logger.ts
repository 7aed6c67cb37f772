import { PaymentsError } from '../core/errors.js';

/** Log levels, from the quietest. `'off'` (the default) logs nothing. */
export type LogLevel = 'off' | 'error' | 'warn' | 'info' | 'debug';

/** Anything with console-like methods: `console`, pino, winston... */
export interface Logger {
  /** A call failed for good, after its retries: 5xx, no answer, timeout, or a 2xx of the wrong shape. */
  error(message: string, ...rest: unknown[]): void;
  /**
   * A call was refused by the service (a 4xx: 404, 409, 422...), with its status, the SDK's error
   * class and the names of the fields refused: never the service's message, which may quote the
   * customer.
   */
  warn(message: string, ...rest: unknown[]): void;
  /** A retry, with its attempt number and cause. */
  info(message: string, ...rest: unknown[]): void;
  /**
   * Each request and answer, with its body: `Authorization` and other secrets redacted, customers'
   * phone numbers, e-mails and names masked.
   */
  debug(message: string, ...rest: unknown[]): void;
}

/** The levels, from the quietest: a line is kept when its level's rank is at most the chosen one's. */
const LEVELS: readonly LogLevel[] = ['off', 'error', 'warn', 'info', 'debug'];

/**
 * The SDK's side of a logger: one line at a level, kept or dropped by the level chosen, and
 * whether debug lines are kept (so that their bodies are masked only then).
 */
export interface LevelledLogger {
  readonly debugging: boolean;
  log(level: Exclude<LogLevel, 'off'>, message: string, ...rest: unknown[]): void;
}

/**
 * A logger that drops everything below `level`. Returns `undefined` for `'off'` so callers skip work.
 * A logger that throws is ignored for that line: logging never changes a call's outcome.
 */
export function levelledLogger(logger: Logger | undefined, level: LogLevel | undefined): LevelledLogger | undefined {
  const threshold = LEVELS.indexOf(level ?? 'off');
  // A bad option is a PaymentsError like every other bad client option.
  if (threshold < 0) throw new PaymentsError(`logLevel must be one of ${LEVELS.join(', ')}, got ${JSON.stringify(level)}.`);
  if (threshold === 0) return undefined;
  const target = logger ?? console;
  return {
    debugging: threshold === LEVELS.indexOf('debug'),
    log(at, message, ...rest) {
      if (LEVELS.indexOf(at) > threshold) return;
      try {
        target[at](message, ...rest);
      } catch {
        // The merchant's logger failed (a closed stream, a bad transport): the line is lost, the call goes on.
      }
    },
  };
}
