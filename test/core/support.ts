/**
 * Shared bits of the HTTP-core tests (test/core). msw answers at this loopback origin; nothing
 * listens there. (Port 9 of test/helpers/fixtures.ts is a fetch "bad port" and fails in undici.)
 */
import { type ClientOptions, PaymentsClient } from 'payments-sdk';
import { API_KEY } from '../helpers/fixtures.js';

export const ORIGIN = 'http://127.0.0.1:4010';
export const API_URL = `${ORIGIN}/api/v1`;

/** A client aimed at {@link ORIGIN}, with 1 ms backoff so retry tests stay fast. */
export function makeClient(options: ClientOptions = {}): PaymentsClient {
  return new PaymentsClient({ apiKey: API_KEY, baseUrl: ORIGIN, retryBackoff: { initialMs: 1, maxMs: 4 }, ...options });
}

/** Valid `payments.create` params (service-api.md §4.1). */
export const chargeParams = { amount: 5000, currency: 'XOF', country: 'SEN', provider: 'orange', phone: '221771234567' };

/** Valid `checkoutSessions.create` params (service-api.md §4.4). */
export const sessionParams = { amount: 5000, currency: 'XOF', description: 'Order #1042' };

/** Runs `fn` and returns what it threw (fails the test when it does not throw). */
export async function caught(fn: () => unknown): Promise<unknown> {
  try {
    await fn();
  } catch (error) {
    return error;
  }
  throw new Error('expected a rejection, but the call succeeded');
}

/** Restores `process.env` entries after a test that sets them. */
export function withEnv(vars: Record<string, string | undefined>): () => void {
  const saved: Record<string, string | undefined> = {};
  for (const [key, value] of Object.entries(vars)) {
    saved[key] = process.env[key];
    if (value === undefined) delete process.env[key];
    else process.env[key] = value;
  }
  return () => {
    for (const [key, value] of Object.entries(saved)) {
      if (value === undefined) delete process.env[key];
      else process.env[key] = value;
    }
  };
}
