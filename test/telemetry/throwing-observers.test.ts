/**
 * A tracer, a meter or a telemetry hook that throws never changes a call's outcome or its error,
 * nor a webhook delivery's answer: against a real loopback server and a handler served on a real
 * port, with `openTelemetry()` on providers that fail, and with hand-written hooks that fail at every
 * point (before, inside and after the work they wrap).
 */
import { randomUUID } from 'node:crypto';
import type { Meter, MeterProvider, Tracer, TracerProvider } from '@opentelemetry/api';
import { PaymentsClient } from 'payments-sdk';
import { openTelemetry, type Telemetry } from 'payments-sdk/opentelemetry';
import { signWebhookPayload, webhookHandler } from 'payments-sdk/webhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer as serve } from '../../src/testing/node-server.js';
import { API_KEY, chargeParams, envelope, payment } from '../helpers/fixtures.js';
import { expectOutcomesUnchanged } from '../helpers/outcomes.js';
import { answerCreation, startServer, type TestServer } from '../network/server.js';

const SECRET = 'whsec_throwing_observers';
const boom = () => {
  throw new Error('exporter down');
};
/** Providers whose every tracer and meter throws on use. */
const failingTracerProvider = { getTracer: () => ({ startSpan: boom, startActiveSpan: boom }) as unknown as Tracer } as TracerProvider;
const failingMeterProvider = {
  getMeter: () => ({ createHistogram: boom, createCounter: boom }) as unknown as Meter,
} as unknown as MeterProvider;
/** A provider whose spans work but whose instruments throw when recording. */
const recordingFails = {
  getMeter: () => ({ createHistogram: () => ({ record: boom }), createCounter: () => ({ add: boom }) }) as unknown as Meter,
} as unknown as MeterProvider;

/** Hooks that throw at each place the SDK calls them. */
const throwingEverywhere: Telemetry = {
  onCall: () => ({ onAttempt: () => ({ end: boom }), end: boom }),
  onWebhook: () => ({ run: boom, end: boom }),
  onBulk: () => ({
    // Throws after the work ran: the work's result must stand.
    run: (work) => {
      work();
      return boom();
    },
    onRow: boom,
    end: boom,
  }),
  onReconcile: boom,
};
const throwingAtStart: Telemetry = { onCall: boom, onWebhook: boom };

let server: TestServer;
beforeAll(async () => {
  server = await startServer((x) => {
    if (x.req.url === '/api/v1/checkout-sessions')
      return server.json(x.res, 422, { message: 'Montant invalide.', errors: { amount: ['x'] } });
    if (x.req.method === 'POST') return answerCreation(x);
    if (x.req.url?.startsWith('/api/v1/payments')) return server.json(x.res, 200, envelope([], { origin: server.origin }));
    server.json(x.res, 200, { data: [] });
  });
});
afterAll(() => server.close());

const cases: [string, Telemetry][] = [
  ['a tracer provider that throws', openTelemetry({ tracerProvider: failingTracerProvider })],
  ['a meter provider that throws', openTelemetry({ meterProvider: failingMeterProvider })],
  ['instruments that throw when recording', openTelemetry({ meterProvider: recordingFails })],
  ['hooks whose handles throw', throwingEverywhere],
  ['hooks that throw at once', throwingAtStart],
];

describe('the client with telemetry that throws', () => {
  it.each(cases)('%s: a created charge is returned, a refusal keeps its class and Idempotency-Key', async (_, telemetry) => {
    const client = new PaymentsClient({ apiKey: API_KEY, baseUrl: server.origin, telemetry, maxRetries: 0 });
    await expectOutcomesUnchanged(client, chargeParams, 'order-7');
    expect(await client.wallets.list()).toEqual([]);
    const findings = [];
    for await (const finding of client.payments.reconcile({ from: '2026-06-01', isHandled: () => true })) findings.push(finding);
    expect(findings).toEqual([]);
  });
});

describe('a webhook handler with telemetry that throws', () => {
  it.each(cases)('%s: deliveries are answered as without it, the handler run once each', async (label, telemetry) => {
    const handled: string[] = [];
    // Event ids of their own per case: the handlers of one secret share their memory of handled ids.
    const id = (name: string) => `${name}_${label.replaceAll(' ', '_')}`;
    const endpoint = await serve(
      webhookHandler({
        secret: SECRET,
        telemetry,
        onError: () => {},
        onEvent: (event) => {
          handled.push(event.id);
          if (event.id === id('evt_fail')) throw new Error('database down');
        },
      }),
    );
    try {
      const deliver = async (eventId: string, secret = SECRET) => {
        const body = JSON.stringify({ id: eventId, type: 'payment.succeeded', data: payment({ status: 'succeeded', uuid: randomUUID() }) });
        const signature = await signWebhookPayload(body, secret);
        const answer = await fetch(endpoint.url, { method: 'POST', body, headers: { 'x-service-signature': signature } });
        return answer.status;
      };
      expect([
        await deliver(id('evt_ok')),
        await deliver(id('evt_ok')),
        await deliver(id('evt_bad'), 'whsec_other'),
        await deliver(id('evt_fail')),
      ]).toEqual([200, 200, 400, 500]);
      expect(handled).toEqual([id('evt_ok'), id('evt_fail')]);
    } finally {
      await endpoint.close();
    }
  });
});
