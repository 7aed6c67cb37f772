/**
 * `payouts.createMany` against the testing kit's mock: derived keys, the
 * store's rerun semantics, validation of every row before any is sent, conflicts, the 24-hour
 * window (the service keeps an Idempotency-Key 24 hours), adaptive concurrency against the mock's rate limit, and the signal.
 */
import { createHash } from 'node:crypto';
import {
  APIConnectionError,
  type BulkProgress,
  type BulkResult,
  bulkIdempotencyKey,
  IdempotencyConflictError,
  InvalidParamsError,
  PaymentsClient,
  PaymentsError,
} from 'payments-sdk';
import type { Telemetry, TelemetryBulkResult } from 'payments-sdk/opentelemetry';
import { describe, expect, it } from 'vitest';
import { AdaptiveConcurrency } from '../../src/bulk/concurrency.js';
import { memoryStore } from '../../src/stores/memory.js';
import { type Store, storeKey } from '../../src/stores/store.js';
import { agedStore, allPayouts, countByRow, liveClient, loggedStore, payoutMock, row, rows } from '../helpers/bulk.js';
import { collect, posts, statuses } from '../helpers/bulk-results.js';
import { caught } from '../helpers/caught.js';

const HOUR = 3_600_000;

describe('derived Idempotency-Keys', () => {
  it('are "bulk1_" + hex SHA-256 of "<UTF-8 length of batchId>:<batchId>:<rowKey>", recomputed here with node:crypto', async () => {
    const expected = (batchId: string, key: string) =>
      `bulk1_${createHash('sha256')
        .update(`${Buffer.byteLength(batchId)}:${batchId}:${key}`)
        .digest('hex')}`;
    for (const [batchId, key] of [
      ['payroll', 'emp-17'],
      ['paie-été', 'clé-1'],
      ['a:b', 'c'],
      ['a', 'b:c'],
    ] as const) {
      const derived = await bulkIdempotencyKey(batchId, key);
      expect(derived).toBe(expected(batchId, key));
      expect(derived).toMatch(/^bulk1_[0-9a-f]{64}$/);
    }
    expect(await bulkIdempotencyKey('a:b', 'c')).not.toBe(await bulkIdempotencyKey('a', 'b:c'));
  });

  it("keep with each row's first claim the hex SHA-256 of its JSON with object keys sorted at every depth, recomputed here", async () => {
    const store = memoryStore();
    // Fields built in another order than the sorted one, nested ones too; arrays keep their order.
    const built = {
      reference: 'emp-0',
      destination: { type: 'mobile_money', phone: '221771234567', provider: 'orange', country: 'SEN' },
      currency: 'XOF',
      amount: 1000,
      metadata: { z: [2, 1], a: { y: 1, b: 2 } },
    };
    await liveClient(payoutMock()).payouts.createMany([built], { batchId: 'hash', store }).summary();
    const canonical =
      '{"amount":1000,"currency":"XOF","destination":{"country":"SEN","phone":"221771234567","provider":"orange","type":"mobile_money"},' +
      '"metadata":{"a":{"b":2,"y":1},"z":[2,1]},"reference":"emp-0"}';
    const [record] = await store.read([storeKey('bulk', 'hash', '0')]);
    expect(record?.data?.rowHash).toBe(createHash('sha256').update(canonical).digest('hex'));
  });

  it('are the ones sent, one per row, the same on every attempt', async () => {
    const mock = payoutMock();
    mock.injectFault({ status: 503, times: 3, method: 'POST' });
    const results = await collect(
      liveClient(mock).payouts.createMany(rows(5), { batchId: 'keys', key: (r) => r.reference, retryBackoff: { initialMs: 1 } }),
    );
    expect(statuses(results)).toEqual(Array(5).fill('created'));
    for (const r of results) expect(r.idempotencyKey).toBe(await bulkIdempotencyKey('keys', `emp-${r.index}`));
    const sent = new Set(posts(mock).map((p) => p.idempotencyKey));
    expect(sent).toEqual(new Set(results.map((r) => r.idempotencyKey)));
    expect(posts(mock)).toHaveLength(8);
  });

  it("are resent after a 5xx's Retry-After when the service gives one, as the client's own retries wait", async () => {
    const mock = payoutMock();
    mock.injectFault({ status: 502, retryAfter: 1, method: 'POST' });
    const sentAt: number[] = [];
    const client = new PaymentsClient({
      apiKey: mock.liveApiKey as string,
      baseUrl: mock.baseUrl,
      fetch: async (input, init) => {
        const request = new Request(input, init);
        if (request.method === 'POST') sentAt.push(performance.now());
        return mock.fetch(request);
      },
    });
    const results = await collect(client.payouts.createMany(rows(1), { batchId: 'retry-after', retryBackoff: { initialMs: 1, maxMs: 1 } }));
    expect(results.map((r) => [r.status, r.attempts])).toEqual([['created', 2]]);
    expect(new Set(posts(mock).map((p) => p.idempotencyKey)).size).toBe(1);
    // The backoff alone would be 1 ms.
    expect((sentAt[1] ?? 0) - (sentAt[0] ?? 0)).toBeGreaterThanOrEqual(950);
  });
});

describe('runs and reruns', () => {
  it('creates every row once, debits the wallet, and a rerun on the same store skips every row without sending', async () => {
    const mock = payoutMock();
    const client = liveClient(mock);
    const store = memoryStore();
    const progress: BulkProgress[] = [];
    const batch = client.payouts.createMany(rows(40), {
      batchId: 'run',
      key: (r) => r.reference,
      store,
      onProgress: (p) => progress.push(p),
    });
    const results = await collect(batch);
    expect(statuses(results)).toEqual(Array(40).fill('created'));
    expect(results.map((r) => r.index)).toEqual([...Array(40).keys()]);
    expect(results[3]).toMatchObject({ key: 'emp-3', row: row(3), attempts: 1, payout: { amount: 1003, status: 'pending_approval' } });
    expect(await batch.summary()).toEqual({
      total: 40,
      created: 40,
      replayed: 0,
      skipped: 0,
      failed: 0,
      conflict: 0,
      needs_reconciliation: 0,
      aborted: false,
    });
    expect(progress.at(-1)).toMatchObject({ total: 40, done: 40, created: 40, inFlight: expect.any(Number), concurrency: 4 });
    const paid = 40 * 1000 + (39 * 40) / 2;
    expect(await client.wallets.list()).toEqual([{ currency: 'XOF', balance: 1_000_000_000 - paid }]);

    const before = posts(mock).length;
    const again = await collect(client.payouts.createMany(rows(40), { batchId: 'run', key: (r) => r.reference, store }));
    expect(statuses(again)).toEqual(Array(40).fill('skipped'));
    expect(again[5]).toMatchObject({ payout: { id: results[5]?.payout?.id }, record: { result: { status: 'created' }, claims: 1 } });
    expect(posts(mock).length).toBe(before);
    expect((await allPayouts(client)).length).toBe(40);
  });

  it('a rerun without the store is replayed by the service (same keys), never paid again', async () => {
    const mock = payoutMock();
    const client = liveClient(mock);
    await client.payouts.createMany(rows(30), { batchId: 'lost-store' }).summary();
    const summary = await client.payouts.createMany(rows(30), { batchId: 'lost-store' }).summary();
    expect(summary).toMatchObject({ replayed: 30, created: 0 });
    expect([...countByRow(await allPayouts(client)).values()]).toEqual(Array(30).fill(1));
  });

  it('takes async iterables and functions giving a fresh source; summary() runs the batch', async () => {
    const mock = payoutMock();
    const client = liveClient(mock);
    async function* generate() {
      for (let i = 0; i < 10; i++) yield row(i);
    }
    expect(await client.payouts.createMany(generate(), { batchId: 'async' }).summary()).toMatchObject({ total: 10, created: 10 });
    let opened = 0;
    const source = () => {
      opened++;
      return generate();
    };
    expect(await client.payouts.createMany(source, { batchId: 'factory' }).summary()).toMatchObject({ total: 10, created: 10 });
    expect(opened).toBe(2);
    const batch = client.payouts.createMany([row(0)], { batchId: 'once' });
    await batch.summary();
    expect(() => batch[Symbol.asyncIterator]()).toThrow(/already ran/);
  });

  it('reports a refusal (422) as failed and retryable, records it, and goes on; a rerun reports it again without a send', async () => {
    const mock = payoutMock();
    const client = liveClient(mock);
    const store = memoryStore();
    const list = [
      row(0),
      row(1, { destination: { type: 'mobile_money', country: 'SEN', provider: 'nope', phone: '221771234567' } }),
      row(2),
    ];
    const results = await collect(client.payouts.createMany(list, { batchId: 'refused', store }));
    expect(statuses(results)).toEqual(['created', 'failed', 'created']);
    expect(results[1]).toMatchObject({ retryable: true, error: { name: 'UnprocessableEntityError' } });
    const sent = posts(mock).length;
    const again = await collect(client.payouts.createMany(list, { batchId: 'refused', store }));
    expect(statuses(again)).toEqual(['skipped', 'failed', 'skipped']);
    expect(again[1]).toMatchObject({ retryable: true, record: { note: { refused: true, error: { status: 422 } } } });
    expect(again[1]?.error?.message).toMatch(/refused before anything was created \(UnprocessableEntityError 422: .*\)\. .*retryFailed/);
    expect(posts(mock).length).toBe(sent);
  });

  it('a sandbox key is refused before any row is read, claimed or sent', async () => {
    const mock = payoutMock();
    const sandbox = new PaymentsClient({ apiKey: mock.apiKey, baseUrl: mock.baseUrl, fetch: mock.fetch, maxRetries: 0 });
    const store = loggedStore(memoryStore());
    let read = 0;
    const source = () => {
      read += 1;
      return rows(3);
    };
    const error = await caught(sandbox.payouts.createMany(source, { batchId: 'sandbox', store }).summary());
    expect(error).toBeInstanceOf(PaymentsError);
    expect((error as Error).message).toMatch(/^Payouts need a live key; this client's key is a sandbox key/);
    expect([read, store.log.length, mock.requests.length]).toEqual([0, 0, 0]);
  });

  it("a sandbox key's refusal ends the run's telemetry with its error type, as any refused run", async () => {
    const mock = payoutMock();
    const ended: TelemetryBulkResult[] = [];
    const telemetry: Telemetry = {
      onCall: () => ({ onAttempt: () => ({ end: () => {} }), end: () => {} }),
      onBulk: () => ({ run: (work) => work(), onRow: () => {}, end: (result) => ended.push(result) }),
    };
    const sandbox = new PaymentsClient({ apiKey: mock.apiKey, baseUrl: mock.baseUrl, fetch: mock.fetch, telemetry });
    await caught(sandbox.payouts.createMany(rows(2), { batchId: 'sandbox-seen' }).summary());
    expect(ended).toEqual([
      {
        rows: { created: 0, replayed: 0, skipped: 0, failed: 0, conflict: 0, needs_reconciliation: 0 },
        aborted: false,
        errorType: 'PaymentsError',
      },
    ]);
    expect(mock.requests).toHaveLength(0);
  });
});

describe('with the testing kit: approval, execution, wallets', () => {
  it('each payout of a batch debits the wallet, waits for approval, and is executed or rejected (credited back)', async () => {
    const mock = payoutMock();
    const client = liveClient(mock);
    const results = await collect(client.payouts.createMany(rows(3), { batchId: 'kit' }));
    const ids = results.map((r) => String(r.payout?.id));
    expect(results.map((r) => r.payout?.status)).toEqual(['pending_approval', 'pending_approval', 'pending_approval']);
    const debited = 1_000_000_000 - (1000 + 1001 + 1002);
    expect(await client.wallets.list()).toEqual([{ currency: 'XOF', balance: debited }]);
    const completed = await mock.completePayout(ids[0] as string);
    expect(JSON.parse(completed.body)).toMatchObject({ type: 'payout.completed', data: { id: ids[0], status: 'completed' } });
    expect(mock.deliveries.map((d) => JSON.parse(d.body).type)).toEqual(['payout.approved', 'payout.processing', 'payout.completed']);
    await mock.advancePayout(ids[1] as string, { to: 'rejected' });
    expect((await client.payouts.retrieve(ids[1] as string)).status).toBe('rejected');
    expect(await client.wallets.list()).toEqual([{ currency: 'XOF', balance: debited + 1001 }]);
  });
});

describe('validation of every row before any is sent', () => {
  it('one InvalidParamsError lists every bad row by index and key, with its fields; nothing is sent', async () => {
    const mock = payoutMock();
    const client = liveClient(mock);
    const list = rows(10);
    list[2] = row(2, { amount: 0 });
    list[5] = row(5, { currency: 'X', destination: { type: 'mobile_money', phone: '+221 77' } });
    list[7] = row(7, { reference: 'emp-1' });
    const error = await caught(() => client.payouts.createMany(list, { batchId: 'bad', key: (r) => r.reference }).summary());
    expect(error).toBeInstanceOf(InvalidParamsError);
    const e = error as InvalidParamsError & { rows: Array<{ index: number; key: string }> };
    expect(e.rows.map((r) => [r.index, r.key])).toEqual([
      [2, 'emp-2'],
      [5, 'emp-5'],
      [7, 'emp-1'],
    ]);
    const paths = e.issues.map((i) => i.path.join('.'));
    expect(paths).toEqual(expect.arrayContaining(['rows.2.amount', 'rows.5.currency', 'rows.5.destination.phone', 'rows.7.key']));
    expect(e.message).toContain('rows.2.amount');
    expect(e.message).toContain('(key "emp-5")');
    expect(e.message).toContain('"emp-1" is also the key of row 1');
    expect(mock.requests).toHaveLength(0);
  });

  it('checks a one-shot async source whole before sending (it is buffered)', async () => {
    const mock = payoutMock();
    async function* generate() {
      for (let i = 0; i < 20; i++) yield i === 19 ? row(i, { amount: -1 }) : row(i);
    }
    const error = await caught(() => liveClient(mock).payouts.createMany(generate(), { batchId: 'bad-async' }).summary());
    expect((error as InvalidParamsError).issues.map((i) => i.path.join('.'))).toEqual(['rows.19.amount']);
    expect(mock.requests).toHaveLength(0);
  });

  it('with skipInvalid, a bad row is reported failed and the others are sent', async () => {
    const mock = payoutMock();
    const list = [row(0), row(1, { amount: 1.5 }), row(2)];
    const results = await collect(liveClient(mock).payouts.createMany(list, { batchId: 'skip', skipInvalid: true }));
    expect(statuses(results)).toEqual(['created', 'failed', 'created']);
    expect(results[1]?.error).toBeInstanceOf(InvalidParamsError);
    expect(results[1]?.attempts).toBe(0);
    expect(posts(mock)).toHaveLength(2);
  });

  it('refuses bad options naming each', async () => {
    const client = liveClient(payoutMock());
    const error = await caught(() =>
      client.payouts.createMany([], {
        batchId: ' ',
        concurrency: 0,
        maxRetries: 1.5,
        leaseMs: 5,
        resendWindowMs: 25 * 3_600_000,
        store: {} as Store,
      }),
    );
    expect(error).toBeInstanceOf(InvalidParamsError);
    expect((error as InvalidParamsError).issues).toEqual([
      { path: ['options', 'batchId'], message: 'must not be empty or blank' },
      { path: ['options', 'concurrency'], message: 'must be ≥ 1, got 0' },
      { path: ['options', 'maxRetries'], message: 'must be an integer, got 1.5' },
      { path: ['options', 'leaseMs'], message: 'must be ≥ 10, got 5' },
      { path: ['options', 'resendWindowMs'], message: 'must be ≤ 86400000, got 90000000' },
      { path: ['options', 'store'], message: expect.stringMatching(/^must be a store of payments-sdk\/stores/) },
    ]);
    const missing = await caught(() => client.payouts.createMany([], undefined as unknown as { batchId: string }));
    expect((missing as InvalidParamsError).issues).toEqual([{ path: ['options'], message: 'is required' }]);
    const long = await caught(() => client.payouts.createMany([], { batchId: 'b'.repeat(201), concurrency: 257 }));
    expect((long as InvalidParamsError).message).toContain('options.batchId: must be at most 200 characters, got 201');
    expect((long as InvalidParamsError).message).toContain('options.concurrency: must be ≤ 256, got 257');
  });
});

describe('conflicts', () => {
  it('a changed row under the same key is a conflict (409), and the batch goes on', async () => {
    const mock = payoutMock();
    const client = liveClient(mock);
    await client.payouts.createMany(rows(6), { batchId: 'conflict', key: (r) => r.reference }).summary();
    const changed = rows(6);
    changed[3] = { ...row(3), amount: 99_999 };
    const results = await collect(client.payouts.createMany(changed, { batchId: 'conflict', key: (r) => r.reference }));
    expect(statuses(results)).toEqual(['replayed', 'replayed', 'replayed', 'conflict', 'replayed', 'replayed']);
    expect(results[3]?.error).toBeInstanceOf(IdempotencyConflictError);
    expect(results[3]?.error?.idempotencyKey).toBe(results[3]?.idempotencyKey);
    expect((await allPayouts(client)).length).toBe(6);
  });
});

/** A client on the mock whose POSTs number `lost` (from 0) are processed by the service, then their answers lost. */
function losingAnswers(mock: ReturnType<typeof payoutMock>, lost: number[]): PaymentsClient {
  let n = 0;
  return new PaymentsClient({
    apiKey: mock.liveApiKey as string,
    baseUrl: mock.baseUrl,
    maxRetries: 0,
    fetch: async (input, init) => {
      const response = await mock.fetch(input, init);
      if (lost.includes(n++))
        throw new TypeError('fetch failed', { cause: Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' }) });
      return response;
    },
  });
}

describe('the 24-hour window of the service', () => {
  it('rows sent without a known outcome are resent with the same key within the window (replayed), and never past it', async () => {
    const store = memoryStore();
    const mock = payoutMock();
    const client = liveClient(mock, { maxRetries: 0 });
    // Rows 1 and 3 reach the service, which creates them, and their answers are lost.
    const faulty = losingAnswers(mock, [1, 3]);
    const first = await collect(faulty.payouts.createMany(rows(5), { batchId: 'window', store, concurrency: 1 }));
    expect(statuses(first)).toEqual(['created', 'failed', 'created', 'failed', 'created']);
    expect(first[1]?.error).toBeInstanceOf(APIConnectionError);
    expect((await allPayouts(client)).length).toBe(5);

    // 25 hours later by the store's clock: the service has forgotten the keys.
    const before = posts(mock).length;
    const late = await collect(client.payouts.createMany(rows(5), { batchId: 'window', store: agedStore(store, 25 * HOUR) }));
    expect(statuses(late)).toEqual(['skipped', 'needs_reconciliation', 'skipped', 'needs_reconciliation', 'skipped']);
    expect(late[1]).toMatchObject({ record: { claims: 2, note: { uncertain: true, error: { name: 'APIConnectionError' } } } });
    expect(late[1]?.error?.message).toContain('not resent');
    expect(posts(mock).length).toBe(before);
    // Reported again by every later run, still never resent.
    const again = await collect(client.payouts.createMany(rows(5), { batchId: 'window', store: agedStore(store, 26 * HOUR) }));
    expect(statuses(again)).toEqual(['skipped', 'needs_reconciliation', 'skipped', 'needs_reconciliation', 'skipped']);
    expect(posts(mock).length).toBe(before);
    expect((await allPayouts(client)).length).toBe(5);
  });

  it('within the window (22 h later), they are resent with the same key and replayed', async () => {
    const store = memoryStore();
    const mock = payoutMock();
    const faulty = losingAnswers(mock, [2]);
    await faulty.payouts.createMany(rows(4), { batchId: 'window', store, concurrency: 1 }).summary();
    const client = liveClient(mock);
    const results = await collect(client.payouts.createMany(rows(4), { batchId: 'window', store: agedStore(store, 22 * HOUR) }));
    expect(statuses(results)).toEqual(['skipped', 'skipped', 'replayed', 'skipped']);
    expect((await allPayouts(client)).length).toBe(4);
  });
});

describe('adaptive concurrency', () => {
  it('halves once per wave of throttled sends, grows back by one after a streak, up to the maximum', () => {
    const limit = new AdaptiveConcurrency(8);
    const wave = limit.epoch;
    limit.throttled(wave, 1000, 0);
    limit.throttled(wave, 1000, 0);
    limit.throttled(wave, 2000, 0);
    expect(limit.current).toBe(4);
    expect(limit.pausedUntil).toBe(2000);
    limit.throttled(limit.epoch, 0, 0);
    expect(limit.current).toBe(2);
    for (let i = 0; i < 200; i++) limit.succeeded();
    expect(limit.current).toBe(8);
    for (let i = 0; i < 4; i++) limit.throttled(limit.epoch, 0, 0);
    expect(limit.current).toBe(1);
  });

  it('after a throttle that names a wait (a rate limit), paces sends at 95 % of what succeeded over that wait, and raises the pace 1 % a second', () => {
    const limit = new AdaptiveConcurrency(16);
    // A 429 before a whole window of sending (the limit spent by an earlier run): no pace to go by.
    expect(limit.wait(9_800)).toBe(0);
    limit.succeeded(9_900);
    limit.succeeded(9_950);
    limit.throttled(limit.epoch, 1000, 10_000);
    expect(limit.rate).toBe(Number.POSITIVE_INFINITY);
    // Then 200 successes within a second, and a 429 with Retry-After: 1.
    for (let i = 0; i < 200; i++) limit.succeeded(10_001 + i * 5);
    expect(limit.wait(11_000)).toBe(0);
    limit.throttled(limit.epoch, 1000, 11_000);
    // 190 = 95 % of the 200 that succeeded in the second before (the two before it are out of the window).
    expect(limit.rate).toBeCloseTo(190, 5);
    expect(limit.wait(11_500)).toBe(500);
    expect(limit.wait(12_000)).toBe(0);
    expect(limit.wait(12_000)).toBeCloseTo(1000 / 190, 5);
    limit.succeeded(13_500);
    expect(limit.rate).toBeCloseTo(191.9, 5);
    // A throttle without a wait (Retry-After: 0, or a 503 without it) halves concurrency only.
    const other = new AdaptiveConcurrency(16);
    other.throttled(other.epoch, 0, 0);
    expect(other.rate).toBe(Number.POSITIVE_INFINITY);
    expect(other.current).toBe(8);
  });

  it('against a rate-limited mock: concurrency drops on 429, Retry-After is honoured, every row is created once', async () => {
    const mock = payoutMock({ rateLimit: { requests: 15, perMs: 1000 } });
    const sent: Array<{ at: number; status: number }> = [];
    const client = new PaymentsClient({
      apiKey: mock.liveApiKey as string,
      baseUrl: mock.baseUrl,
      fetch: async (input, init) => {
        const at = performance.now();
        const response = await mock.fetch(input, init);
        sent.push({ at, status: response.status });
        return response;
      },
    });
    const seen: number[] = [];
    const summary = await client.payouts
      .createMany(rows(30), { batchId: 'limited', concurrency: 8, onProgress: (p) => seen.push(p.concurrency) })
      .summary();
    expect(summary).toMatchObject({ created: 30, failed: 0 });
    expect(Math.min(...seen)).toBeLessThan(8);
    expect(mock.throttledCount).toBeGreaterThan(0);
    // After the first 429 (Retry-After: 1), nothing was sent for a second.
    const first429 = sent.find((s) => s.status === 429) as { at: number };
    const next = sent.find((s) => s.at > first429.at + 50);
    expect((next?.at ?? Number.POSITIVE_INFINITY) - first429.at).toBeGreaterThanOrEqual(990);
    expect([...countByRow(await allPayouts(liveClient(mock))).values()]).toEqual(Array(30).fill(1));
  });
});

describe('signal', () => {
  it('stops new sends, lets those in flight finish and be recorded, ends the iteration; a rerun completes the batch', async () => {
    const mock = payoutMock();
    const client = liveClient(mock);
    const store = memoryStore();
    const controller = new AbortController();
    const results: BulkResult[] = [];
    const batch = client.payouts.createMany(rows(200), { batchId: 'stop', store, concurrency: 4, signal: controller.signal });
    for await (const r of batch) {
      results.push(r);
      if (results.length === 10) controller.abort();
    }
    const summary = await batch.summary();
    expect(summary.aborted).toBe(true);
    expect(summary.total).toBe(results.length);
    expect(results.length).toBeLessThan(200);
    // Every send that left has its result: created payouts = created results.
    expect((await allPayouts(client)).length).toBe(summary.created);
    const rest = await client.payouts.createMany(rows(200), { batchId: 'stop', store }).summary();
    expect(rest).toMatchObject({ skipped: summary.created, created: 200 - summary.created, failed: 0 });
    expect([...countByRow(await allPayouts(client)).values()]).toEqual(Array(200).fill(1));
  });

  it('an already aborted signal sends nothing', async () => {
    const mock = payoutMock();
    const summary = await liveClient(mock).payouts.createMany(rows(10), { batchId: 'pre-aborted', signal: AbortSignal.abort() }).summary();
    expect(summary).toMatchObject({ total: 0, aborted: true });
    expect(mock.requests).toHaveLength(0);
  });

  it('leaving the loop early also stops new sends; in-flight ones are recorded', async () => {
    const mock = payoutMock();
    const client = liveClient(mock);
    const store = memoryStore();
    for await (const r of client.payouts.createMany(rows(100), { batchId: 'break', store })) if (r.index >= 0) break;
    const made = (await allPayouts(client)).length;
    expect(made).toBeLessThan(100);
    const rest = await client.payouts.createMany(rows(100), { batchId: 'break', store }).summary();
    expect(rest.skipped).toBe(made);
    expect(rest.created).toBe(100 - made);
  });
});
