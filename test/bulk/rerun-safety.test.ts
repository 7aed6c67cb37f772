/**
 * Reruns that change something, against the testing kit's mock: a batch keyed by position whose rows
 * moved is refused before any send; `retryFailed` sends again, under a derived key, only the rows the
 * service refused before creating anything, and never a row whose earlier send may have created a
 * payout. The same semantics through the file journal read back from disk.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type BulkJournal, bulkIdempotencyKey, fileJournal, memoryJournal, PaymentsClient } from 'payments-sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BulkRowsChangedError } from '../../src/bulk/rows-changed-error.js';
import { allPayouts, countByRow, liveClient, payoutMock, row, rows } from '../helpers/bulk.js';
import { collect, posts, statuses } from '../helpers/bulk-results.js';
import { caught } from '../helpers/caught.js';

let dir = '';
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'payments-sdk-rerun-'));
});
afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('a batch keyed by position (no key option)', () => {
  for (const kind of ['memory', 'file'] as const) {
    it(`${kind} journal: a row inserted at the top is refused on the rerun before anything is sent; the same rows are skipped`, async () => {
      const mock = payoutMock();
      const client = liveClient(mock);
      const path = join(dir, `positions-${kind}.journal`);
      const journal = (): BulkJournal => (kind === 'memory' ? shared : fileJournal(path));
      const shared = memoryJournal();
      const first = await collect(client.payouts.createMany(rows(4), { batchId: 'pos', journal: journal() }));
      expect(statuses(first)).toEqual(['created', 'created', 'created', 'created']);
      const sent = posts(mock).length;

      const shifted = [row(99), ...rows(4)];
      const error = await caught(client.payouts.createMany(shifted, { batchId: 'pos', journal: journal() }).summary());
      expect(error).toBeInstanceOf(BulkRowsChangedError);
      expect((error as BulkRowsChangedError).rows).toEqual([0, 1, 2, 3]);
      expect((error as Error).message).toMatch(
        /differ from the rows journaled there. Rows without a key are known by position and must not change between runs. Nothing was sent./,
      );
      expect(posts(mock).length).toBe(sent);

      // One row edited in place is refused too.
      const edited = rows(4).map((r, i) => (i === 2 ? { ...r, amount: 5 } : r));
      const again = await caught(client.payouts.createMany(edited, { batchId: 'pos', journal: journal() }).summary());
      expect((again as BulkRowsChangedError).rows).toEqual([2]);
      expect(posts(mock).length).toBe(sent);

      // The same rows in the same order are skipped; a row appended at the end is created.
      const appended = await collect(client.payouts.createMany([...rows(4), row(4)], { batchId: 'pos', journal: journal() }));
      expect(statuses(appended)).toEqual(['skipped', 'skipped', 'skipped', 'skipped', 'created']);
      expect([...countByRow(await allPayouts(client)).values()].every((n) => n === 1)).toBe(true);
    });
  }

  it('with skipInvalid and a one-shot source, the rows are still compared before anything is sent', async () => {
    const mock = payoutMock();
    const client = liveClient(mock);
    const journal = memoryJournal();
    await client.payouts.createMany(rows(3), { batchId: 'pos-stream', journal, skipInvalid: true }).summary();
    const sent = posts(mock).length;
    async function* moved() {
      yield row(50);
      yield* rows(3);
    }
    const error = await caught(client.payouts.createMany(moved(), { batchId: 'pos-stream', journal, skipInvalid: true }).summary());
    expect(error).toBeInstanceOf(BulkRowsChangedError);
    expect(posts(mock).length).toBe(sent);
  });

  it('rows with a key may change between runs: the key, not the position, names the row', async () => {
    const mock = payoutMock();
    const client = liveClient(mock);
    const journal = memoryJournal();
    const key = (r: { reference: string }) => r.reference;
    await client.payouts.createMany(rows(3), { batchId: 'keyed', journal, key }).summary();
    const results = await collect(client.payouts.createMany([row(99), ...rows(3)], { batchId: 'keyed', journal, key }));
    expect(statuses(results)).toEqual(['created', 'skipped', 'skipped', 'skipped']);
  });
});

describe('retryFailed', () => {
  const key = (r: { reference: string }) => r.reference;

  it('a batch refused with a sandbox key (403) is finished with the live key under derived keys; each row paid once', async () => {
    const mock = payoutMock();
    const sandbox = new PaymentsClient({ apiKey: mock.apiKey, baseUrl: mock.baseUrl, fetch: mock.fetch, maxRetries: 0 });
    const live = liveClient(mock);
    const journal = memoryJournal();
    const list = rows(5);
    const refused = await collect(sandbox.payouts.createMany(list, { batchId: 'pay', journal, key }));
    expect(refused.every((r) => r.status === 'failed' && r.error?.name === 'PermissionDeniedError')).toBe(true);

    // Without the option, the refusals stand: nothing is sent.
    const before = posts(mock).length;
    const skipped = await collect(live.payouts.createMany(list, { batchId: 'pay', journal, key }));
    expect(skipped.every((r) => r.status === 'skipped' && r.record?.outcome?.retryable === true)).toBe(true);
    expect(posts(mock).length).toBe(before);

    const retried = await collect(live.payouts.createMany(list, { batchId: 'pay', journal, key, retryFailed: true }));
    expect(statuses(retried)).toEqual(['created', 'created', 'created', 'created', 'created']);
    const derived = await Promise.all(list.map((r) => bulkIdempotencyKey('pay', r.reference, 1)));
    expect(retried.map((r) => r.idempotencyKey)).toEqual(derived);
    expect(derived.every((k, i) => k !== refused[i]?.idempotencyKey && /^bulk1_[0-9a-f]{64}$/.test(k))).toBe(true);

    // Done now: a third run, even with the option, skips every row.
    const third = await collect(live.payouts.createMany(list, { batchId: 'pay', journal, key, retryFailed: true }));
    expect(third.every((r) => r.status === 'skipped')).toBe(true);
    const payouts = await allPayouts(live);
    expect(payouts).toHaveLength(5);
    expect([...countByRow(payouts).values()].every((n) => n === 1)).toBe(true);
  });

  it('a row whose refusal follows a send without a known outcome (a 500) is never sent again under a new key', async () => {
    const mock = payoutMock();
    const journal = memoryJournal();
    // The first send of row 1 is answered 500 (its outcome unknown); its retry is refused (422).
    let call = 0;
    const fetch = async (input: RequestInfo | URL, init?: RequestInit) => {
      const request = new Request(input, init);
      if (request.method === 'POST' && (await request.clone().text()).includes('"amount":1001')) {
        call += 1;
        if (call === 1)
          return new Response('{"message":"Erreur interne."}', { status: 500, headers: { 'content-type': 'application/json' } });
        return new Response('{"message":"Refusé."}', { status: 422, headers: { 'content-type': 'application/json' } });
      }
      return mock.fetch(request);
    };
    const client = new PaymentsClient({
      apiKey: mock.liveApiKey as string,
      baseUrl: mock.baseUrl,
      fetch,
      maxRetries: 1,
      retryBackoff: { initialMs: 1, maxMs: 2 },
    });
    const first = await collect(
      client.payouts.createMany(rows(3), { batchId: 'amb', journal, key, retryBackoff: { initialMs: 1, maxMs: 2 } }),
    );
    expect(statuses(first)).toEqual(['created', 'failed', 'created']);
    expect(call).toBe(2);
    const rerun = await collect(client.payouts.createMany(rows(3), { batchId: 'amb', journal, key, retryFailed: true }));
    expect(rerun[1]).toMatchObject({ status: 'skipped', record: { outcome: { status: 'failed', error: { status: 422 } } } });
    expect(rerun[1]?.record?.outcome?.retryable).toBeUndefined();
    expect(call).toBe(2);
  });

  it('a refused row (422) fixed in the source is sent as it is now, through a file journal read back from disk', async () => {
    const mock = payoutMock();
    const client = liveClient(mock);
    const path = join(dir, 'fix.journal');
    const bad = row(1, { destination: { type: 'mobile_money', country: 'SEN', provider: 'nope', phone: '221771234567' } });
    const first = await collect(client.payouts.createMany([row(0), bad], { batchId: 'fix', journal: fileJournal(path), key }));
    expect(statuses(first)).toEqual(['created', 'failed']);
    expect(first[1]?.error?.name).toBe('UnprocessableEntityError');

    // The file journal read back: the fixed row is sent under generation 1's key; row 0 stays done.
    const fixed = await collect(
      client.payouts.createMany([row(0), row(1)], { batchId: 'fix', journal: fileJournal(path), key, retryFailed: true }),
    );
    expect(statuses(fixed)).toEqual(['skipped', 'created']);
    expect(fixed[1]?.idempotencyKey).toBe(await bulkIdempotencyKey('fix', 'emp-1', 1));
    // And read back once more, the retried row is done.
    const again = await collect(
      client.payouts.createMany([row(0), row(1)], { batchId: 'fix', journal: fileJournal(path), key, retryFailed: true }),
    );
    expect(statuses(again)).toEqual(['skipped', 'skipped']);
    expect(again[1]?.record).toMatchObject({ generation: 1, outcome: { status: 'created' } });
  });

  it('a 409 conflict is journaled as not retryable', async () => {
    const mock = payoutMock();
    const client = liveClient(mock);
    await client.payouts.createMany([row(0)], { batchId: 'conf', key }).summary();
    const journal = memoryJournal();
    const conflict = await collect(client.payouts.createMany([row(0, { amount: 9 })], { batchId: 'conf', journal, key }));
    expect(statuses(conflict)).toEqual(['conflict']);
    const rerun = await collect(client.payouts.createMany([row(0, { amount: 9 })], { batchId: 'conf', journal, key, retryFailed: true }));
    expect(statuses(rerun)).toEqual(['skipped']);
  });
});
