/** Set-up of the testing-kit tests: a mock, a client on `mock.fetch`, raw requests, signature checks. */
import { PaymentsClient } from 'payments-sdk';
import { createMockService, type MockService, type MockServiceOptions, type WebhookDelivery } from 'payments-sdk/testing';
import { expect } from 'vitest';
import { signWebhookPayload } from '../../src/webhooks/sign.js';

/** A mock and a client wired to it (sandbox key; no retries, so a status shows as is). */
export function setup(options?: MockServiceOptions) {
  const mock = createMockService(options);
  return { mock, client: clientFor(mock), live: clientFor(mock, mock.liveApiKey) };
}

/** A client on `mock.fetch` with the given key (default the sandbox key). */
export function clientFor(mock: MockService, apiKey: string | undefined = mock.apiKey, maxRetries = 0): PaymentsClient {
  return new PaymentsClient({ apiKey, baseUrl: mock.baseUrl, fetch: mock.fetch, maxRetries, retryBackoff: { initialMs: 1 } });
}

// Parsed JSON bodies, events and errors are asserted field by field in the tests: `any` keeps that terse.
// biome-ignore lint/suspicious/noExplicitAny: see above.
type Json = any;

/** A raw request to the mock, bypassing the SDK's own checks: what a merchant's hand-written code would send. */
export async function raw(
  mock: MockService,
  method: string,
  path: string,
  options: { body?: unknown; key?: string | null; headers?: Record<string, string> } = {},
): Promise<{ status: number; body: Json; headers: Headers }> {
  const headers: Record<string, string> = { 'Content-Type': 'application/json', ...options.headers };
  const key = options.key === undefined ? mock.apiKey : options.key;
  if (key !== null) headers.Authorization = `Bearer ${key}`;
  const body = options.body === undefined ? undefined : typeof options.body === 'string' ? options.body : JSON.stringify(options.body);
  const response = await mock.fetch(`${mock.baseUrl}/api/v1${path}`, { method, headers, body });
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : undefined, headers: response.headers };
}

/** Checks a delivery the way the service signs (docs/service.md "Webhooks"): recomputed HMAC of the raw body with the whole secret. */
export async function expectSigned(delivery: WebhookDelivery<unknown>, secret: string, type: string): Promise<Json> {
  expect(delivery.headers['X-Service-Signature']).toBe(await signWebhookPayload(delivery.body, secret));
  expect(delivery.headers['X-Service-Signature']).toMatch(/^[0-9a-f]{64}$/);
  expect(delivery.headers['X-Service-Event']).toBe(type);
  expect(delivery.headers['Content-Type']).toBe('application/json');
  const parsed = JSON.parse(delivery.body);
  expect(Object.keys(parsed).sort()).toEqual(['data', 'id', 'type']);
  expect(parsed.type).toBe(type);
  expect(parsed).toEqual(delivery.event);
  return parsed;
}
