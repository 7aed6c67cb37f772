/**
 * A fetch replaced BEFORE the SDK is loaded (vitest-fetch-mock's `enableMocks()` or a
 * `vi.stubGlobal('fetch', …)` in a setup file): the SDK must send through it, or a merchant's test
 * would reach the real service with their key.
 */
import { afterAll, expect, it, vi } from 'vitest';
import { API_KEY, payment } from '../helpers/fixtures.js';

const stub = vi.fn(async (_input: RequestInfo | URL, _init?: RequestInit) => Response.json({ data: payment() }));
// Installed at module evaluation, before the SDK is imported below.
vi.stubGlobal('fetch', stub);
afterAll(() => vi.unstubAllGlobals());

it('the stub answers every call, with the key and the URL the client built', async () => {
  const { PaymentsClient } = await import('payments-sdk');
  // Nothing listens on 127.0.0.1:4020: a request going around the stub would fail.
  const client = new PaymentsClient({ apiKey: API_KEY, baseUrl: 'http://127.0.0.1:4020', maxRetries: 0 });
  await expect(client.payments.retrieve('p-1')).resolves.toEqual(payment());
  expect(stub).toHaveBeenCalledTimes(1);
  const [input, init] = stub.mock.calls[0] ?? [];
  const request = new Request(input ?? '', init);
  expect(request.url).toBe('http://127.0.0.1:4020/api/v1/payments/p-1');
  expect(request.headers.get('authorization')).toBe(`Bearer ${API_KEY}`);
});
