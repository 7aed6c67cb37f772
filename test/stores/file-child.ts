/**
 * A process that uses a file store (env `STORE_FILE`) until it is killed, for the crash and lock
 * tests. `STORE_MODE=hold`: opens the store, prints `locked <pid>`, and waits. `STORE_MODE=work`:
 * claims keys in groups and settles them, with a churn of claims and releases on a few hot keys
 * (so the file is rewritten now and then), printing `C <key>` once a claim resolved and
 * `S <key>` once a settle resolved.
 */
import { fileStore } from '../../src/stores/index.js';

const path = process.env.STORE_FILE;
if (!path) throw new Error('STORE_FILE is not set');
const store = fileStore(path);

if (process.env.STORE_MODE === 'hold') {
  await store.read(['webhook:x']);
  process.stdout.write(`locked ${process.pid}\n`);
  setInterval(() => {}, 60_000);
} else {
  const owner = `run-${process.pid}`;
  const out = (line: string) => process.stdout.write(`${line}\n`);
  for (let group = 0; ; group++) {
    const keys = Array.from({ length: 8 }, (_, i) => `bulk:crash:${group * 8 + i}`);
    const answers = await store.claim(keys.map((key) => ({ key, owner, leaseMs: 60_000, data: { group } })));
    for (const [i, answer] of answers.entries()) if (answer.state === 'claimed') out(`C ${keys[i]}`);
    await Promise.all(
      keys.map(async (key, i) => {
        const hot = `bulk:hot:${i}`;
        await store.claim([{ key: hot, owner, leaseMs: 60_000 }]);
        await store.release(hot, owner, { group });
        if (await store.settle(key, owner, { group, i })) out(`S ${key}`);
      }),
    );
  }
}
