/**
 * A merchant's test setup that starts msw BEFORE the SDK is loaded (a Vitest `setupFiles`, a Jest
 * `setupFilesAfterEach` importing their handlers): the global `fetch` the SDK finds at load is then
 * msw's, so on Node the client takes its node:http exchange, and msw must still answer it. msw/node
 * intercepts `http.request` as well as `fetch`; this holds the SDK to that.
 */
import { HttpResponse, http } from 'msw';
import { setupServer } from 'msw/node';
import { afterAll, expect, it } from 'vitest';
import { API_KEY, payment } from '../helpers/fixtures.js';

const seen: { url: string; authorization: string | null; acceptEncoding: string | null }[] = [];
const server = setupServer(
  http.get('http://127.0.0.1:9/api/v1/payments/:uuid', ({ request }) => {
    seen.push({
      url: request.url,
      authorization: request.headers.get('authorization'),
      // Set by the node:http exchange itself; fetch adds it below what msw sees, so here it tells them apart.
      acceptEncoding: request.headers.get('accept-encoding'),
    });
    return HttpResponse.json({ data: payment() });
  }),
);
// Started at module evaluation, before the SDK is imported below.
server.listen({ onUnhandledFrame: 'error' });
afterAll(() => server.close());

it('a client built after msw started is answered by msw over node:http, the key sent', async () => {
  const { PaymentsClient } = await import('payments-sdk');
  // Port 9 (discard) on loopback: were msw to miss the request, it would fail, not reach a service.
  const client = new PaymentsClient({ apiKey: API_KEY, baseUrl: 'http://127.0.0.1:9', maxRetries: 0 });
  await expect(client.payments.retrieve('p-1')).resolves.toEqual(payment());
  expect(seen).toEqual([
    { url: 'http://127.0.0.1:9/api/v1/payments/p-1', authorization: `Bearer ${API_KEY}`, acceptEncoding: 'gzip, deflate' },
  ]);
});
