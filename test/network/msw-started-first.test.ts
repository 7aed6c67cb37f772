/**
 * A merchant's test setup that starts msw BEFORE the SDK is loaded (a Vitest `setupFiles`, a Jest
 * setup file importing their handlers): the SDK sends through msw's `fetch`, and msw answers.
 */
import { HttpResponse, http } from 'msw';
import { setupServer } from 'msw/node';
import { afterAll, expect, it, vi } from 'vitest';
import { API_KEY, payment } from '../helpers/fixtures.js';

const seen: { url: string; authorization: string | null }[] = [];
const server = setupServer(
  http.get('http://127.0.0.1:4020/api/v1/payments/:uuid', ({ request }) => {
    seen.push({
      url: request.url,
      authorization: request.headers.get('authorization'),
    });
    return HttpResponse.json({ data: payment() });
  }),
);
// Started at module evaluation, before the SDK is imported below.
server.listen({ onUnhandledFrame: 'error' });
// A spy over msw's fetch: the call went through fetch, not around it.
const viaFetch = vi.spyOn(globalThis, 'fetch');
afterAll(() => {
  viaFetch.mockRestore();
  server.close();
});

it('a client loaded after msw started is answered by msw, the key sent', async () => {
  const { PaymentsClient } = await import('payments-sdk');
  // Nothing listens on 127.0.0.1:4020: were msw to miss the request, it would fail, not reach a service.
  const client = new PaymentsClient({ apiKey: API_KEY, baseUrl: 'http://127.0.0.1:4020', maxRetries: 0 });
  await expect(client.payments.retrieve('p-1')).resolves.toEqual(payment());
  expect(viaFetch).toHaveBeenCalledTimes(1);
  expect(seen).toEqual([{ url: 'http://127.0.0.1:4020/api/v1/payments/p-1', authorization: `Bearer ${API_KEY}` }]);
});
