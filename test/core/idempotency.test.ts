/**
 * Idempotency-Key on the four creations (README "Idempotency and retries"; docs/service.md "Idempotency"):
 * the caller's key or a fresh UUID v4, the same on every retry, carried by every error of a
 * creation; and `.withResponse()` → `{ data, response, idempotencyKey, replayed }`.
 */
import { delay, HttpResponse, http } from 'msw';
import {
  APIConnectionError,
  APIError,
  APITimeoutError,
  APIUserAbortError,
  AuthenticationError,
  BadRequestError,
  IdempotencyConflictError,
  InternalServerError,
  InvalidParamsError,
  NotFoundError,
  type PaymentsError,
  PermissionDeniedError,
  RateLimitError,
  ResponseValidationError,
  UnprocessableEntityError,
} from 'payments-sdk';
import { describe, expect, it } from 'vitest';
import { caught } from '../helpers/caught.js';
import { makeClient } from '../helpers/client.js';
import { API_URL, chargeParams, checkoutSession, payment, sessionParams } from '../helpers/fixtures.js';
import { useMswServer } from '../helpers/msw.js';

const server = useMswServer();
const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

/** Records the Idempotency-Key of each POST to `path`, answering with `answers[i]` (the last repeats). */
function posts(path: string, answers: (() => Response | Promise<Response>)[]) {
  const keys: (string | null)[] = [];
  server.use(
    http.post(`${API_URL}${path}`, ({ request }) => {
      keys.push(request.headers.get('idempotency-key'));
      const answer = answers[Math.min(keys.length - 1, answers.length - 1)];
      return answer ? answer() : HttpResponse.json({}, { status: 500 });
    }),
  );
  return keys;
}

const created = (body: unknown) => () => HttpResponse.json({ data: body }, { status: 201 });

describe('Idempotency-Key', () => {
  it('is a fresh UUID v4 when the caller gives none, different for each call', async () => {
    const keys = posts('/payments', [created(payment())]);
    const client = makeClient();
    await client.payments.create(chargeParams);
    await client.payments.create(chargeParams);
    expect(keys).toHaveLength(2);
    expect(keys[0]).toMatch(UUID_V4);
    expect(keys[1]).toMatch(UUID_V4);
    expect(keys[0]).not.toBe(keys[1]);
  });

  it('is the caller’s key when given', async () => {
    const keys = posts('/checkout-sessions', [created(checkoutSession())]);
    const { idempotencyKey } = await makeClient().checkoutSessions.create(sessionParams, { idempotencyKey: 'order-1042' }).withResponse();
    expect(keys).toEqual(['order-1042']);
    expect(idempotencyKey).toBe('order-1042');
  });

  it('is the same on every retry (503, 429, connection failure, then 201)', async () => {
    const keys = posts('/payments', [
      () => HttpResponse.json({ message: 'busy' }, { status: 503 }),
      () => HttpResponse.json({ message: 'slow down' }, { status: 429, headers: { 'Retry-After': '0' } }),
      () => HttpResponse.error(),
      created(payment()),
    ]);
    const { idempotencyKey } = await makeClient({ maxRetries: 3 }).payments.create(chargeParams).withResponse();
    expect(keys).toHaveLength(4);
    expect(idempotencyKey).toMatch(UUID_V4);
    expect(keys).toEqual([idempotencyKey, idempotencyKey, idempotencyKey, idempotencyKey]);
  });

  it('is sent on all four creations', async () => {
    const paths = ['/payments', '/checkout-sessions', '/payouts', '/payment-links'];
    const seen = paths.map((path) =>
      posts(path, [
        created(
          path === '/checkout-sessions'
            ? checkoutSession()
            : path === '/payments'
              ? payment()
              : { id: 1, url: 'https://pay.example/l/x', uuid: 'u-1' },
        ),
      ]),
    );
    const client = makeClient();
    await client.payments.create(chargeParams, { idempotencyKey: 'k-payment' });
    await client.checkoutSessions.create(sessionParams, { idempotencyKey: 'k-session' });
    await client.payouts.create(
      { amount: 1000, currency: 'XOF', destination: { type: 'mobile_money', country: 'SEN', provider: 'orange', phone: '221771234567' } },
      { idempotencyKey: 'k-payout' },
    );
    await client.paymentLinks.create({ title: 'T-shirt', currency: 'XOF', amount: 5000 }, { idempotencyKey: 'k-link' });
    expect(seen).toEqual([['k-payment'], ['k-session'], ['k-payout'], ['k-link']]);
  });

  it.each([[''], ['   '], ['x'.repeat(256)]])('refuses the key %j before sending anything', async (idempotencyKey) => {
    const keys = posts('/payments', [created(payment())]);
    const error = await caught(() => makeClient().payments.create(chargeParams, { idempotencyKey }));
    expect(error).toBeInstanceOf(InvalidParamsError);
    expect((error as Error).message).toMatch(/idempotencyKey/);
    expect(keys).toHaveLength(0);
  });

  it('names a bad key and bad params in the same error (every bad field at once)', async () => {
    const keys = posts('/payments', [created(payment())]);
    const error = await caught(() =>
      makeClient().payments.create({ ...chargeParams, amount: 0, phone: '+221 77' }, { idempotencyKey: '' }),
    );
    expect(error).toBeInstanceOf(InvalidParamsError);
    expect((error as InvalidParamsError).issues.map((i) => i.path.join('.'))).toEqual(['options.idempotencyKey', 'amount', 'phone']);
    expect(keys).toHaveLength(0);
  });
});

describe('every error of a creation carries its idempotencyKey', () => {
  const statusCases: [number, new (...args: never[]) => APIError][] = [
    [400, BadRequestError],
    [401, AuthenticationError],
    [403, PermissionDeniedError],
    [404, NotFoundError],
    [409, IdempotencyConflictError],
    [418, APIError],
    [422, UnprocessableEntityError],
    [429, RateLimitError],
    [500, InternalServerError],
    [502, InternalServerError],
    [503, InternalServerError],
  ];

  it.each(statusCases)('%i → %o with the generated key', async (status, cls) => {
    const keys = posts('/payments', [() => HttpResponse.json({ message: `answer ${status}` }, { status })]);
    const error = await caught(() => makeClient({ maxRetries: 1 }).payments.create(chargeParams));
    expect(error).toBeInstanceOf(cls);
    expect((error as PaymentsError).idempotencyKey).toMatch(UUID_V4);
    expect(keys.every((key) => key === (error as PaymentsError).idempotencyKey)).toBe(true);
  });

  it.each(statusCases)('%i → %o with the caller’s key', async (status, cls) => {
    posts('/checkout-sessions', [() => HttpResponse.json({ message: `answer ${status}` }, { status })]);
    const error = await caught(() => makeClient({ maxRetries: 0 }).checkoutSessions.create(sessionParams, { idempotencyKey: 'order-7' }));
    expect(error).toBeInstanceOf(cls);
    expect((error as PaymentsError).idempotencyKey).toBe('order-7');
  });

  it('APIConnectionError', async () => {
    const keys = posts('/payments', [() => HttpResponse.error()]);
    const error = await caught(() => makeClient().payments.create(chargeParams, { idempotencyKey: 'k-conn' }));
    expect(error).toBeInstanceOf(APIConnectionError);
    expect((error as PaymentsError).idempotencyKey).toBe('k-conn');
    expect(keys).toEqual(['k-conn', 'k-conn', 'k-conn']);
  });

  it('APITimeoutError', async () => {
    posts('/payments', [
      async () => {
        await delay(5_000);
        return created(payment())();
      },
    ]);
    const error = await caught(() => makeClient({ timeout: 50, maxRetries: 1 }).payments.create(chargeParams));
    expect(error).toBeInstanceOf(APITimeoutError);
    expect((error as PaymentsError).idempotencyKey).toMatch(UUID_V4);
  });

  it('APIUserAbortError', async () => {
    const error = await caught(() =>
      makeClient().payments.create(chargeParams, { idempotencyKey: 'k-abort', signal: AbortSignal.abort() }),
    );
    expect(error).toBeInstanceOf(APIUserAbortError);
    expect((error as PaymentsError).idempotencyKey).toBe('k-abort');
  });

  it('ResponseValidationError (a 201 whose amount is not an integer)', async () => {
    posts('/checkout-sessions', [created(checkoutSession({ amount: 50.5 }))]);
    const error = await caught(() => makeClient().checkoutSessions.create(sessionParams, { idempotencyKey: 'k-shape' }));
    expect(error).toBeInstanceOf(ResponseValidationError);
    expect((error as PaymentsError).idempotencyKey).toBe('k-shape');
  });

  it('InvalidParamsError (nothing sent)', async () => {
    const keys = posts('/payments', [created(payment())]);
    const error = await caught(() => makeClient().payments.create({ ...chargeParams, amount: 0 }, { idempotencyKey: 'k-params' }));
    expect(error).toBeInstanceOf(InvalidParamsError);
    expect((error as PaymentsError).idempotencyKey).toBe('k-params');
    expect(keys).toHaveLength(0);
  });

  it('the key lets the caller retry the same operation later, replayed by the service', async () => {
    // A toy service that keeps key → resource (docs/service.md "Idempotency").
    const store = new Map<string, unknown>();
    let down = true;
    server.use(
      http.post(`${API_URL}/payments`, ({ request }) => {
        const key = request.headers.get('idempotency-key') ?? '';
        if (!store.has(key)) store.set(key, payment({ uuid: `p-${store.size + 1}` }));
        if (down) return HttpResponse.json({ message: 'Service Unavailable' }, { status: 503 });
        return HttpResponse.json({ data: store.get(key) }, { status: 200 });
      }),
    );
    const client = makeClient({ maxRetries: 0 });
    const error = (await caught(() => client.payments.create(chargeParams))) as PaymentsError;
    down = false;
    const { data, replayed } = await client.payments.create(chargeParams, { idempotencyKey: error.idempotencyKey }).withResponse();
    expect(replayed).toBe(true);
    expect(data.uuid).toBe('p-1');
    expect(store.size).toBe(1);
  });

  it('reads carry no idempotencyKey', async () => {
    server.use(http.get(`${API_URL}/payments/:uuid`, () => HttpResponse.json({ message: 'Introuvable.' }, { status: 404 })));
    const error = await caught(() => makeClient().payments.retrieve('p-1'));
    expect(error).toBeInstanceOf(NotFoundError);
    expect((error as PaymentsError).idempotencyKey).toBeUndefined();
  });
});

describe('.withResponse()', () => {
  it('gives { data, response, idempotencyKey, replayed: false } for a 201 creation', async () => {
    posts('/payments', [() => HttpResponse.json({ data: payment() }, { status: 201, headers: { 'X-Request-Id': 'req-9' } })]);
    const result = await makeClient().payments.create(chargeParams, { idempotencyKey: 'k-201' }).withResponse();
    expect(result.data).toEqual(payment());
    expect(result.response).toBeInstanceOf(Response);
    expect(result.response.status).toBe(201);
    expect(result.response.headers.get('x-request-id')).toBe('req-9');
    expect(result.idempotencyKey).toBe('k-201');
    expect(result.replayed).toBe(false);
  });

  it('gives replayed: true for a 200 (the service replayed an earlier creation)', async () => {
    posts('/checkout-sessions', [() => HttpResponse.json({ data: checkoutSession() }, { status: 200 })]);
    const result = await makeClient().checkoutSessions.create(sessionParams, { idempotencyKey: 'k-200' }).withResponse();
    expect(result.replayed).toBe(true);
    expect(result.response.status).toBe(200);
    expect(result.data.reference).toBe(checkoutSession().reference);
  });

  it('gives replayed: false and no idempotencyKey for a read', async () => {
    server.use(http.get(`${API_URL}/payments/:uuid`, () => HttpResponse.json({ data: payment() })));
    const result = await makeClient().payments.retrieve('p-1').withResponse();
    expect(result.replayed).toBe(false);
    expect(result.idempotencyKey).toBeUndefined();
    expect(result.data).toEqual(payment());
  });

  it('is the same single request as awaiting the promise', async () => {
    const keys = posts('/payments', [created(payment())]);
    const promise = makeClient().payments.create(chargeParams);
    const [data, withResponse] = await Promise.all([promise, promise.withResponse()]);
    expect(keys).toHaveLength(1);
    expect(withResponse.data).toBe(data);
  });

  it('rejects with the same error as the promise', async () => {
    posts('/payments', [() => HttpResponse.json({ message: 'Conflit.' }, { status: 409 })]);
    const promise = makeClient().payments.create(chargeParams);
    const [a, b] = await Promise.all([caught(() => promise), caught(() => promise.withResponse())]);
    expect(a).toBeInstanceOf(IdempotencyConflictError);
    expect(b).toBe(a);
  });
});
