import { expect, test } from 'vitest';
import { ChangeSignal } from '../../src/bulk/change-signal.js';

test('a wait whose time has already passed resolves at once, without a TimeoutNegativeWarning', async () => {
  const warnings: Error[] = [];
  const onWarning = (warning: Error) => warnings.push(warning);
  process.on('warning', onWarning);
  try {
    const signal = new ChangeSignal();
    const started = Date.now();
    await signal.wait(-25);
    expect(Date.now() - started).toBeLessThan(1000);
    // Warnings are emitted on the next tick.
    await new Promise((resolve) => setImmediate(resolve));
    expect(warnings.map((warning) => warning.name)).not.toContain('TimeoutNegativeWarning');
  } finally {
    process.off('warning', onWarning);
  }
});

test('a wait ends at the next notify, before its time', async () => {
  const signal = new ChangeSignal();
  const waiting = signal.wait(60_000);
  signal.notify();
  await expect(waiting).resolves.toBeUndefined();
});
