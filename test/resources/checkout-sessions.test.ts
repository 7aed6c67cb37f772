/**
 * checkoutSessions.create / retrieve / list / findPayment on the wire (README "Checkout
 * sessions"; docs/service.md "Money and records", "Endpoints").
 */
import { HttpResponse, http } from 'msw';
import { IdempotencyConflictError, InvalidParamsError, NotFoundError, UnprocessableEntityError } from 'payments-sdk';
import { describe, expect, it } from 'vitest';
import { caught } from '../helpers/caught.js';
import { makeClient } from '../helpers/client.js';
import { API_URL, checkoutSession, envelope, ORIGIN, payment, sessionParams } from '../helpers/fixtures.js';
import { useMswServer } from '../helpers/msw.js';
import { jsonOf, queryOf, useRequestLog } from '../helpers/request-log.js';

const server = useMswServer();
const log = useRequestLog(server);
const SESSION_NOT_FOUND = 'Session de paiement introuvable.';

describe('checkoutSessions.create', () => {
  it('POSTs the params to /api/v1/checkout-sessions with an idempotency key and unwraps the session', async () => {
    const answer = checkoutSession();
    server.use(http.post(`${API_URL}/checkout-sessions`, () => HttpResponse.json({ data: answer }, { status: 201 })));
    const params = {
      ...sessionParams,
      payer_name: 'Awa Diop',
      payer_email: 'awa@example.sn',
      payer_phone: '+221 77 123 45 67',
      success_url: 'https://shop.example/success',
      cancel_url: 'http://localhost:3000/cancel',
      metadata: { order_id: '1042', items: [1, 2] },
    };
    const session = await makeClient().checkoutSessions.create(params);
    expect(session).toEqual(answer);
    expect(session.checkout_url).toBe(answer.checkout_url);
    expect(log).toHaveLength(1);
    expect(log[0]?.method).toBe('POST');
    expect(log[0]?.url.href).toBe(`${API_URL}/checkout-sessions`);
    expect(await jsonOf(log[0])).toEqual(params);
    expect(log[0]?.headers.get('idempotency-key')).toBeTruthy();
    expect(log[0]?.headers.get('content-type')).toMatch(/^application\/json/);
  });

  it('200 on a creation is an idempotent replay: withResponse().replayed is true', async () => {
    server.use(http.post(`${API_URL}/checkout-sessions`, () => HttpResponse.json({ data: checkoutSession() }, { status: 200 })));
    const { replayed, idempotencyKey } = await makeClient()
      .checkoutSessions.create(sessionParams, { idempotencyKey: 'order-1042' })
      .withResponse();
    expect(replayed).toBe(true);
    expect(idempotencyKey).toBe('order-1042');
  });

  it('422 → UnprocessableEntityError carrying the errors member', async () => {
    const body = {
      message: 'Les données fournies sont invalides.',
      errors: { payer_email: ['Le champ payer email doit être une adresse e-mail valide.'] },
    };
    server.use(http.post(`${API_URL}/checkout-sessions`, () => HttpResponse.json(body, { status: 422 })));
    const error = await caught(() => makeClient().checkoutSessions.create(sessionParams));
    expect(error).toBeInstanceOf(UnprocessableEntityError);
    expect((error as UnprocessableEntityError).errors).toEqual(body.errors);
    expect((error as UnprocessableEntityError).message).toBe(body.message);
    expect((error as UnprocessableEntityError).idempotencyKey).toBe(log[0]?.headers.get('idempotency-key'));
  });

  it('409 → IdempotencyConflictError', async () => {
    server.use(http.post(`${API_URL}/checkout-sessions`, () => HttpResponse.json({ message: 'conflict' }, { status: 409 })));
    expect(await caught(() => makeClient().checkoutSessions.create(sessionParams))).toBeInstanceOf(IdempotencyConflictError);
    expect(log).toHaveLength(1);
  });
});

describe('checkoutSessions.retrieve', () => {
  it('GETs /api/v1/checkout-sessions/{reference} and unwraps the session', async () => {
    const answer = checkoutSession({ status: 'completed' });
    server.use(http.get(`${API_URL}/checkout-sessions/:reference`, () => HttpResponse.json({ data: answer })));
    expect(await makeClient().checkoutSessions.retrieve(answer.reference)).toEqual(answer);
    expect(log[0]?.method).toBe('GET');
    expect(log[0]?.url.href).toBe(`${API_URL}/checkout-sessions/${answer.reference}`);
  });

  it('URL-encodes the reference', async () => {
    server.use(http.get(`${API_URL}/checkout-sessions/*`, () => HttpResponse.json({ data: checkoutSession() })));
    await makeClient().checkoutSessions.retrieve('../payouts?x=1');
    expect(log[0]?.url.pathname).toBe('/api/v1/checkout-sessions/..%2Fpayouts%3Fx%3D1');
    expect(log[0]?.url.search).toBe('');
  });

  it('404 → NotFoundError whose message is the service French sentence (§7)', async () => {
    server.use(
      http.get(`${API_URL}/checkout-sessions/:reference`, () => HttpResponse.json({ message: SESSION_NOT_FOUND }, { status: 404 })),
    );
    const error = await caught(() => makeClient().checkoutSessions.retrieve('01JUNKNOWN'));
    expect(error).toBeInstanceOf(NotFoundError);
    expect((error as NotFoundError).message).toBe(SESSION_NOT_FOUND);
    expect((error as NotFoundError).body).toEqual({ message: SESSION_NOT_FOUND });
  });
});

describe('checkoutSessions.list', () => {
  it('GETs /api/v1/checkout-sessions with status "cancelled" (two l) and dates', async () => {
    const items = [checkoutSession({ status: 'cancelled' })];
    server.use(
      http.get(`${API_URL}/checkout-sessions`, () =>
        HttpResponse.json(envelope(items, { origin: ORIGIN, path: '/api/v1/checkout-sessions' })),
      ),
    );
    const page = await makeClient().checkoutSessions.list({ status: 'cancelled', from: new Date(Date.UTC(2026, 10, 1)), per_page: 10 });
    expect(page.data).toEqual(items);
    expect(log[0]?.url.pathname).toBe('/api/v1/checkout-sessions');
    expect(queryOf(log[0])).toEqual({ status: 'cancelled', from: '2026-11-01', per_page: '10' });
  });
});

describe('checkoutSessions.findPayment', () => {
  const reference = '01JD3Z8Q4X5Y6Z7A8B9C0D1E2F';

  it('reads the session, then walks GET /api/v1/payments from the day before its creation, and returns the matching payment', async () => {
    const match = payment({ uuid: 'p-match', checkout_session: reference, status: 'succeeded' });
    server.use(
      http.get(`${API_URL}/checkout-sessions/:reference`, () =>
        HttpResponse.json({ data: checkoutSession({ reference, created_at: '2026-11-20T00:30:00+02:00' }) }),
      ),
      http.get(`${API_URL}/payments`, ({ request }) => {
        const page = Number(new URL(request.url).searchParams.get('page') ?? '1');
        const data =
          page === 1
            ? [payment({ uuid: 'p-other', checkout_session: '01JOTHER' }), payment({ uuid: 'p-direct' })]
            : [payment({ uuid: 'p-x', checkout_session: '01JX' }), match, payment({ uuid: 'p-after', checkout_session: reference })];
        return HttpResponse.json(envelope(data, { origin: ORIGIN, page, lastPage: 3, perPage: 100 }));
      }),
    );

    const found = await makeClient().checkoutSessions.findPayment(reference);

    expect(found).toEqual(match);
    expect(log.map((r) => `${r.method} ${r.url.pathname}`)).toEqual([
      `GET /api/v1/checkout-sessions/${reference}`,
      'GET /api/v1/payments',
      'GET /api/v1/payments',
    ]);
    // 2026-11-20T00:30+02:00 is 2026-11-19 in UTC; one day of margin (the service may read `from`
    // in its own time zone) gives 2026-11-18. Both bounds are inclusive (§4.2).
    expect(queryOf(log[1])).toEqual({ from: '2026-11-18', per_page: '100' });
    // The fixture's links carry only ?page=N (Laravel without withQueryString()): the filters go on.
    // Page 3 was never asked for: the walk stops at the match.
    expect(queryOf(log[2])).toEqual({ page: '2', from: '2026-11-18', per_page: '100' });
  });

  it('returns null when no payment names the session, after the last page', async () => {
    server.use(
      http.get(`${API_URL}/checkout-sessions/:reference`, () => HttpResponse.json({ data: checkoutSession({ reference }) })),
      http.get(`${API_URL}/payments`, ({ request }) => {
        const page = Number(new URL(request.url).searchParams.get('page') ?? '1');
        return HttpResponse.json(envelope([payment({ checkout_session: '01JOTHER' })], { origin: ORIGIN, page, lastPage: 2 }));
      }),
    );
    expect(await makeClient().checkoutSessions.findPayment(reference)).toBeNull();
    expect(log).toHaveLength(3);
  });

  it('a created_at it cannot read: the walk runs without a from filter (slower, still right)', async () => {
    server.use(
      http.get(`${API_URL}/checkout-sessions/:reference`, () =>
        HttpResponse.json({ data: checkoutSession({ reference, created_at: 'sometime' }) }),
      ),
      http.get(`${API_URL}/payments`, () => HttpResponse.json(envelope([payment({ checkout_session: reference })], { origin: ORIGIN }))),
    );
    expect((await makeClient().checkoutSessions.findPayment(reference))?.checkout_session).toBe(reference);
    expect(queryOf(log[1])).toEqual({ per_page: '100' });
  });

  it('a 404 session → NotFoundError, and no payment list is read', async () => {
    server.use(
      http.get(`${API_URL}/checkout-sessions/:reference`, () => HttpResponse.json({ message: SESSION_NOT_FOUND }, { status: 404 })),
    );
    expect(await caught(() => makeClient().checkoutSessions.findPayment(reference))).toBeInstanceOf(NotFoundError);
    expect(log).toHaveLength(1);
  });

  it('an empty reference → InvalidParamsError, nothing sent', async () => {
    expect(await caught(() => makeClient().checkoutSessions.findPayment(''))).toBeInstanceOf(InvalidParamsError);
    expect(log).toHaveLength(0);
  });
});
