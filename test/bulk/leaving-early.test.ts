/**
 * Leaving the `for await` loop of `payouts.createMany` early stops new sends: the loop returns only
 * once every row in flight has its outcome recorded (or its claim released), and nothing is written
 * to the store after it returns.
 */
import type { MockHttpServer } from 'payments-sdk/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { memoryStore } from '../../src/stores/memory.js';
import { allPayouts, liveClient, loggedStore, payoutMock, rows } from '../helpers/bulk.js';

// Served over HTTP on 127.0.0.1: answers take long enough that sends are in flight when the loop is left.
const mock = payoutMock();
let server: MockHttpServer;
beforeAll(async () => {
  server = await mock.listen();
});
afterAll(async () => {
  await server?.close();
});

describe('leaving the loop early', () => {
  it('returns once every row in flight is recorded (settled or released); nothing is written after', async () => {
    const client = liveClient(mock, { baseUrl: server.url });
    const store = loggedStore(memoryStore());
    const open = () => {
      const held = new Set<string>();
      for (const entry of store.log) {
        const [verb, key, state] = entry.split(' ');
        if (verb === 'claim' && state === 'claimed') held.add(key as string);
        else if (verb === 'settle' || verb === 'release') held.delete(key as string);
      }
      return held.size;
    };
    let results = 0;
    let openAtBreak = 0;
    for await (const _ of client.payouts.createMany(rows(100), { batchId: 'leave', store, concurrency: 4 })) {
      if (++results < 5) continue;
      openAtBreak = open();
      break;
    }
    // Rows were claimed and in flight when the loop was left; none is when it returns.
    expect(openAtBreak).toBeGreaterThan(0);
    expect(open()).toBe(0);
    // Nothing more is written once the loop has returned.
    const written = store.log.length;
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(store.log).toHaveLength(written);
    // Every payout made is recorded as created.
    const created = store.log.filter((entry) => entry.startsWith('settle') && entry.endsWith(' created true')).length;
    expect(created).toBeGreaterThan(0);
    expect((await allPayouts(client)).length).toBe(created);
  });
});
