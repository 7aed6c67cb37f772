/**
 * The checks every journal shared by several runners passes (`redisJournal`, `postgresJournal`), one
 * suite that each journal's test file runs against its real server, once per client: a row claimed
 * once, its lease kept on the server's clock and taken over with the same key, renewals by the owner
 * only and while the lease lasts, outcomes, rows sent too long ago, the row hash, the restart of a
 * retryable refusal, reads, and many runners racing for one row; and, apart, a late outcome from a
 * runner whose row another took over.
 */
import type { BulkJournal } from 'payments-sdk';
import { expect, it } from 'vitest';
import { claimRequest as request, retryableRefusal } from './bulk.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Registers the contract's tests in the enclosing `describe`. `journal(name)` answers a journal of
 * its own for each test (a key prefix or a table named after `name`, new and empty), ready to claim.
 */
export function journalContract(journal: (name: string) => Promise<BulkJournal>): void {
  it('claims a row once: another owner finds it busy, then takes it over when the lease expires (same key, first send time kept)', async () => {
    const j = await journal('lease');
    const first = await j.claim(request());
    expect(first).toEqual({ state: 'claimed', record: { idempotencyKey: 'bulk1_k', index: 1, attempts: 1, sentAt: 1_000_000 } });
    expect((await j.claim(request({ owner: 'B', now: 1_000_050 }))).state).toBe('busy');
    // The owner itself may claim again (a retry).
    expect((await j.claim(request({ now: 1_000_060 }))).record?.attempts).toBe(2);
    await sleep(250);
    const taken = await j.claim(request({ owner: 'B', now: 2_000_000, idempotencyKey: 'other' }));
    expect(taken).toEqual({ state: 'claimed', record: { idempotencyKey: 'bulk1_k', index: 1, attempts: 3, sentAt: 1_000_000 } });
    // The old owner's release no longer drops B's claim.
    await j.release('b', 'emp-1', 'A', { name: 'APIConnectionError', message: 'reset' });
    expect((await j.claim(request({ owner: 'C', now: 2_000_001 }))).state).toBe('busy');
  });

  it("keeps leases on the server's clock: a runner whose clock is hours ahead takes over nothing", async () => {
    const j = await journal('clock');
    await j.claim(request({ leaseMs: 10_000 }));
    expect((await j.claim(request({ owner: 'B', now: 99_000_000_000 }))).state).toBe('busy');
  });

  it('renews a lease only for its owner and while it lasts; settles an outcome, after which every claim is done', async () => {
    const j = await journal('settle');
    await j.claim(request({ leaseMs: 100 }));
    expect(await j.renew?.('b', 'emp-1', 'B', 10_000, 0)).toBe(false);
    expect(await j.renew?.('b', 'emp-1', 'A', 10_000, 0)).toBe(true);
    await sleep(200);
    expect((await j.claim(request({ owner: 'B' }))).state).toBe('busy');
    await j.settle('b', 'emp-1', 'A', { status: 'created', at: 5, payout: { id: 'po_1', status: 'pending_approval' } });
    expect(await j.renew?.('b', 'emp-1', 'A', 10_000, 0)).toBe(false);
    expect(await j.claim(request({ owner: 'B' }))).toEqual({
      state: 'done',
      record: {
        idempotencyKey: 'bulk1_k',
        index: 1,
        attempts: 1,
        sentAt: 1_000_000,
        outcome: { status: 'created', at: 5, payout: { id: 'po_1', status: 'pending_approval' } },
      },
    });
    // A lease that ended is not renewed: another worker may have the row by then.
    await j.claim(request({ rowKey: 'emp-2', leaseMs: 50 }));
    await sleep(150);
    expect(await j.renew?.('b', 'emp-2', 'A', 10_000, 0)).toBe(false);
  });

  it('reports a row sent before the window without an outcome as expired, never claimed', async () => {
    const j = await journal('expired');
    await j.claim(request());
    await j.release('b', 'emp-1', 'A', { name: 'APITimeoutError', message: 'timed out' });
    const late = await j.claim(request({ owner: 'B', now: 90_000_000, sentBefore: 1_000_001 }));
    expect(late.state).toBe('expired');
    expect(late.record).toMatchObject({ sentAt: 1_000_000, lastError: { name: 'APITimeoutError' } });
    expect(late.record?.outcome).toBeUndefined();
  });

  it('keeps the row hash; restarts a retryable refusal once, at the next generation, under the new key; reads many records', async () => {
    const j = await journal('retry');
    await j.claim(request({ rowHash: 'h0' }));
    expect((await j.claim(request({ rowHash: 'other' }))).record?.rowHash).toBe('h0');
    await j.settle('b', 'emp-1', 'A', retryableRefusal);
    // Without `retry`, or at a generation that is not the next one, the refusal stands.
    expect((await j.claim(request({ owner: 'B' }))).state).toBe('done');
    expect((await j.claim(request({ owner: 'B', retry: { generation: 2, idempotencyKey: 'bulk1_r2' } }))).state).toBe('done');
    const restarted = await j.claim(
      request({ owner: 'B', now: 2_000_000, rowHash: 'h1', retry: { generation: 1, idempotencyKey: 'bulk1_r1' } }),
    );
    expect(restarted).toEqual({
      state: 'claimed',
      record: { idempotencyKey: 'bulk1_r1', index: 1, attempts: 1, sentAt: 2_000_000, rowHash: 'h1', generation: 1 },
    });
    // A second runner asking for the same restart finds the row held, then done: never restarted twice.
    expect((await j.claim(request({ owner: 'C', now: 2_000_001, retry: { generation: 1, idempotencyKey: 'bulk1_r1' } }))).state).toBe(
      'busy',
    );
    await j.settle('b', 'emp-1', 'B', { status: 'created', at: 2, payout: { id: 'po_1' } });
    expect((await j.claim(request({ owner: 'C', retry: { generation: 1, idempotencyKey: 'bulk1_r1' } }))).state).toBe('done');
    // A refusal that is not retryable is never restarted.
    await j.claim(request({ rowKey: 'emp-2' }));
    await j.settle('b', 'emp-2', 'A', {
      status: 'failed',
      at: 1,
      error: { name: 'IdempotencyConflictError', message: 'x', status: 409 },
    });
    expect((await j.claim(request({ rowKey: 'emp-2', retry: { generation: 1, idempotencyKey: 'k' } }))).state).toBe('done');
    const read = await j.read('b', ['emp-1', 'nobody', 'emp-2']);
    expect(read[0]).toMatchObject({ idempotencyKey: 'bulk1_r1', generation: 1, outcome: { status: 'created' } });
    expect(read[1]).toBeUndefined();
    expect(read[2]).toMatchObject({ idempotencyKey: 'bulk1_k', outcome: { status: 'failed' } });
    // Batches are apart: the same row key in another batch is another row.
    expect(await j.read('other', ['emp-1'])).toEqual([undefined]);
    // Reads of more rows than one statement takes, in the order asked.
    const many = Array.from({ length: 2500 }, (_, i) => (i === 2400 ? 'emp-1' : `none-${i}`));
    const records = await j.read('b', many);
    expect(records).toHaveLength(2500);
    expect(records.flatMap((r, i) => (r ? [i] : []))).toEqual([2400]);
  });

  it('many runners claiming one row at the same moment: exactly one holds it', async () => {
    const j = await journal('race');
    const answers = await Promise.all(
      Array.from({ length: 12 }, (_, i) => j.claim(request({ rowKey: 'contended', owner: `R${i}`, leaseMs: 10_000 }))),
    );
    expect(answers.filter((a) => a.state === 'claimed')).toHaveLength(1);
    expect(answers.filter((a) => a.state !== 'claimed').every((a) => a.state === 'busy')).toBe(true);
  });
}

/**
 * Registers the check that a runner whose row another runner took over cannot record its late
 * outcome over the newer one. Apart from {@link journalContract}: a journal runs it once its `settle`
 * refuses a runner that no longer holds the row.
 */
export function lateOutcomeContract(journal: (name: string) => Promise<BulkJournal>): void {
  it('drops a late outcome from a worker whose row another took: a stale refusal never reopens a row paid at the next generation', async () => {
    const j = await journal('stale');
    await j.claim(request({ leaseMs: 50 }));
    await sleep(150);
    // A stopped answering; B takes the row over.
    expect((await j.claim(request({ owner: 'B' }))).state).toBe('claimed');
    // A's late answer while B holds the row: nothing recorded, B's lease kept.
    await j.settle('b', 'emp-1', 'A', { status: 'created', at: 1, payout: { id: 'po_old' } });
    expect((await j.claim(request({ owner: 'C' }))).state).toBe('busy');
    expect((await j.read('b', ['emp-1']))[0]?.outcome).toBeUndefined();
    // B records the service's refusal.
    await j.settle('b', 'emp-1', 'B', retryableRefusal);
    // A rerun with retryFailed sends the row again under a new key, and it is paid.
    expect((await j.claim(request({ owner: 'C', retry: { generation: 1, idempotencyKey: 'bulk1_r1' } }))).state).toBe('claimed');
    await j.settle('b', 'emp-1', 'C', { status: 'created', at: 2, payout: { id: 'po_1' } });
    // A wakes up and records what it was answered for the old key.
    await j.settle('b', 'emp-1', 'A', retryableRefusal);
    expect((await j.read('b', ['emp-1']))[0]).toMatchObject({ idempotencyKey: 'bulk1_r1', outcome: { status: 'created' } });
    expect((await j.claim(request({ owner: 'D', retry: { generation: 2, idempotencyKey: 'bulk1_r2' } }))).state).toBe('done');
    // A runner whose lease ended, with no other claim since, still records its own outcome.
    await j.claim(request({ rowKey: 'emp-2', leaseMs: 50 }));
    await sleep(150);
    await j.settle('b', 'emp-2', 'A', { status: 'created', at: 3, payout: { id: 'po_2' } });
    expect((await j.read('b', ['emp-2']))[0]?.outcome).toMatchObject({ payout: { id: 'po_2' } });
  });
}
