/**
 * A process that opens a file store (env `STORE_FILE`) at the instant `START_AT` (ms since the
 * epoch), claims one key, prints the claim's state (or `refused`), and holds the store until its
 * stdin ends, so that no process gives its lock back before every other one has tried.
 */
import { fileStore } from '../../src/stores/index.js';

const path = process.env.STORE_FILE as string;
const startAt = Number(process.env.START_AT);
while (Date.now() < startAt) {
  // Every child leaves this loop at the same instant.
}
const store = fileStore(path);
try {
  const [answer] = await store.claim([{ key: 'webhook:evt_1', owner: `p${process.pid}`, leaseMs: 60_000 }]);
  process.stdout.write(`${answer?.state}\n`);
  process.stdin.resume();
  process.stdin.on('end', () => {
    void store.close().then(() => process.exit(0));
  });
} catch {
  process.stdout.write('refused\n');
  process.exit(0);
}
