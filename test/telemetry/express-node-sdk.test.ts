/**
 * A merchant's Express app under `@opentelemetry/sdk-node` with the HTTP and Express
 * instrumentations: the SDK's spans (the call, its HTTP attempt, a webhook delivery) sit in the
 * trace of the incoming request, under its SERVER span. The app and `node:http` are required after
 * the SDK started, as a merchant's `--require ./tracing.js` set-up does.
 */
import { createRequire } from 'node:module';
import { SpanKind } from '@opentelemetry/api';
import { ExpressInstrumentation } from '@opentelemetry/instrumentation-express';
import { HttpInstrumentation } from '@opentelemetry/instrumentation-http';
import { NodeSDK } from '@opentelemetry/sdk-node';
import { InMemorySpanExporter, type ReadableSpan, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import type * as Express from 'express';
import { PaymentsClient } from 'payments-sdk';
import { openTelemetry } from 'payments-sdk/opentelemetry';
import { expressWebhook, signWebhookPayload } from 'payments-sdk/webhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API_KEY, chargeParams, payment } from '../helpers/fixtures.js';
import { answerCreation, startServer, type TestServer } from '../network/server.js';

const SECRET = 'whsec_express_node_sdk';
const exporter = new InMemorySpanExporter();
// Nothing leaves the machine: no default OTLP exporter, no resource detection.
for (const signal of ['TRACES', 'METRICS', 'LOGS']) process.env[`OTEL_${signal}_EXPORTER`] = 'none';
const sdk = new NodeSDK({
  resourceDetectors: [],
  spanProcessors: [new SimpleSpanProcessor(exporter)],
  instrumentations: [new HttpInstrumentation(), new ExpressInstrumentation()],
});
let service: TestServer;
let app: { url: string; close: () => Promise<void> };

beforeAll(async () => {
  sdk.start();
  const require = createRequire(import.meta.url);
  const http = require('node:http') as typeof import('node:http');
  const express = require('express') as typeof Express.default;
  service = await startServer((x) => answerCreation(x));
  // openTelemetry() with no argument: the global providers NodeSDK registered.
  const client = new PaymentsClient({ apiKey: API_KEY, baseUrl: service.origin, telemetry: openTelemetry() });
  const merchant = express();
  merchant.post('/checkout', async (_req, res) => {
    const charge = await client.payments.create(chargeParams);
    res.json({ uuid: charge.uuid });
  });
  merchant.post('/webhooks', expressWebhook({ secret: SECRET, telemetry: openTelemetry(), onEvent: () => {} }));
  const server = http.createServer(merchant);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as import('node:net').AddressInfo;
  app = {
    url: `http://127.0.0.1:${port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
});
afterAll(async () => {
  await app?.close();
  await service?.close();
  await sdk.shutdown();
});

/** The span's chain of ancestors among the exported spans, nearest first. */
function ancestors(span: ReadableSpan, spans: ReadableSpan[]): ReadableSpan[] {
  const chain: ReadableSpan[] = [];
  let parentId = span.parentSpanContext?.spanId;
  while (parentId) {
    const parent = spans.find((s) => s.spanContext().spanId === parentId);
    if (!parent) break;
    chain.push(parent);
    parentId = parent.parentSpanContext?.spanId;
  }
  return chain;
}

/** The incoming request's SERVER span for `path` on the merchant's app. */
function incoming(spans: ReadableSpan[], path: string): ReadableSpan {
  const found = spans.find((s) => s.kind === SpanKind.SERVER && s.attributes['url.path'] === path);
  if (!found) throw new Error(`no SERVER span for ${path}: ${spans.map((s) => `${s.name} ${JSON.stringify(s.attributes['url.path'])}`)}`);
  return found;
}

describe('under @opentelemetry/sdk-node', () => {
  it("payments.create and its attempt sit under the incoming request's span", async () => {
    exporter.reset();
    const answer = await fetch(`${app.url}/checkout`, { method: 'POST' });
    expect(answer.status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 50));
    const spans = exporter.getFinishedSpans();
    const request = incoming(spans, '/checkout');
    const call = spans.find((s) => s.name === 'payments.create') as ReadableSpan;
    const attempt = spans.find((s) => s.name === 'POST /api/v1/payments') as ReadableSpan;
    expect(call.spanContext().traceId).toBe(request.spanContext().traceId);
    expect(ancestors(call, spans)).toContain(request);
    expect(attempt.parentSpanContext?.spanId).toBe(call.spanContext().spanId);
    expect(attempt.kind).toBe(SpanKind.CLIENT);
    // No traceparent went to the service: its SERVER span (instrumented too, in this process) starts a trace of its own.
    expect(service.requests.at(-1)?.headers.traceparent).toBeUndefined();
  });

  it("a webhook delivery's span sits under the incoming request's span", async () => {
    exporter.reset();
    const body = JSON.stringify({ id: 'evt_sdk_node', type: 'payment.succeeded', data: payment({ status: 'succeeded' }) });
    const answer = await fetch(`${app.url}/webhooks`, {
      method: 'POST',
      body,
      headers: { 'content-type': 'application/json', 'x-service-signature': await signWebhookPayload(body, SECRET) },
    });
    expect(answer.status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 50));
    const spans = exporter.getFinishedSpans();
    const delivery = spans.find((s) => s.name === 'payments.webhook') as ReadableSpan;
    expect(delivery.attributes['payments.webhook.outcome']).toBe('handled');
    expect(ancestors(delivery, spans)).toContain(incoming(spans, '/webhooks'));
  });
});
