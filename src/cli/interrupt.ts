/**
 * Ctrl-C handling for commands that stop cleanly: the first SIGINT asks the command to finish what
 * is in flight and write what it must, a second one exits at once with the interrupted exit code.
 */
import { EXIT } from './exit-codes.js';

/**
 * Ctrl-C handling for a command that stops cleanly: the first SIGINT calls `stop` (the command
 * finishes what is in flight and writes what it must), a second one exits at once with 130.
 * Returns a function that removes the handler.
 */
export function onInterrupt(stop: () => void): () => void {
  let count = 0;
  const handler = () => {
    count += 1;
    if (count === 1) {
      process.stderr.write('\nStopping (Ctrl-C again to quit at once)…\n');
      stop();
    } else {
      process.exit(EXIT.interrupted);
    }
  };
  process.on('SIGINT', handler);
  return () => process.off('SIGINT', handler);
}
