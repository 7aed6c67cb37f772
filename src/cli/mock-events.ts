/**
 * `POST /_mock/events` on a running `payments-sdk mock`: makes the object of an event in the mock
 * (a direct charge or a payout, moved to the state the event announces) and answers its signed
 * delivery, `{ headers, body }`, without posting it anywhere. `payments-sdk trigger --base-url`
 * sends it on, so that the merchant's endpoint can read the payment back from the mock.
 * Authenticated with either of the mock's keys, like its API.
 */
import type { MockService } from '../testing/mock-service.js';
import { makeEvent, TRIGGER_EVENTS } from './trigger-events.js';

/** The path of the event maker, beside the mock's `/api/v1`. */
export const MOCK_EVENTS_PATH = '/_mock/events';

/** Answers `POST /_mock/events`; `undefined` for any other request (the mock's API answers those). */
export async function answerMockEvent(mock: MockService, request: Request): Promise<Response | undefined> {
  if (new URL(request.url).pathname !== MOCK_EVENTS_PATH) return undefined;
  if (request.method.toUpperCase() !== 'POST') return Response.json({ message: 'Use POST.' }, { status: 405, headers: { Allow: 'POST' } });
  const key = /^Bearer (.+)$/.exec(request.headers.get('authorization') ?? '')?.[1];
  if (!key || (key !== mock.apiKey && key !== mock.liveApiKey)) {
    return Response.json({ message: 'Unauthenticated: use one of the keys this mock printed.' }, { status: 401 });
  }
  let type: unknown;
  try {
    type = ((await request.json()) as { type?: unknown }).type;
  } catch {
    type = undefined;
  }
  if (typeof type !== 'string' || !TRIGGER_EVENTS.includes(type)) {
    return Response.json({ message: `type must be one of ${TRIGGER_EVENTS.join(', ')}.` }, { status: 422 });
  }
  try {
    const delivery = await makeEvent(mock, type);
    return Response.json({ headers: delivery.headers, body: delivery.body }, { status: 201 });
  } catch (error) {
    // A payout refused by the seeded balance, say: the reason goes back to `trigger`.
    return Response.json({ message: error instanceof Error ? error.message : String(error) }, { status: 422 });
  }
}
