/** D1Clock: the offset between D1's time and this isolate's, which the D1 store's deadlines use. */
import { describe, expect, it } from 'vitest';
import { D1Clock } from '../../src/stores/d1-clock.js';

describe('D1Clock', () => {
  it('has no server-side deadline before it measured D1 once', () => {
    const clock = new D1Clock();
    clock.sample(undefined, 10);
    clock.sample(Number.NaN, 10);
    expect(clock.deadline(1_000)).toBe(Number.MAX_SAFE_INTEGER);
  });

  it('moves a local deadline by the largest offset measured: never past the true one', () => {
    const clock = new D1Clock();
    // D1 is 5 000 ms ahead; answers that took 30 ms and 4 ms to come back.
    clock.sample(5_000 + 100, 130);
    expect(clock.deadline(2_000)).toBe(6_970);
    clock.sample(5_000 + 200, 204);
    expect(clock.deadline(2_000)).toBe(6_996);
    // A slower answer later does not loosen it.
    clock.sample(5_000 + 300, 400);
    expect(clock.deadline(2_000)).toBe(6_996);
  });

  it('replaces a measure older than a minute, or one taken at a later local time (a clock set back)', () => {
    const clock = new D1Clock();
    clock.sample(10_000, 1_000); // offset 9 000
    // The local clock jumped forward by 500 ms: later measures are smaller; after a minute they win.
    clock.sample(70_500, 62_000); // offset 8 500, the best one is 61 s old
    expect(clock.deadline(100_000)).toBe(108_500);
    // The local clock set back: the answer came "before" the last measure; it replaces it.
    clock.sample(71_000, 50_000);
    expect(clock.deadline(100_000)).toBe(121_000);
  });
});
