/**
 * The handlers' one seam, a `Store`: a plain store is claimed, then settled once `onEvent`
 * resolved (released when it threw); a transactional store runs `onEvent` inside `transact` with its
 * context; every answer follows from what the store said. The outcome of every delivery is a value
 * of the core's answer.
 */
import { memoryStore, type Store } from 'payments-sdk/stores';
import { expressWebhook, type WebhookEvent, webhookHandler } from 'payments-sdk/webhooks';
import { describe, expect, it, vi } from 'vitest';
import { storeKey } from '../../src/stores/store.js';
import { createWebhookCore } from '../../src/webhooks/handler.js';
import { deliveryHeaders, eventBody, SECRET } from '../helpers/webhook-deliveries.js';

const quiet = { onError: () => {} };

function delivery(body = eventBody()): Request {
  return new Request('http://127.0.0.1/api/webhooks', { method: 'POST', body, headers: deliveryHeaders(body) });
}

/** A transactional store of the test's own: runs the effect with a context, then settles the key unless `fail` says otherwise. */
function transactionalStore(fail?: () => Error | undefined) {
  const inner = memoryStore();
  const keys: string[] = [];
  const store: Store<{ tx: string }> = {
    ...inner,
    kind: 'test',
    claim: (requests) => inner.claim(requests),
    renew: (...args) => inner.renew(...args),
    settle: (...args) => inner.settle(...args),
    release: (...args) => inner.release(...args),
    read: (keys) => inner.read(keys),
    async transact(key, effect, options) {
      keys.push(key);
      const [found] = await inner.read([key]);
      if (found?.settled) return { state: 'settled' };
      const failure = fail?.();
      if (failure) throw failure;
      await effect({ tx: `tx-of-${key}` });
      const [claim] = await inner.claim([{ key, owner: 'tx', leaseMs: 1000 }]);
      if (claim?.state !== 'claimed') return { state: 'busy' };
      await inner.settle(key, 'tx', options?.result);
      return { state: 'done' };
    },
  };
  return { store, keys };
}

describe('the store seam', () => {
  it('runs onEvent inside transact with the store context, keyed by payment and final event type', async () => {
    const { store, keys } = transactionalStore();
    const onEvent = vi.fn((event: WebhookEvent, { tx }: { tx: string }) => `${event.type} in ${tx}`);
    const response = await webhookHandler({ secret: SECRET, store, onEvent, ...quiet })(delivery());
    expect(response.status).toBe(200);
    const event = JSON.parse(eventBody()) as { data: { uuid: string } };
    expect(keys).toEqual([storeKey('payment', event.data.uuid, 'payment.succeeded')]);
    expect(onEvent).toHaveReturnedWith(`payment.succeeded in tx-of-${keys[0]}`);
    const again = await webhookHandler({ secret: SECRET, store, onEvent, ...quiet })(delivery());
    expect(await again.json()).toEqual({ received: true, duplicate: true });
    expect(onEvent).toHaveBeenCalledOnce();
  });

  it('keys any other event by its id', async () => {
    const { store, keys } = transactionalStore();
    const body = eventBody({ id: 'evt_payout_1', type: 'payout.completed', data: { id: 42, status: 'completed' } });
    expect((await webhookHandler({ secret: SECRET, store, onEvent: () => {}, ...quiet })(delivery(body))).status).toBe(200);
    expect(keys).toEqual([storeKey('webhook', 'evt_payout_1')]);
  });

  it('gives the context to the typed handlers of on as well', async () => {
    const { store } = transactionalStore();
    const seen: string[] = [];
    const handle = webhookHandler({
      secret: SECRET,
      store,
      on: { 'payment.succeeded': (event, { tx }) => void seen.push(`${event.data.uuid.length > 0} ${tx.startsWith('tx-of-payment:')}`) },
      ...quiet,
    });
    expect((await handle(delivery())).status).toBe(200);
    expect(seen).toEqual(['true true']);
  });

  it('answers 500 when onEvent threw, 503 when the store failed, and reports both to onError', async () => {
    const onError = vi.fn();
    const failing = transactionalStore(() => new Error('db down')).store;
    const down = await webhookHandler({ secret: SECRET, store: failing, onEvent: () => {}, onError })(delivery());
    expect([down.status, down.headers.get('retry-after'), await down.json()]).toEqual([
      503,
      '60',
      { error: 'Store unavailable; retry later.' },
    ]);
    const { store } = transactionalStore();
    const threw = await webhookHandler({
      secret: SECRET,
      store,
      onEvent: () => {
        throw new Error('boom');
      },
      onError,
    })(delivery());
    expect([threw.status, await threw.json()]).toEqual([500, { error: 'The webhook handler failed; the service will retry.' }]);
    expect(onError.mock.calls.map(([error, info]) => [(error as Error).message, info.status])).toEqual([
      ['db down', 503],
      ['boom', 500],
    ]);
    // The throw settled nothing: the next attempt runs onEvent.
    const onEvent = vi.fn();
    expect((await webhookHandler({ secret: SECRET, store, onEvent, ...quiet })(delivery())).status).toBe(200);
    expect(onEvent).toHaveBeenCalledOnce();
  });

  it('with a plain store: 409 while another attempt holds the claim, 200 once settled, a release after a throw', async () => {
    const store = memoryStore();
    const event = JSON.parse(eventBody()) as { data: { uuid: string } };
    const key = storeKey('payment', event.data.uuid, 'payment.succeeded');
    await store.claim([{ key, owner: 'another instance', leaseMs: 60_000 }]);
    const onEvent = vi.fn();
    const busy = await webhookHandler({ secret: SECRET, store, onEvent, ...quiet })(delivery());
    expect([busy.status, busy.headers.get('retry-after')]).toEqual([409, '60']);
    expect(onEvent).not.toHaveBeenCalled();
    await store.release(key, 'another instance');
    const failing = vi.fn(() => {
      throw new Error('boom');
    });
    expect((await webhookHandler({ secret: SECRET, store, onEvent: failing, ...quiet })(delivery())).status).toBe(500);
    expect((await store.read([key]))[0]).toMatchObject({ settled: false, claims: 2 });
    expect((await webhookHandler({ secret: SECRET, store, onEvent, ...quiet })(delivery())).status).toBe(200);
    expect((await store.read([key]))[0]).toMatchObject({ settled: true, result: { type: 'payment.succeeded' } });
    expect(onEvent).toHaveBeenCalledOnce();
  });

  it('a redelivery of an event whose payment key was never recorded records it, so reconciliation never runs the effect again', async () => {
    const store = memoryStore();
    const event = JSON.parse(eventBody({ id: 'evt_half' })) as { data: { uuid: string } };
    const paymentKey = storeKey('payment', event.data.uuid, 'payment.succeeded');
    // The first delivery settled its id key, then failed to record the payment key.
    await store.claim([{ key: storeKey('webhook', 'evt_half'), owner: 'first', leaseMs: 1000 }]);
    await store.settle(storeKey('webhook', 'evt_half'), 'first', { event_id: 'evt_half' });
    const onEvent = vi.fn();
    const again = await webhookHandler({ secret: SECRET, store, onEvent, ...quiet })(delivery(eventBody({ id: 'evt_half' })));
    expect(await again.json()).toEqual({ received: true, duplicate: true });
    expect(onEvent).not.toHaveBeenCalled();
    expect((await store.read([paymentKey]))[0]).toMatchObject({ settled: true, result: { event_id: 'evt_half' } });
  });

  it('keeps the body only with storeBody, exactly as delivered', async () => {
    const store = memoryStore();
    const body = eventBody({ id: 'evt_body', type: 'payout.completed', data: { id: 7, note: 'nul \u0000 and \ud800' } });
    await webhookHandler({ secret: SECRET, store, storeBody: true, onEvent: () => {}, ...quiet })(delivery(body));
    const [record] = await store.read([storeKey('webhook', 'evt_body')]);
    expect(record?.result?.event).toEqual(JSON.parse(body));
    const bare = memoryStore();
    await webhookHandler({ secret: SECRET, store: bare, onEvent: () => {}, ...quiet })(delivery(body));
    const [plain] = await bare.read([storeKey('webhook', 'evt_body')]);
    expect(Object.keys(plain?.result ?? {}).sort()).toEqual(['at', 'event_id', 'type']);
  });

  it('the core answers with the outcome of every delivery: handled, duplicate, refused, failed', async () => {
    const store = memoryStore();
    const core = createWebhookCore({ secret: SECRET, store, onEvent: () => {}, onError: () => {} }, 'test');
    const body = eventBody({ id: 'evt_outcomes' });
    const bytes = new TextEncoder().encode(body);
    const outcomes = [];
    for (let i = 0; i < 2; i++) outcomes.push((await core.handle('POST', bytes, deliveryHeaders(body))).outcome);
    outcomes.push((await core.handle('POST', bytes, { 'x-service-signature': 'ab' })).outcome);
    outcomes.push((await core.handle('GET', new Uint8Array(), {})).outcome);
    outcomes.push((await core.handle('POST', { status: 413 }, {})).outcome);
    expect(outcomes).toEqual(['handled', 'duplicate', 'refused', 'refused', 'refused']);
  });

  it('refuses a store that is not a Store', () => {
    expect(() => webhookHandler({ secret: SECRET, store: {} as Store, onEvent: () => {} })).toThrow(/store must be a Store/);
    expect(() => expressWebhook({ secret: SECRET, store: { claim() {} } as unknown as Store, onEvent: () => {} })).toThrow(
      /store must be a Store/,
    );
  });

  it('types onEvent with the context of the store given', () => {
    const { store } = transactionalStore();
    // Compile-time checks only: these handlers are never called.
    const typed = () => {
      webhookHandler({ secret: SECRET, store, onEvent: (_event, { tx }) => tx.length });
      expressWebhook({ secret: SECRET, store, onEvent: async (_event, { tx }) => tx.toUpperCase() });
      // @ts-expect-error a plain store gives no transaction
      webhookHandler({ secret: SECRET, store: memoryStore(), onEvent: (_event, { tx }) => tx });
      // @ts-expect-error no store: no transaction either
      webhookHandler({ secret: SECRET, onEvent: (_event, { tx }) => tx });
    };
    expect(typeof typed).toBe('function');
  });
});
