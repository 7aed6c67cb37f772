/**
 * The in-process journals (`memoryJournal()`, `fileJournal(path)`) shared by two runners of one
 * batch: a runner whose row another took over (after its lease ended) records nothing when its late
 * answer arrives, and the file read back holds the newer outcome too.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type BulkJournal, fileJournal, memoryJournal } from 'payments-sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { retryableRefusal as refused, claimRequest as request } from '../helpers/bulk.js';

let dir = '';
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'payments-sdk-in-process-journals-'));
});
afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

const journals: Array<[string, () => BulkJournal]> = [
  ['memoryJournal', () => memoryJournal()],
  ['fileJournal', () => fileJournal(join(dir, `stale-${Math.random().toString(36).slice(2)}.journal`))],
];

// The in-process journals keep leases on the runners' clocks (`now`): a lease ends without waiting.
describe.each(journals)('%s shared by two runners', (_name, make) => {
  it('drops a late outcome from a runner whose row another took: a stale refusal never reopens a row paid at the next generation', async () => {
    const j = make();
    await j.claim(request());
    // A stopped answering; its lease ended and B took the row over.
    expect((await j.claim(request({ owner: 'B', now: 2_000_000 }))).state).toBe('claimed');
    // A's late answer while B holds the row: nothing recorded, B's claim kept.
    await j.settle('b', 'emp-1', 'A', { status: 'created', at: 1, payout: { id: 'po_old' } });
    expect((await j.claim(request({ owner: 'C', now: 2_000_001 }))).state).toBe('busy');
    await j.settle('b', 'emp-1', 'B', refused);
    // A rerun with retryFailed sends the row again under a new key, and it is paid.
    const retry = { generation: 1, idempotencyKey: 'bulk1_r1' };
    expect((await j.claim(request({ owner: 'C', now: 3_000_000, retry }))).state).toBe('claimed');
    await j.settle('b', 'emp-1', 'C', { status: 'created', at: 2, payout: { id: 'po_1' } });
    // A wakes up again and records what it was answered for the old key; its release changes nothing either.
    await j.settle('b', 'emp-1', 'A', refused);
    await j.release('b', 'emp-1', 'A', { name: 'APIConnectionError', message: 'reset' });
    const [record] = await j.read('b', ['emp-1']);
    expect(record).toMatchObject({ idempotencyKey: 'bulk1_r1', generation: 1, outcome: { status: 'created', payout: { id: 'po_1' } } });
    expect(record?.lastError).toBeUndefined();
    expect((await j.claim(request({ owner: 'D', now: 4_000_000, retry: { generation: 2, idempotencyKey: 'bulk1_r2' } }))).state).toBe(
      'done',
    );
    // A runner whose lease ended, with no other claim since, still records its own outcome.
    await j.claim(request({ rowKey: 'emp-2' }));
    await j.settle('b', 'emp-2', 'A', { status: 'created', at: 3, payout: { id: 'po_2' } });
    expect((await j.read('b', ['emp-2']))[0]?.outcome).toMatchObject({ payout: { id: 'po_2' } });
    await j.close?.();
  });
});

describe('fileJournal read back', () => {
  it('holds the newer outcome, not a late one from a runner whose row another took over', async () => {
    const path = join(dir, 'read-back.journal');
    const j = fileJournal(path);
    await j.claim(request());
    await j.claim(request({ owner: 'B', now: 2_000_000 }));
    await j.settle('b', 'emp-1', 'B', { status: 'created', at: 2, payout: { id: 'po_1' } });
    await j.settle('b', 'emp-1', 'A', refused);
    await j.release('b', 'emp-1', 'A', { name: 'APIConnectionError', message: 'reset' });
    await j.close?.();
    const again = fileJournal(path);
    const [record] = await again.read('b', ['emp-1']);
    expect(record?.outcome).toMatchObject({ status: 'created', payout: { id: 'po_1' } });
    expect(record?.lastError).toBeUndefined();
    await again.close?.();
  });
});
