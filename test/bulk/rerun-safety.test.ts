/**
 * Reruns that change something, against the testing kit's mock: a batch keyed by position whose rows
 * moved is refused before any send; `retryFailed` sends again, under the row's same key, the rows
 * the service refused before creating anything; a row whose key the service keeps refusing is
 * reported with what to do; a row sent without a known outcome keeps that uncertainty for good.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { bulkIdempotencyKey, PaymentsClient } from 'payments-sdk';
import { describe, expect, it } from 'vitest';
import { BulkRowsChangedError } from '../../src/bulk/rows-changed-error.js';
import { fileStore, memoryStore } from '../../src/stores/index.js';
import { type Store, storeKey } from '../../src/stores/store.js';
import { allPayouts, countByRow, liveClient, payoutMock, row, rows } from '../helpers/bulk.js';
import { collect, posts, statuses } from '../helpers/bulk-results.js';
import { caught } from '../helpers/caught.js';

/** A client on the mock whose payout POSTs are answered `status` (nothing created) while `refuse()` is true. */
function refusingClient(mock: ReturnType<typeof payoutMock>, refuse: () => boolean, status = 403): PaymentsClient {
  return new PaymentsClient({
    apiKey: mock.liveApiKey as string,
    baseUrl: mock.baseUrl,
    maxRetries: 0,
    fetch: async (input, init) => {
      const request = new Request(input, init);
      if (request.method === 'POST' && refuse())
        return new Response('{"message":"KYC non approuvé."}', { status, headers: { 'content-type': 'application/json' } });
      return mock.fetch(request);
    },
  });
}

describe('a batch keyed by position (no key option)', () => {
  const stores: Array<[string, () => Store]> = [
    ['memory', () => memoryStore()],
    ['file', () => fileStore(join(mkdtempSync(join(tmpdir(), 'payments-sdk-rerun-')), 'positions.store'))],
  ];
  for (const [kind, makeStore] of stores) {
    it(`${kind} store: a row inserted at the top is refused on the rerun before anything is sent; the same rows are skipped`, async () => {
      const mock = payoutMock();
      const client = liveClient(mock);
      const store = makeStore();
      const first = await collect(client.payouts.createMany(rows(4), { batchId: 'pos', store }));
      expect(statuses(first)).toEqual(['created', 'created', 'created', 'created']);
      const sent = posts(mock).length;

      const shifted = [row(99), ...rows(4)];
      const error = await caught(client.payouts.createMany(shifted, { batchId: 'pos', store }).summary());
      expect(error).toBeInstanceOf(BulkRowsChangedError);
      expect((error as BulkRowsChangedError).rows).toEqual([0, 1, 2, 3]);
      expect((error as Error).message).toMatch(
        /differ from the rows recorded there. Rows without a key are known by position and must not change between runs. Nothing was sent./,
      );
      expect(posts(mock).length).toBe(sent);

      // One row edited in place is refused too.
      const edited = rows(4).map((r, i) => (i === 2 ? { ...r, amount: 5 } : r));
      const again = await caught(client.payouts.createMany(edited, { batchId: 'pos', store }).summary());
      expect((again as BulkRowsChangedError).rows).toEqual([2]);
      expect(posts(mock).length).toBe(sent);

      // The same rows in the same order are skipped; a row appended at the end is created.
      const appended = await collect(client.payouts.createMany([...rows(4), row(4)], { batchId: 'pos', store }));
      expect(statuses(appended)).toEqual(['skipped', 'skipped', 'skipped', 'skipped', 'created']);
      expect([...countByRow(await allPayouts(client)).values()].every((n) => n === 1)).toBe(true);
      await store.close?.();
    });
  }

  it('with skipInvalid and a one-shot source, the rows are still compared before anything is sent', async () => {
    const mock = payoutMock();
    const client = liveClient(mock);
    const store = memoryStore();
    await client.payouts.createMany(rows(3), { batchId: 'pos-stream', store, skipInvalid: true }).summary();
    const sent = posts(mock).length;
    async function* moved() {
      yield row(50);
      yield* rows(3);
    }
    const error = await caught(client.payouts.createMany(moved(), { batchId: 'pos-stream', store, skipInvalid: true }).summary());
    expect(error).toBeInstanceOf(BulkRowsChangedError);
    expect((error as Error).message).toMatch(/Nothing was sent\.$/);
    expect(posts(mock).length).toBe(sent);
  });

  it('a source that changes between its check and its send stops the run at the changed row, without saying that nothing was sent', async () => {
    const mock = payoutMock();
    const client = liveClient(mock);
    const store = memoryStore();
    // The first run creates position 0, skips position 1 (invalid), and is refused at position 2,
    // which stays recorded without an outcome.
    const invalid = { ...row(1), amount: -1 };
    const refusing = refusingClient(mock, () => posts(mock).length === 1);
    await refusing.payouts
      .createMany([row(0), invalid, row(2)], { batchId: 'pos-live', store, skipInvalid: true, concurrency: 1 })
      .summary();
    const sent = posts(mock).length;
    // A function source is read twice: checked (the recorded positions match), then sent (position 2 has moved).
    let reads = 0;
    const source = () => {
      reads += 1;
      return reads === 1 ? [row(0), row(1), row(2)] : [row(0), row(1), row(60)];
    };
    const error = await caught(client.payouts.createMany(source, { batchId: 'pos-live', store, concurrency: 1 }).summary());
    expect(error).toBeInstanceOf(BulkRowsChangedError);
    expect((error as BulkRowsChangedError).rows).toEqual([2]);
    expect((error as Error).message).toMatch(/That row was not sent; the rows before it may have been \(their results say which\)\.$/);
    // Position 1 was new and was sent; the moved row was not.
    expect(posts(mock).length).toBe(sent + 1);
    expect(posts(mock).some((post) => JSON.stringify(post).includes(row(60).reference))).toBe(false);
  });

  it('rows with a key may change between runs: the key, not the position, names the row', async () => {
    const mock = payoutMock();
    const client = liveClient(mock);
    const store = memoryStore();
    const key = (r: { reference: string }) => r.reference;
    await client.payouts.createMany(rows(3), { batchId: 'keyed', store, key }).summary();
    const results = await collect(client.payouts.createMany([row(99), ...rows(3)], { batchId: 'keyed', store, key }));
    expect(statuses(results)).toEqual(['created', 'skipped', 'skipped', 'skipped']);
  });
});

describe('retryFailed', () => {
  const key = (r: { reference: string }) => r.reference;

  it('a batch refused before anything was created (403) is finished with retryFailed under the same keys; each row paid once', async () => {
    const mock = payoutMock();
    let refusing = true;
    const client = refusingClient(mock, () => refusing);
    const store = memoryStore();
    const list = rows(5);
    const refused = await collect(client.payouts.createMany(list, { batchId: 'pay', store, key }));
    expect(refused.every((r) => r.status === 'failed' && r.retryable === true && r.error?.name === 'PermissionDeniedError')).toBe(true);
    refusing = false;

    // Without the option, the refusals stand: reported again, nothing is sent.
    const before = posts(mock).length;
    const stand = await collect(client.payouts.createMany(list, { batchId: 'pay', store, key }));
    expect(stand.every((r) => r.status === 'failed' && r.retryable === true && r.record?.note?.refused === true)).toBe(true);
    expect(posts(mock).length).toBe(before);

    const retried = await collect(client.payouts.createMany(list, { batchId: 'pay', store, key, retryFailed: true }));
    expect(statuses(retried)).toEqual(['created', 'created', 'created', 'created', 'created']);
    const keys = await Promise.all(list.map((r) => bulkIdempotencyKey('pay', r.reference)));
    expect(retried.map((r) => r.idempotencyKey)).toEqual(keys);
    expect(refused.map((r) => r.idempotencyKey)).toEqual(keys);

    // Done now: a third run, even with the option, skips every row; so does a run on a fresh store (replayed).
    const third = await collect(client.payouts.createMany(list, { batchId: 'pay', store, key, retryFailed: true }));
    expect(third.every((r) => r.status === 'skipped')).toBe(true);
    const fresh = await collect(client.payouts.createMany(list, { batchId: 'pay', key, retryFailed: true }));
    expect(fresh.every((r) => r.status === 'replayed')).toBe(true);
    const payouts = await allPayouts(liveClient(mock));
    expect(payouts).toHaveLength(5);
    expect([...countByRow(payouts).values()].every((n) => n === 1)).toBe(true);
  });

  it('a row the service keeps refusing under its key is reported so, naming a new batch id as the only way to send it', async () => {
    const mock = payoutMock();
    const client = refusingClient(mock, () => true, 422);
    const store = memoryStore();
    await client.payouts.createMany(rows(1), { batchId: 'keeps', store, key }).summary();
    const [again] = await collect(client.payouts.createMany(rows(1), { batchId: 'keeps', store, key, retryFailed: true }));
    expect(again).toMatchObject({ status: 'failed', retryable: true, error: { name: 'UnprocessableEntityError', status: 422 } });
    expect(again?.error?.message).toMatch(/it keeps refusing this key\. Sending the row anyway needs a new batch id/);
    expect(posts(mock)).toHaveLength(0);
  });

  it('a row whose refusal follows a send without a known outcome (a 500) keeps that uncertainty: never retryable, resent only under its key', async () => {
    const mock = payoutMock();
    const store = memoryStore();
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
      client.payouts.createMany(rows(3), { batchId: 'amb', store, key, retryBackoff: { initialMs: 1, maxMs: 2 } }),
    );
    expect(statuses(first)).toEqual(['created', 'failed', 'created']);
    expect(first[1]?.retryable).toBe(false);
    expect(call).toBe(2);
    const rerun = await collect(client.payouts.createMany(rows(3), { batchId: 'amb', store, key }));
    expect(rerun[1]).toMatchObject({ status: 'failed', retryable: false, record: { note: { uncertain: true, refused: true } } });
    expect(call).toBe(2);
    // With retryFailed it is sent again, under its one key; refused again, the note stays uncertain.
    const retried = await collect(client.payouts.createMany(rows(3), { batchId: 'amb', store, key, retryFailed: true }));
    expect(retried[1]).toMatchObject({ status: 'failed', retryable: false, idempotencyKey: await bulkIdempotencyKey('amb', 'emp-1') });
    expect(call).toBe(3);
    const [record] = await store.read([storeKey('bulk', 'amb', 'emp-1')]);
    expect(record?.note).toMatchObject({ uncertain: true, refused: true });
  });

  it('a 409 conflict is recorded for good: skipped by every rerun, retryFailed or not', async () => {
    const mock = payoutMock();
    const client = liveClient(mock);
    await client.payouts.createMany([row(0)], { batchId: 'conf', key }).summary();
    const store = memoryStore();
    const conflict = await collect(client.payouts.createMany([row(0, { amount: 9 })], { batchId: 'conf', store, key }));
    expect(statuses(conflict)).toEqual(['conflict']);
    const rerun = await collect(client.payouts.createMany([row(0, { amount: 9 })], { batchId: 'conf', store, key, retryFailed: true }));
    expect(rerun[0]).toMatchObject({ status: 'skipped', record: { result: { status: 'conflict' } } });
  });
});
