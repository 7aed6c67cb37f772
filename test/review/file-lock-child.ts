/**
 * A process that opens a file store (env `STORE_FILE`) at the instant `START_AT` (ms since the
 * epoch), claims one key, prints the claim's state (or `refused`), and holds the store a moment.
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
  await new Promise((resolve) => setTimeout(resolve, 300));
  await store.close();
} catch {
  process.stdout.write('refused\n');
}
