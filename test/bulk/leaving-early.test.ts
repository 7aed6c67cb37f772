/**
 * Leaving the `for await` loop of `payouts.createMany` early stops new sends: the loop returns only
 * once every row in flight has its outcome journaled (or its claim dropped), and the journal is
 * closed after the last of them.
 */
import { type BulkJournal, memoryJournal } from 'payments-sdk';
import type { MockHttpServer } from 'payments-sdk/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { allPayouts, liveClient, payoutMock, rows } from '../helpers/bulk.js';

/** A memoryJournal that logs what it is asked, and knows the rows claimed and not yet settled or released. */
function loggedJournal(): { journal: BulkJournal; log: string[]; open: Set<string> } {
  const inner = memoryJournal();
  const log: string[] = [];
  const open = new Set<string>();
  const journal: BulkJournal = {
    async claim(request) {
      const claim = await inner.claim(request);
      log.push(`claim ${request.rowKey} ${claim.state}`);
      if (claim.state === 'claimed') open.add(request.rowKey);
      return claim;
    },
    read: (batchId, rowKeys) => inner.read(batchId, rowKeys),
    async settle(batchId, rowKey, owner, outcome) {
      await inner.settle(batchId, rowKey, owner, outcome);
      log.push(`settle ${rowKey} ${outcome.status}`);
      open.delete(rowKey);
    },
    async release(batchId, rowKey, owner, error) {
      await inner.release(batchId, rowKey, owner, error);
      log.push(`release ${rowKey}`);
      open.delete(rowKey);
    },
    async close() {
      log.push('close');
    },
  };
  return { journal, log, open };
}

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
  it('returns once every row in flight is journaled (settled or released), then the journal is closed, last', async () => {
    const client = liveClient(mock, { baseUrl: server.url });
    const { journal, log, open } = loggedJournal();
    let results = 0;
    let openAtBreak = 0;
    for await (const _ of client.payouts.createMany(rows(100), { batchId: 'leave', journal, concurrency: 4 })) {
      if (++results < 5) continue;
      openAtBreak = open.size;
      break;
    }
    // Rows were claimed and in flight when the loop was left; none is when it returns.
    expect(openAtBreak).toBeGreaterThan(0);
    expect(open.size).toBe(0);
    expect(log.filter((entry) => entry === 'close')).toHaveLength(1);
    expect(log.at(-1)).toBe('close');
    // Nothing more is written once the loop has returned.
    const written = log.length;
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(log).toHaveLength(written);
    // Every payout made is journaled as created.
    const created = log.filter((entry) => entry.startsWith('settle') && entry.endsWith(' created')).length;
    expect(created).toBeGreaterThan(0);
    expect((await allPayouts(client)).length).toBe(created);
  });
});
