/**
 * The renewal of a claim while a long effect runs: a store whose renew throws at once (a store of
 * the merchant's own, whose client was closed) must not throw out of the timer, where nothing
 * catches it and the merchant's process ends.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { EFFECT_LEASE_MS, handleOnce } from '../../src/stores/handle-once.js';
import { memoryStore } from '../../src/stores/memory.js';
import type { Store } from '../../src/stores/store.js';

afterEach(() => {
  vi.useRealTimers();
});

describe('handleOnce renewal', () => {
  it('survives a renew that throws synchronously, and still answers', async () => {
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
    const inner = memoryStore();
    const store: Store = {
      ...inner,
      kind: 'custom',
      renew() {
        throw new Error('The client is closed');
      },
    };
    let finish!: () => void;
    let started!: () => void;
    const running = new Promise<void>((resolve) => {
      started = resolve;
    });
    const answer = handleOnce(
      store,
      { key: 'webhook:evt_long' },
      () =>
        new Promise<void>((resolve) => {
          finish = resolve;
          started();
        }),
      { event_id: 'evt_long' },
    );
    await running;
    expect(() => vi.advanceTimersByTime(EFFECT_LEASE_MS / 3)).not.toThrow();
    finish();
    expect(await answer).toMatchObject({ outcome: 'handled', status: 200 });
  });
});
