/** The fetch-style handler, driven with real `Request` objects (and a real Hono app). */
import { Hono } from 'hono';
import { PaymentsError } from 'payments-sdk';
import { memoryStore, type Store } from 'payments-sdk/stores';
import { type WebhookErrorInfo, type WebhookEvent, type WebhookHandlerOptions, webhookHandler } from 'payments-sdk/webhooks';
import { afterEach, describe, expect, expectTypeOf, it, vi } from 'vitest';
import { deliveryHeaders, eventBody, OTHER_SECRET, SECRET } from '../helpers/webhook-deliveries.js';

const URL_ = 'http://127.0.0.1/api/webhooks';

function delivery(body = eventBody(), opts: { secret?: string; headers?: Record<string, string>; method?: string } = {}): Request {
  return new Request(URL_, {
    method: opts.method ?? 'POST',
    body,
    headers: { ...deliveryHeaders(body, { secret: opts.secret }), ...opts.headers },
  });
}

/**
 * A handler whose errors are collected rather than logged, with a store of its own: the default
 * store is shared by every handler of the process with the same secret (test/webhooks/default-store.test.ts).
 */
function handler(options: WebhookHandlerOptions) {
  const errors: { error: unknown; info: WebhookErrorInfo }[] = [];
  const handle = webhookHandler({ onError: (error, info) => errors.push({ error, info }), store: memoryStore(), ...options });
  return { handle, errors };
}

async function json(response: Response): Promise<Record<string, unknown>> {
  expect(response.headers.get('content-type')).toMatch(/^application\/json/);
  return (await response.json()) as Record<string, unknown>;
}

afterEach(() => {
  vi.unstubAllEnvs();
  vi.restoreAllMocks();
});

describe('webhookHandler', () => {
  it('answers 200 once onEvent resolved, with the verified event', async () => {
    const seen: WebhookEvent[] = [];
    const { handle } = handler({ secret: SECRET, onEvent: async (event) => void seen.push(event) });
    const response = await handle(delivery());
    expect(response.status).toBe(200);
    expect(await json(response)).toEqual({ received: true });
    expect(seen).toHaveLength(1);
    expect(seen[0]).toMatchObject({ id: 'evt_01JD3Z8Q4X5Y6Z7A8B9C0D1E2F', type: 'payment.succeeded', data: { uuid: expect.any(String) } });
  });

  it('answers 200 without calling onEvent again for an id already handled', async () => {
    const onEvent = vi.fn();
    const { handle } = handler({ secret: SECRET, onEvent });
    expect((await handle(delivery())).status).toBe(200);
    const again = await handle(delivery());
    expect(again.status).toBe(200);
    expect(await json(again)).toEqual({ received: true, duplicate: true });
    expect(onEvent).toHaveBeenCalledTimes(1);
    // Another id is another event.
    expect((await handle(delivery(eventBody({ id: 'evt_2' })))).status).toBe(200);
    expect(onEvent).toHaveBeenCalledTimes(2);
  });

  it('answers 500 when onEvent threw, then processes the redelivery (the claim was released)', async () => {
    let calls = 0;
    const { handle, errors } = handler({
      secret: SECRET,
      onEvent: async () => {
        calls++;
        if (calls === 1) throw new Error('database down: internal detail');
      },
    });
    const failed = await handle(delivery());
    expect(failed.status).toBe(500);
    const body = await json(failed);
    expect(body.error).toMatch(/retry/);
    expect(JSON.stringify(body)).not.toContain('internal detail');
    expect(errors[0]?.info).toMatchObject({ status: 500, event: { id: 'evt_01JD3Z8Q4X5Y6Z7A8B9C0D1E2F' } });
    expect((errors[0]!.error as Error).message).toContain('internal detail');
    const retried = await handle(delivery());
    expect(retried.status).toBe(200);
    expect(await json(retried)).toEqual({ received: true });
    expect(calls).toBe(2);
  });

  it('a synchronous throw is a 500 too', async () => {
    const { handle } = handler({
      secret: SECRET,
      onEvent: () => {
        throw new Error('sync');
      },
    });
    expect((await handle(delivery())).status).toBe(500);
  });

  it('answers 400 { error, reason } for each verification failure, and never calls onEvent', async () => {
    const onEvent = vi.fn();
    const { handle, errors } = handler({ secret: SECRET, onEvent });
    const body = eventBody();
    const cases: [Request, string][] = [
      [new Request(URL_, { method: 'POST', body }), 'missing_signature'],
      [new Request(URL_, { method: 'POST', body, headers: { 'x-service-signature': 'abc' } }), 'malformed_signature'],
      [delivery(body, { secret: OTHER_SECRET }), 'signature_mismatch'],
      [delivery('not json'), 'invalid_payload'],
      [delivery(body, { headers: { 'x-service-event': 'payment.failed' } }), 'event_type_mismatch'],
    ];
    for (const [request, reason] of cases) {
      const response = await handle(request);
      expect(response.status).toBe(400);
      const answer = await json(response);
      expect(answer.reason).toBe(reason);
      expect(answer.error).toEqual(expect.any(String));
    }
    expect(onEvent).not.toHaveBeenCalled();
    expect(errors.map((e) => e.info.reason)).toEqual(cases.map(([, reason]) => reason));
  });

  it('keeps hints about the secret out of the answer (they go to onError)', async () => {
    const { handle, errors } = handler({ secret: `${SECRET}\n`, onEvent: () => {} });
    const response = await handle(delivery());
    expect(response.status).toBe(400);
    expect(JSON.stringify(await json(response))).not.toMatch(/whitespace|whsec_/);
    expect((errors[0]!.error as Error).message).toMatch(/whitespace/);
  });

  it('answers 405 with Allow: POST for other methods', async () => {
    const onEvent = vi.fn();
    const { handle } = handler({ secret: SECRET, onEvent });
    for (const method of ['GET', 'PUT', 'HEAD']) {
      const response = await handle(new Request(URL_, { method }));
      expect(response.status).toBe(405);
      expect(response.headers.get('allow')).toBe('POST');
    }
    expect(onEvent).not.toHaveBeenCalled();
  });

  it('answers 413 beyond maxBodyBytes, declared or streamed', async () => {
    const { handle } = handler({ secret: SECRET, onEvent: () => {}, maxBodyBytes: 100 });
    expect((await handle(delivery())).status).toBe(413);
    // No Content-Length: a stream, cut off once past the limit.
    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        for (let i = 0; i < 10; i++) controller.enqueue(new Uint8Array(50));
        controller.close();
      },
    });
    const streamed = new Request(URL_, { method: 'POST', body: stream, duplex: 'half' } as RequestInit);
    expect((await handle(streamed)).status).toBe(413);
  });

  it('joins a streamed body that arrives in chunks', async () => {
    const onEvent = vi.fn();
    const { handle } = handler({ secret: SECRET, onEvent });
    const body = eventBody();
    const bytes = new TextEncoder().encode(body);
    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        for (let i = 0; i < bytes.length; i += 100) controller.enqueue(bytes.slice(i, i + 100));
        controller.close();
      },
    });
    const request = new Request(URL_, { method: 'POST', body: stream, headers: deliveryHeaders(body), duplex: 'half' } as RequestInit);
    expect((await handle(request)).status).toBe(200);
    expect(onEvent).toHaveBeenCalledOnce();
  });

  it('refuses a request whose body was already read, saying how to fix it', async () => {
    const { handle } = handler({ secret: SECRET, onEvent: () => {} });
    const request = delivery();
    await request.json();
    const response = await handle(request);
    expect(response.status).toBe(400);
    const answer = await json(response);
    expect(answer.reason).toBe('invalid_payload');
    expect(answer.error).toMatch(/already read.*request\.clone\(\)/);
    // A clone read elsewhere leaves the original intact.
    const original = delivery();
    await original.clone().json();
    expect((await handle(original)).status).toBe(200);
  });

  it('dispatches to on[type] with the event typed, and to onEvent for the rest', async () => {
    const calls: string[] = [];
    const { handle } = handler({
      secret: SECRET,
      on: {
        'payment.succeeded': (event) => {
          expectTypeOf(event.data.net_amount_to_merchant).toEqualTypeOf<number>();
          calls.push(`succeeded:${event.data.uuid}`);
        },
        'payment.failed': (event) => void calls.push(`failed:${event.data.failure_reason}`),
        'payout.completed': (event) => void calls.push(`payout.completed:${event.data.amount}`),
        'payout.*': (event) => void calls.push(`payout.*:${event.type}`),
      },
      onEvent: (event) => void calls.push(`onEvent:${event.type}`),
    });
    const bodies = [
      eventBody({ id: 'a' }),
      eventBody({ id: 'b', type: 'payment.failed', data: JSON.parse(eventBody()).data }),
      eventBody({ id: 'c', type: 'payout.completed', data: { amount: 7 } }),
      eventBody({ id: 'd', type: 'payout.rejected', data: {} }),
      eventBody({ id: 'e', type: 'wallet.updated', data: {} }),
    ];
    for (const body of bodies) expect((await handle(delivery(body))).status).toBe(200);
    expect(calls).toEqual([
      'succeeded:9b2f8a1e-3c4d-4e5f-8a9b-0c1d2e3f4a5b',
      'failed:null',
      'payout.completed:7',
      'payout.*:payout.rejected',
      'onEvent:wallet.updated',
    ]);
  });

  it('acknowledges with 200 an event nobody handles (no retries for events the merchant does not want)', async () => {
    const succeeded = vi.fn();
    const { handle } = handler({ secret: SECRET, on: { 'payment.succeeded': succeeded } });
    const response = await handle(delivery(eventBody({ type: 'payout.paid', data: {} })));
    expect(response.status).toBe(200);
    expect(await json(response)).toEqual({ received: true });
    expect(succeeded).not.toHaveBeenCalled();
  });

  it('looks up on[type] among own keys only: "constructor" or "toString" go to onEvent', async () => {
    const onEvent = vi.fn();
    const { handle } = handler({ secret: SECRET, on: { 'payment.succeeded': vi.fn() }, onEvent });
    const types = ['constructor', 'toString', '__proto__', 'hasOwnProperty'];
    for (const [i, type] of types.entries()) expect((await handle(delivery(eventBody({ id: `p${i}`, type, data: {} })))).status).toBe(200);
    expect(onEvent.mock.calls.map(([event]) => (event as WebhookEvent).type)).toEqual(types);
  });

  it('reads the secret from PAYMENTS_WEBHOOK_SECRET when built; without one, building it throws', async () => {
    vi.stubEnv('PAYMENTS_WEBHOOK_SECRET', '');
    const onEvent = vi.fn();
    // At construction, not at the first delivery (which would answer 500 to every attempt).
    expect(() => handler({ onEvent })).toThrow(PaymentsError);
    expect(() => handler({ onEvent })).toThrow(
      /webhookHandler: no webhook secret: pass \{ secret \} to webhookHandler\(\) or set the PAYMENTS_WEBHOOK_SECRET/,
    );
    vi.stubEnv('PAYMENTS_WEBHOOK_SECRET', SECRET);
    const { handle } = handler({ onEvent });
    expect((await handle(delivery())).status).toBe(200);
    expect(onEvent).toHaveBeenCalledOnce();
  });

  it('accepts several secrets', async () => {
    const onEvent = vi.fn();
    const { handle } = handler({ secret: [OTHER_SECRET, SECRET], onEvent });
    expect((await handle(delivery(eventBody({ id: 'evt_a', type: 'payout.completed', data: { id: 1 } }), { secret: SECRET }))).status).toBe(
      200,
    );
    expect(
      (await handle(delivery(eventBody({ id: 'evt_b', type: 'payout.completed', data: { id: 2 } }), { secret: OTHER_SECRET }))).status,
    ).toBe(200);
    expect(onEvent).toHaveBeenCalledTimes(2);
  });

  it('answers 409 to a duplicate that arrives while the first delivery is still in flight', async () => {
    let finish!: () => void;
    const onEvent = vi.fn(() => new Promise<void>((resolve) => (finish = resolve)));
    const { handle } = handler({ secret: SECRET, onEvent });
    const first = handle(delivery());
    await vi.waitFor(() => expect(onEvent).toHaveBeenCalledOnce());
    const concurrent = await handle(delivery());
    expect(concurrent.status).toBe(409);
    expect(concurrent.headers.get('retry-after')).toBe('60');
    finish();
    expect((await first).status).toBe(200);
    const later = await handle(delivery());
    expect(later.status).toBe(200);
    expect(await json(later)).toEqual({ received: true, duplicate: true });
    expect(onEvent).toHaveBeenCalledOnce();
  });

  /** A store that answers each call as `calls` says, memory underneath. */
  function storeWith(calls: Partial<Pick<Store, 'claim' | 'settle' | 'release'>>): Store {
    const inner = memoryStore();
    return {
      kind: 'custom',
      claim: calls.claim ?? ((requests) => inner.claim(requests)),
      settle: calls.settle ?? ((...args) => inner.settle(...args)),
      release: calls.release ?? ((...args) => inner.release(...args)),
      renew: (...args) => inner.renew(...args),
      read: (keys) => inner.read(keys),
    };
  }

  it('answers 503 when the store fails (the service retries), without calling onEvent', async () => {
    const onEvent = vi.fn();
    const { handle, errors } = handler({
      secret: SECRET,
      onEvent,
      store: storeWith({ claim: () => Promise.reject(new Error('redis down')) }),
    });
    const response = await handle(delivery());
    expect(response.status).toBe(503);
    expect(response.headers.get('retry-after')).toBe('60');
    expect(onEvent).not.toHaveBeenCalled();
    expect((errors[0]!.error as Error).message).toBe('redis down');
    expect(errors[0]!.info.status).toBe(503);
  });

  it('bounds every store call: a claim that never settles is a 503 within 3 s', async () => {
    const onEvent = vi.fn();
    const { handle, errors } = handler({ secret: SECRET, onEvent, store: storeWith({ claim: () => new Promise<never>(() => {}) }) });
    const started = performance.now();
    expect((await handle(delivery())).status).toBe(503);
    expect(performance.now() - started).toBeLessThan(4000);
    expect((errors[0]!.error as Error).message).toMatch(/custom store's claim did not answer within 3000 ms/);
    expect(onEvent).not.toHaveBeenCalled();
  });

  it('still answers 500 when releasing the claim fails, and 200 when settling it fails', async () => {
    const failing = storeWith({
      release: () => {
        throw new Error('release failed');
      },
      settle: () => Promise.reject(new Error('settle failed')),
    });
    const { handle: throwing, errors } = handler({ secret: SECRET, onEvent: () => Promise.reject(new Error('boom')), store: failing });
    expect((await throwing(delivery(eventBody({ id: 'x1', type: 'payout.completed', data: { id: 1 } })))).status).toBe(500);
    const { handle: working, errors: workingErrors } = handler({ secret: SECRET, onEvent: () => {}, store: failing });
    expect((await working(delivery(eventBody({ id: 'x2', type: 'payout.completed', data: { id: 2 } })))).status).toBe(200);
    expect(errors.map((e) => (e.error as Error).message)).toEqual(['release failed', 'boom']);
    expect(workingErrors.map((e) => [(e.error as Error).message, e.info.status])).toEqual([['settle failed', 200]]);
  });

  it('logs to the console by default: error for 500, warn for 400', async () => {
    const error = vi.spyOn(console, 'error').mockImplementation(() => {});
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    const handle = webhookHandler({ secret: SECRET, onEvent: () => Promise.reject(new Error('boom')), store: memoryStore() });
    await handle(delivery());
    await handle(delivery(eventBody(), { secret: OTHER_SECRET }));
    expect(error).toHaveBeenCalledWith(
      expect.stringContaining('answered 500 (event evt_01JD3Z8Q4X5Y6Z7A8B9C0D1E2F, payment.succeeded)'),
      expect.any(Error),
    );
    expect(warn).toHaveBeenCalledWith(expect.stringMatching(/answered 400: Webhook signature mismatch/));
    for (const call of [...error.mock.calls, ...warn.mock.calls]) expect(String(call[0])).not.toContain(SECRET);
  });

  it('an onError that throws does not change the answer', async () => {
    const handle = webhookHandler({
      secret: SECRET,
      onEvent: () => {},
      onError: () => {
        throw new Error('logger broken');
      },
    });
    expect((await handle(delivery(eventBody(), { secret: OTHER_SECRET }))).status).toBe(400);
  });

  it('refuses bad options when the handler is created', () => {
    const bad: [unknown, RegExp][] = [
      [{ secret: SECRET }, /onEvent, or handlers by type/],
      [{ secret: SECRET, on: {} }, /onEvent, or handlers by type/],
      [{ secret: SECRET, onEvent: 'x' }, /onEvent must be a function/],
      [{ secret: SECRET, on: { 'payment.succeeded': 1 } }, /on\["payment.succeeded"\] must be a function/],
      [{ secret: '', onEvent: () => {} }, /secret/],
      [{ secret: [], onEvent: () => {} }, /empty array/],
      [{ secret: SECRET, onEvent: () => {}, store: {} }, /store must be a Store/],
      [{ secret: SECRET, onEvent: () => {}, maxBodyBytes: 0 }, /maxBodyBytes/],
      [null, /pass \{ secret, onEvent \}/],
    ];
    for (const [options, message] of bad) {
      expect(() => webhookHandler(options as WebhookHandlerOptions)).toThrow(PaymentsError);
      expect(() => webhookHandler(options as WebhookHandlerOptions)).toThrow(message);
    }
  });
});

describe('webhookHandler in a real Hono app', () => {
  it('handles c.req.raw, and explains when a validator read the body first', async () => {
    const onEvent = vi.fn();
    const handle = webhookHandler({ secret: SECRET, onEvent, onError: () => {}, store: memoryStore() });
    const app = new Hono();
    app.post('/webhooks', (c) => handle(c.req.raw));
    app.post('/parsed-first', async (c) => {
      await c.req.json();
      return handle(c.req.raw);
    });
    const body = eventBody();
    const ok = await app.request('/webhooks', { method: 'POST', body, headers: deliveryHeaders(body) });
    expect(ok.status).toBe(200);
    expect(onEvent).toHaveBeenCalledOnce();
    const misuse = await app.request('/parsed-first', { method: 'POST', body, headers: deliveryHeaders(body) });
    expect(misuse.status).toBe(400);
    expect(((await misuse.json()) as { error: string }).error).toMatch(/already read.*c\.req\.raw/);
  });
});
