import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { withinTime } from '../../src/internal/within-time.js';

const wait = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('withinTime', () => {
  const unhandled: unknown[] = [];
  const record = (reason: unknown) => unhandled.push(reason);
  beforeEach(() => {
    unhandled.length = 0;
    process.on('unhandledRejection', record);
  });
  afterEach(() => {
    process.off('unhandledRejection', record);
  });

  it("gives work's value or error when it settles in time", async () => {
    await expect(withinTime(Promise.resolve(7), 1_000, () => new Error('late'))).resolves.toBe(7);
    await expect(withinTime(Promise.reject(new Error('refused')), 1_000, () => new Error('late'))).rejects.toThrow('refused');
  });

  it('gives the late error once the time has passed, and work failing afterwards is no unhandled rejection', async () => {
    const work = new Promise((_, reject) => setTimeout(() => reject(new Error('failed after the deadline')), 60));
    await expect(withinTime(work, 10, () => new Error('too slow'))).rejects.toThrow('too slow');
    await wait(100);
    expect(unhandled).toEqual([]);
  });
});
