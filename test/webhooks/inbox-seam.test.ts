/**
 * The handlers' one seam, `WebhookInbox.deliver`: an inbox given as `inbox` receives each verified
 * event with its effect, its context reaches `onEvent` and the handlers of `on`, and its result
 * decides the answer. The outcome of every delivery is a value of the core's answer.
 */
import { expressWebhook, type WebhookDeliveryResult, type WebhookEvent, type WebhookInbox, webhookHandler } from 'payments-sdk/webhooks';
import { describe, expect, it, vi } from 'vitest';
import { createWebhookCore } from '../../src/webhooks/handler.js';
import { deliveryHeaders, eventBody, SECRET } from '../helpers/webhook-deliveries.js';

function delivery(body = eventBody()): Request {
  return new Request('http://127.0.0.1/api/webhooks', { method: 'POST', body, headers: deliveryHeaders(body) });
}

/** An inbox that runs the effect with a context, and answers what `decide` says of its outcome. */
function recordingInbox(decide: (ran: unknown) => WebhookDeliveryResult) {
  const events: WebhookEvent[] = [];
  const inbox: WebhookInbox<{ tx: string }> = {
    async deliver(event, effect) {
      events.push(event);
      let ran: unknown;
      try {
        ran = await effect({ tx: `tx-of-${event.id}` });
      } catch (error) {
        ran = error;
      }
      return decide(ran);
    },
  };
  return { inbox, events };
}

describe('the inbox seam', () => {
  it('hands the verified event to inbox.deliver, and the inbox context to onEvent', async () => {
    const { inbox, events } = recordingInbox(() => ({ outcome: 'handled', status: 200 }));
    const onEvent = vi.fn((event: WebhookEvent, { tx }: { tx: string }) => `${event.type} in ${tx}`);
    const response = await webhookHandler({ secret: SECRET, inbox, onEvent })(delivery());
    expect(response.status).toBe(200);
    expect(events.map((e) => e.id)).toEqual(['evt_01JD3Z8Q4X5Y6Z7A8B9C0D1E2F']);
    expect(onEvent).toHaveReturnedWith('payment.succeeded in tx-of-evt_01JD3Z8Q4X5Y6Z7A8B9C0D1E2F');
  });

  it('gives the context to the typed handlers of on as well', async () => {
    const { inbox } = recordingInbox(() => ({ outcome: 'handled', status: 200 }));
    const seen: string[] = [];
    const handle = webhookHandler({
      secret: SECRET,
      inbox,
      on: { 'payment.succeeded': (event, { tx }) => void seen.push(`${event.data.uuid.length > 0} ${tx}`) },
    });
    expect((await handle(delivery())).status).toBe(200);
    expect(seen).toEqual(['true tx-of-evt_01JD3Z8Q4X5Y6Z7A8B9C0D1E2F']);
  });

  it('answers what the inbox decided, and reports its errors and bookkeeping failures to onError', async () => {
    const cases: Array<[WebhookDeliveryResult, number, Record<string, unknown>]> = [
      [{ outcome: 'handled', status: 200 }, 200, { received: true }],
      [{ outcome: 'duplicate', status: 200 }, 200, { received: true, duplicate: true }],
      [{ outcome: 'duplicate', status: 409, error: new Error('in flight') }, 409, { error: 'This event is being handled; retry later.' }],
      [{ outcome: 'failed', status: 500, error: new Error('boom') }, 500, { error: 'The webhook handler failed; the service will retry.' }],
      [{ outcome: 'failed', status: 503, error: new Error('db down') }, 503, { error: 'Deduplication store unavailable; retry later.' }],
    ];
    for (const [result, status, body] of cases) {
      const { inbox } = recordingInbox(() => result);
      const onError = vi.fn();
      const response = await webhookHandler({ secret: SECRET, inbox, onEvent: () => {}, onError })(delivery());
      expect(response.status).toBe(status);
      expect(await response.json()).toEqual(body);
      if (status >= 500) expect(response.status === 503 ? response.headers.get('retry-after') : '60').toBe('60');
      expect(onError.mock.calls.map(([error, info]) => [(error as Error).message, info.status])).toEqual(
        result.error ? [[(result.error as Error).message, status]] : [],
      );
    }
    const { inbox } = recordingInbox(() => ({ outcome: 'handled', status: 200, bookkeepingError: new Error('not recorded') }));
    const onError = vi.fn();
    expect((await webhookHandler({ secret: SECRET, inbox, onEvent: () => {}, onError })(delivery())).status).toBe(200);
    expect(onError).toHaveBeenCalledWith(new Error('not recorded'), expect.objectContaining({ status: 200 }));
  });

  it('the core answers with the outcome of every delivery: handled, duplicate, refused, failed', async () => {
    const results: WebhookDeliveryResult[] = [
      { outcome: 'handled', status: 200 },
      { outcome: 'duplicate', status: 200 },
      { outcome: 'failed', status: 503 },
    ];
    const inbox: WebhookInbox<undefined> = { deliver: async () => results.shift() ?? { outcome: 'failed', status: 500 } };
    const core = createWebhookCore({ secret: SECRET, inbox, onEvent: () => {}, onError: () => {} }, 'test');
    const body = eventBody();
    const bytes = new TextEncoder().encode(body);
    const outcomes = [];
    for (let i = 0; i < 3; i++) outcomes.push((await core.handle('POST', bytes, deliveryHeaders(body))).outcome);
    outcomes.push((await core.handle('POST', bytes, { 'x-service-signature': 'ab' })).outcome);
    outcomes.push((await core.handle('GET', new Uint8Array(), {})).outcome);
    outcomes.push((await core.handle('POST', { status: 413 }, {})).outcome);
    expect(outcomes).toEqual(['handled', 'duplicate', 'failed', 'refused', 'refused', 'refused']);
    // The dedupe path reports its outcomes the same way.
    const dedupeCore = createWebhookCore({ secret: SECRET, onEvent: () => {}, onError: () => {} }, 'test');
    expect((await dedupeCore.handle('POST', bytes, deliveryHeaders(body))).outcome).toBe('handled');
    expect((await dedupeCore.handle('POST', bytes, deliveryHeaders(body))).outcome).toBe('duplicate');
  });

  it('refuses inbox together with dedupe or dedupeTimeoutMs, and an inbox without deliver', () => {
    const { inbox } = recordingInbox(() => ({ outcome: 'handled', status: 200 }));
    const both = { secret: SECRET, inbox, dedupe: false, onEvent: () => {} } as unknown as Parameters<typeof webhookHandler>[0];
    expect(() => webhookHandler(both)).toThrow(/give inbox or dedupe/);
    const timeout = { secret: SECRET, inbox, dedupeTimeoutMs: 10, onEvent: () => {} } as unknown as Parameters<typeof expressWebhook>[0];
    expect(() => expressWebhook(timeout)).toThrow(/give inbox or dedupe/);
    expect(() => webhookHandler({ secret: SECRET, inbox: {} as WebhookInbox, onEvent: () => {} })).toThrow(/inbox must be a WebhookInbox/);
  });

  it('types onEvent with { tx } exactly when an inbox is given, and refuses dedupe beside it', () => {
    const inbox = {} as WebhookInbox;
    // Compile-time checks only: these handlers are never called.
    const typed = () => {
      webhookHandler({ secret: SECRET, inbox, onEvent: (_event, { tx }) => tx.query('SELECT 1', []) });
      expressWebhook({
        secret: SECRET,
        inbox,
        onEvent: async (_event, { tx }) => (await tx.query<{ n: number }>('SELECT $1::int AS n', [1])).rows[0]?.n,
      });
      // @ts-expect-error without an inbox there is no transaction
      webhookHandler({ secret: SECRET, onEvent: (_event, { tx }) => tx });
      // @ts-expect-error an inbox and a dedupe store together are refused
      webhookHandler({ secret: SECRET, inbox, dedupe: false, onEvent: () => {} });
    };
    expect(typeof typed).toBe('function');
  });
});
