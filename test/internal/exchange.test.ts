import { describe, expect, it } from 'vitest';
import { exchange, receivedBody } from '../../src/internal/exchange.js';

// The parsed body travels from the exchange to the transport beside the Response, in a WeakMap. A
// Response the merchant keeps (`withResponse()`, each page of a walk) must not keep that body alive
// with it: the transport takes it out once, and nothing is left behind.
describe('exchange: the parsed body is handed over once', () => {
  it('receivedBody gives the body, then nothing: a kept Response does not hold its parsed body', async () => {
    const text = JSON.stringify({ data: [{ uuid: 'p1' }, { uuid: 'p2' }] });
    const send = exchange({
      fetch: async () => new Response(text, { status: 200, headers: { 'content-type': 'application/json' } }),
      secrets: ['sk_test_secret_key'],
      maxResponseBytes: 1_000_000,
    });
    const response = await send('http://127.0.0.1:1/api/v1/payments');
    expect(receivedBody(response)).toEqual({ data: [{ uuid: 'p1' }, { uuid: 'p2' }] });
    expect(receivedBody(response)).toBeUndefined();
  });
});
