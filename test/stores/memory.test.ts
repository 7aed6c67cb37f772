/**
 * `memoryStore()` beyond the contract: its bound (a live claim and a settled key inside its
 * retention are never dropped; a claim that cannot fit rejects with StoreFullError and changes
 * nothing), its retention, and its options.
 */
import { PaymentsError } from 'payments-sdk';
import { memoryStore, type StoreClaimRequest, StoreFullError } from 'payments-sdk/stores';
import { describe, expect, it } from 'vitest';
import { caught } from '../helpers/caught.js';

const LONG = 60_000;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('memoryStore', () => {
  it('refuses a new key with StoreFullError when every slot holds a live claim or a settled key, and keeps them all', async () => {
    const store = memoryStore({ maxKeys: 2 });
    await store.claim([{ key: 'live', owner: 'A', leaseMs: LONG }]);
    await store.claim([{ key: 'done', owner: 'A', leaseMs: LONG }]);
    expect(await store.settle('done', 'A')).toBe(true);
    const error = await caught(store.claim([{ key: 'new', owner: 'B', leaseMs: LONG }]));
    expect(error).toBeInstanceOf(StoreFullError);
    expect(error).toBeInstanceOf(PaymentsError);
    expect(error.name).toBe('StoreFullError');
    expect(error.message).toMatch(/memoryStore: all 2 keys hold live claims or settled records.*503.*Raise maxKeys/);
    expect(await store.read(['live', 'done', 'new'])).toEqual([
      expect.objectContaining({ owner: 'A', settled: false }),
      expect.objectContaining({ settled: true }),
      undefined,
    ]);
    // Keys already there still answer.
    expect((await store.claim([{ key: 'done', owner: 'B', leaseMs: LONG }]))[0]?.state).toBe('settled');
    expect((await store.claim([{ key: 'live', owner: 'B', leaseMs: LONG }]))[0]?.state).toBe('busy');
  });

  it('makes room from records neither settled nor claimed (released, or whose lease ended), oldest first', async () => {
    const store = memoryStore({ maxKeys: 3 });
    await store.claim([
      { key: 'released', owner: 'A', leaseMs: LONG },
      { key: 'lapsed', owner: 'A', leaseMs: 1 },
      { key: 'live', owner: 'A', leaseMs: LONG },
    ]);
    expect(await store.release('released', 'A', { error: 'timeout' })).toBe(true);
    await sleep(5);
    expect((await store.claim([{ key: 'n1', owner: 'B', leaseMs: LONG }]))[0]?.state).toBe('claimed');
    // `lapsed` was written before `released` was released: it goes first.
    expect((await store.read(['lapsed', 'released'])).map((r) => r?.key)).toEqual([undefined, 'released']);
    expect((await store.claim([{ key: 'n2', owner: 'B', leaseMs: LONG }]))[0]?.state).toBe('claimed');
    expect(await store.read(['released'])).toEqual([undefined]);
    expect(await caught(store.claim([{ key: 'n3', owner: 'B', leaseMs: LONG }]))).toBeInstanceOf(StoreFullError);
  });

  it('makes room from records past their retention before released ones, and drops none when there is not enough', async () => {
    const store = memoryStore({ maxKeys: 3, ttlMs: 100 });
    await store.claim([{ key: 'old', owner: 'A', leaseMs: LONG }]);
    expect(await store.settle('old', 'A')).toBe(true);
    await sleep(150);
    await store.claim([
      { key: 'released', owner: 'A', leaseMs: LONG },
      { key: 'live', owner: 'A', leaseMs: LONG },
    ]);
    expect(await store.release('released', 'A')).toBe(true);
    // Three new keys need three slots: there are only `old` (past its retention) and `released`.
    const three = ['n1', 'n2', 'n3'].map((key) => ({ key, owner: 'B', leaseMs: LONG }));
    expect(await caught(store.claim(three))).toBeInstanceOf(StoreFullError);
    expect((await store.read(['released', 'live'])).map((r) => r?.key)).toEqual(['released', 'live']);
    // One new key: the record past its retention goes, the released one stays.
    expect((await store.claim([{ key: 'n1', owner: 'B', leaseMs: LONG }]))[0]?.state).toBe('claimed');
    expect((await store.read(['released', 'live', 'n1'])).map((r) => r?.key)).toEqual(['released', 'live', 'n1']);
  });

  it('refuses a call of many keys that cannot all fit before claiming any of them', async () => {
    const store = memoryStore({ maxKeys: 3 });
    await store.claim([{ key: 'a', owner: 'A', leaseMs: LONG }]);
    const error = await caught(store.claim(['a', 'b', 'c', 'd'].map((key) => ({ key, owner: 'B', leaseMs: LONG }))));
    expect(error).toBeInstanceOf(StoreFullError);
    expect(await store.read(['b', 'c', 'd'])).toEqual([undefined, undefined, undefined]);
    // Keys already held and keys repeated in one call need no room of their own.
    const answers = await store.claim(['a', 'b', 'b', 'c'].map((key) => ({ key, owner: 'B', leaseMs: LONG })));
    expect(answers.map((a) => a.state)).toEqual(['busy', 'claimed', 'claimed', 'claimed']);
  });

  it('forgets a record ttlMs after its last write, settled ones included; a live lease outlasts it', async () => {
    const store = memoryStore({ ttlMs: 100 });
    await store.claim([
      { key: 'settled', owner: 'A', leaseMs: LONG },
      { key: 'held', owner: 'A', leaseMs: 400 },
    ]);
    expect(await store.settle('settled', 'A', { ok: true })).toBe(true);
    await sleep(200);
    const [settled, held] = await store.read(['settled', 'held']);
    expect(settled).toBeUndefined();
    expect(held).toMatchObject({ owner: 'A' });
    expect((await store.claim([{ key: 'settled', owner: 'B', leaseMs: LONG }]))[0]?.record.claims).toBe(1);
    await sleep(400);
    expect(await store.read(['held'])).toEqual([undefined]);
  });

  it('counts a full store free again once its records pass their retention', async () => {
    const store = memoryStore({ maxKeys: 1, ttlMs: 50 });
    await store.claim([{ key: 'a', owner: 'A', leaseMs: 10 }]);
    expect(await store.settle('a', 'A')).toBe(true);
    expect(await caught(store.claim([{ key: 'b', owner: 'A', leaseMs: 10 }]))).toBeInstanceOf(StoreFullError);
    await sleep(80);
    expect((await store.claim([{ key: 'b', owner: 'A', leaseMs: 10 }]))[0]?.state).toBe('claimed');
  });

  it('checks its options and requests, naming what is wrong', async () => {
    expect(() => memoryStore({ maxKeys: 0 })).toThrow('memoryStore: maxKeys must be a positive integer, got 0.');
    expect(() => memoryStore({ ttlMs: 1.5 })).toThrow('memoryStore: ttlMs must be a positive integer, got 1.5.');
    const store = memoryStore();
    expect(store.kind).toBe('memory');
    expect((await caught(store.claim([{ key: '', owner: 'A', leaseMs: 1 }]))).message).toMatch(/key must be a non-empty string/);
    // A request that is not an object has no key.
    expect((await caught(store.claim([null as unknown as StoreClaimRequest]))).message).toMatch(/key must be a non-empty string/);
    expect((await caught(store.claim([{ key: 'k', owner: '', leaseMs: 1 }]))).message).toMatch(/owner must be a non-empty string/);
    expect((await caught(store.claim([{ key: 'k', owner: 'A', leaseMs: 0 }]))).message).toMatch(/leaseMs must be a positive integer/);
    expect((await caught(store.renew('k', 'A', -1))).message).toMatch(/leaseMs must be a positive integer/);
  });
});
