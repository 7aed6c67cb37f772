/**
 * payouts, paymentLinks and wallets on the wire (README "Payouts, payment links, wallets";
 * docs/service.md "Money and records", "Endpoints"). These three are only partly documented: unknown keys pass through both ways.
 */
import { HttpResponse, http } from 'msw';
import {
  IdempotencyConflictError,
  InvalidParamsError,
  NotFoundError,
  PermissionDeniedError,
  ResponseValidationError,
  UnprocessableEntityError,
} from 'payments-sdk';
import { describe, expect, it } from 'vitest';
import { caught } from '../helpers/caught.js';
import { makeClient } from '../helpers/client.js';
import { API_URL, envelope, LIVE_KEY, ORIGIN } from '../helpers/fixtures.js';
import { useMswServer } from '../helpers/msw.js';
import { jsonOf, queryOf, useRequestLog } from '../helpers/request-log.js';

const server = useMswServer();
const log = useRequestLog(server);

const payoutParams = {
  amount: 25_000,
  currency: 'XOF',
  destination: { type: 'mobile_money', country: 'SEN', provider: 'wave', phone: '221771234567' },
};
const payoutRecord = {
  id: 'po_01JD',
  amount: 25_000,
  currency: 'XOF',
  status: 'awaiting_approval',
  destination: { ...payoutParams.destination },
  approved_at: null,
};
const linkRecord = {
  uuid: '5d2c1b0a-1111-4222-8333-444455556666',
  url: 'https://pay.example/l/tee-shirt',
  title: 'Tee-shirt',
  currency: 'XOF',
  amount: null,
  minimum_amount: 1000,
  slug: 'tee-shirt',
};

describe('payouts', () => {
  it('create POSTs to /api/v1/payouts with an idempotency key, passes undocumented keys through (top level and destination), and unwraps', async () => {
    server.use(http.post(`${API_URL}/payouts`, () => HttpResponse.json({ data: payoutRecord }, { status: 201 })));
    const params = { ...payoutParams, reference: 'supplier-77', destination: { ...payoutParams.destination, account_name: 'Awa Diop' } };
    const payout = await makeClient({ apiKey: LIVE_KEY }).payouts.create(params, { idempotencyKey: 'payout-77' });
    expect(payout).toEqual(payoutRecord);
    expect(log[0]?.method).toBe('POST');
    expect(log[0]?.url.href).toBe(`${API_URL}/payouts`);
    expect(log[0]?.headers.get('idempotency-key')).toBe('payout-77');
    expect(log[0]?.headers.get('authorization')).toBe(`Bearer ${LIVE_KEY}`);
    expect(await jsonOf(log[0])).toEqual(params);
  });

  it('403 with a sandbox key → PermissionDeniedError (payouts are live-only, §5.4)', async () => {
    server.use(
      http.post(`${API_URL}/payouts`, () => HttpResponse.json({ message: 'Les virements exigent une clé live.' }, { status: 403 })),
    );
    const client = makeClient();
    expect(client.mode).toBe('sandbox');
    const error = await caught(() => client.payouts.create(payoutParams));
    expect(error).toBeInstanceOf(PermissionDeniedError);
    expect((error as PermissionDeniedError).message).toBe('Les virements exigent une clé live.');
    expect((error as PermissionDeniedError).idempotencyKey).toBeTruthy();
  });

  it('409 → IdempotencyConflictError; 422 → UnprocessableEntityError', async () => {
    server.use(http.post(`${API_URL}/payouts`, () => HttpResponse.json({ message: 'conflict' }, { status: 409 })));
    expect(await caught(() => makeClient({ apiKey: LIVE_KEY }).payouts.create(payoutParams))).toBeInstanceOf(IdempotencyConflictError);
    server.use(
      http.post(`${API_URL}/payouts`, () => HttpResponse.json({ message: 'invalid', errors: { amount: ['too big'] } }, { status: 422 })),
    );
    const error = await caught(() => makeClient({ apiKey: LIVE_KEY }).payouts.create(payoutParams));
    expect((error as UnprocessableEntityError).errors).toEqual({ amount: ['too big'] });
  });

  it('retrieve GETs /api/v1/payouts/{id} (string or number, URL-encoded)', async () => {
    server.use(http.get(`${API_URL}/payouts/*`, () => HttpResponse.json({ data: payoutRecord })));
    expect(await makeClient().payouts.retrieve('po/01?JD')).toEqual(payoutRecord);
    await makeClient().payouts.retrieve(42);
    expect(log.map((r) => r.url.pathname)).toEqual(['/api/v1/payouts/po%2F01%3FJD', '/api/v1/payouts/42']);
    expect(log.every((r) => r.method === 'GET')).toBe(true);
  });

  it('retrieve 404 → NotFoundError', async () => {
    server.use(http.get(`${API_URL}/payouts/:id`, () => HttpResponse.json({ message: 'Not found' }, { status: 404 })));
    expect(await caught(() => makeClient().payouts.retrieve('po_x'))).toBeInstanceOf(NotFoundError);
  });

  it('list GETs /api/v1/payouts with the documented filters and passes other filters through', async () => {
    server.use(
      http.get(`${API_URL}/payouts`, () => HttpResponse.json(envelope([payoutRecord], { origin: ORIGIN, path: '/api/v1/payouts' }))),
    );
    const page = await makeClient().payouts.list({
      status: 'paid',
      from: '2026-11-01',
      per_page: 25,
      destination_type: 'mobile_money',
      min_amount: 1000,
    });
    expect(page.data).toEqual([payoutRecord]);
    expect(log[0]?.url.pathname).toBe('/api/v1/payouts');
    expect(queryOf(log[0])).toEqual({
      status: 'paid',
      from: '2026-11-01',
      per_page: '25',
      destination_type: 'mobile_money',
      min_amount: '1000',
    });
  });

  it('a payout record with unknown fields and without the documented ones passes; a non-integer amount does not', async () => {
    server.use(
      http.get(`${API_URL}/payouts/:id`, () => HttpResponse.json({ data: { reference: 'x', fee: 150, approval: { by: 'ops' } } })),
    );
    expect(await makeClient().payouts.retrieve('po_1')).toEqual({ reference: 'x', fee: 150, approval: { by: 'ops' } });
    server.use(http.get(`${API_URL}/payouts/:id`, () => HttpResponse.json({ data: { ...payoutRecord, amount: 250.5 } })));
    const error = await caught(() => makeClient().payouts.retrieve('po_1'));
    expect(error).toBeInstanceOf(ResponseValidationError);
    expect((error as ResponseValidationError).issues.map((i) => i.path.at(-1))).toEqual(['amount']);
  });
});

describe('paymentLinks', () => {
  it('create POSTs to /api/v1/payment-links with an idempotency key, passes undocumented keys through, and unwraps', async () => {
    server.use(http.post(`${API_URL}/payment-links`, () => HttpResponse.json({ data: linkRecord }, { status: 201 })));
    const params = { title: 'Tee-shirt', currency: 'XOF', minimum_amount: 1000, expires_at: '2026-12-31T23:59:59Z', max_uses: 100 };
    const link = await makeClient().paymentLinks.create(params);
    expect(link).toEqual(linkRecord);
    expect(link.url).toBe('https://pay.example/l/tee-shirt');
    expect(log[0]?.method).toBe('POST');
    expect(log[0]?.url.href).toBe(`${API_URL}/payment-links`);
    expect(log[0]?.headers.get('idempotency-key')).toBeTruthy();
    expect(await jsonOf(log[0])).toEqual(params);
  });

  it('create 409 → IdempotencyConflictError; 422 → UnprocessableEntityError', async () => {
    server.use(http.post(`${API_URL}/payment-links`, () => HttpResponse.json({ message: 'conflict' }, { status: 409 })));
    expect(await caught(() => makeClient().paymentLinks.create({ title: 'x', currency: 'XOF' }))).toBeInstanceOf(IdempotencyConflictError);
    server.use(
      http.post(`${API_URL}/payment-links`, () =>
        HttpResponse.json({ message: 'invalid', errors: { title: ['required'] } }, { status: 422 }),
      ),
    );
    expect(await caught(() => makeClient().paymentLinks.create({ currency: 'XOF' }))).toBeInstanceOf(UnprocessableEntityError);
  });

  it('retrieve GETs /api/v1/payment-links/{id}, URL-encoded; 404 → NotFoundError with the French message', async () => {
    server.use(http.get(`${API_URL}/payment-links/*`, () => HttpResponse.json({ data: linkRecord })));
    expect(await makeClient().paymentLinks.retrieve('tee shirt/2')).toEqual(linkRecord);
    expect(log[0]?.url.pathname).toBe('/api/v1/payment-links/tee%20shirt%2F2');
    server.use(
      http.get(`${API_URL}/payment-links/*`, () => HttpResponse.json({ message: "Ce lien n'est plus disponible." }, { status: 404 })),
    );
    const error = await caught(() => makeClient().paymentLinks.retrieve('gone'));
    expect(error).toBeInstanceOf(NotFoundError);
    expect((error as NotFoundError).message).toBe("Ce lien n'est plus disponible.");
  });

  it('list GETs /api/v1/payment-links and passes other filters through', async () => {
    server.use(
      http.get(`${API_URL}/payment-links`, () =>
        HttpResponse.json(envelope([linkRecord], { origin: ORIGIN, path: '/api/v1/payment-links' })),
      ),
    );
    const page = await makeClient().paymentLinks.list({ status: 'active', to: '2026-11-30', search: 'tee' });
    expect(page.data).toEqual([linkRecord]);
    expect(queryOf(log[0])).toEqual({ status: 'active', to: '2026-11-30', search: 'tee' });
  });

  it('a link without url or uuid is a ResponseValidationError (share url as it is: it must be there)', async () => {
    const { url: _url, ...withoutUrl } = linkRecord;
    server.use(http.get(`${API_URL}/payment-links/:id`, () => HttpResponse.json({ data: withoutUrl })));
    const error = await caught(() => makeClient().paymentLinks.retrieve('l'));
    expect(error).toBeInstanceOf(ResponseValidationError);
    expect((error as ResponseValidationError).issues.map((i) => i.path.at(-1))).toEqual(['url']);
  });
});

describe('wallets.list', () => {
  const wallets = [
    { currency: 'XOF', balance: 1_250_000, pending: 5000 },
    { currency: 'GHS', balance: 80_000, provider: 'mtn' },
  ];

  it('GETs /api/v1/wallets (no pagination, no query) and unwraps { data: [...] }', async () => {
    server.use(http.get(`${API_URL}/wallets`, () => HttpResponse.json({ data: wallets })));
    const result = await makeClient().wallets.list();
    expect(result).toEqual(wallets);
    expect(log).toHaveLength(1);
    expect(log[0]?.method).toBe('GET');
    expect(log[0]?.url.href).toBe(`${API_URL}/wallets`);
  });

  it('accepts a bare array too', async () => {
    server.use(http.get(`${API_URL}/wallets`, () => HttpResponse.json(wallets)));
    expect(await makeClient().wallets.list()).toEqual(wallets);
  });

  it('anything else is a ResponseValidationError, and errors map by status', async () => {
    server.use(http.get(`${API_URL}/wallets`, () => HttpResponse.json({ wallets })));
    expect(await caught(() => makeClient().wallets.list())).toBeInstanceOf(ResponseValidationError);
    server.use(http.get(`${API_URL}/wallets`, () => HttpResponse.json({ message: 'KYC non approuvé.' }, { status: 403 })));
    expect(await caught(() => makeClient().wallets.list())).toBeInstanceOf(PermissionDeniedError);
  });

  it('a wallet that is not an object is named by its path in the body, whether the list came wrapped or bare', async () => {
    for (const [body, path] of [
      [{ data: [wallets[0], 'XOF'] }, 'data.1'],
      [[wallets[0], 'XOF'], '1'],
    ] as const) {
      server.use(http.get(`${API_URL}/wallets`, () => HttpResponse.json(body as never)));
      const error = await caught(() => makeClient().wallets.list());
      expect(error).toBeInstanceOf(ResponseValidationError);
      expect((error as ResponseValidationError).issues.map((i) => i.path.join('.'))).toEqual([path]);
      // Worded from the wallet at fault, and the error keeps the body as received.
      expect((error as ResponseValidationError).issues[0]?.message).toBe('must be an object, got string');
      expect((error as ResponseValidationError).body).toEqual(body);
    }
  });

  it('a data member that is not a list is named at data, with the body kept', async () => {
    for (const body of [{ data: null }, { data: 'XOF' }]) {
      server.use(http.get(`${API_URL}/wallets`, () => HttpResponse.json(body)));
      const error = (await caught(() => makeClient().wallets.list())) as ResponseValidationError;
      expect(error).toBeInstanceOf(ResponseValidationError);
      expect(error.issues.map((i) => i.path.join('.'))).toEqual(['data']);
      expect(error.body).toEqual(body);
    }
  });
});

describe('create params of the partly documented resources', () => {
  it('payouts: every bad known field is named in one InvalidParamsError, and nothing is sent', async () => {
    const error = await caught(() =>
      makeClient({ apiKey: LIVE_KEY }).payouts.create({
        amount: 0,
        currency: 'xof',
        destination: { type: 'mobile_money', country: 'SN', phone: '+221771234567' },
      }),
    );
    expect(error).toBeInstanceOf(InvalidParamsError);
    expect((error as InvalidParamsError).issues.map((i) => i.path.join('.')).sort()).toEqual([
      'amount',
      'currency',
      'destination.country',
      'destination.phone',
    ]);
    expect(log).toHaveLength(0);
  });

  it('payouts: destination is required', async () => {
    const error = await caught(() => makeClient().payouts.create({ amount: 100, currency: 'XOF' } as never));
    expect((error as InvalidParamsError).issues).toEqual([{ path: ['destination'], message: 'is required' }]);
    expect(log).toHaveLength(0);
  });

  it('payment links: amount and minimum_amount are integers ≥ 1 and currency has 3 letters', async () => {
    const error = await caught(() =>
      makeClient().paymentLinks.create({ title: '', currency: 'CFA franc', amount: 12.5, minimum_amount: -1 }),
    );
    expect((error as InvalidParamsError).issues.map((i) => i.path.join('.')).sort()).toEqual([
      'amount',
      'currency',
      'minimum_amount',
      'title',
    ]);
    expect(log).toHaveLength(0);
  });
});
