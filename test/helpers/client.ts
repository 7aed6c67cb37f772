/** A client for the msw-backed tests. */
import { type ClientOptions, PaymentsClient } from 'payments-sdk';
import { API_KEY, ORIGIN } from './fixtures.js';

/** A client aimed at {@link ORIGIN}, with 1 ms backoff so retry tests stay fast. */
export function makeClient(options: ClientOptions = {}): PaymentsClient {
  return new PaymentsClient({ apiKey: API_KEY, baseUrl: ORIGIN, retryBackoff: { initialMs: 1, maxMs: 4 }, ...options });
}
