/**
 * payments.create / retrieve / list on the wire (README "Payments"; docs/service.md "Endpoints"):
 * method, path, query, body, headers, unwrapping from `{ data }`, path encoding and the error
 * classes each call can end in.
 */
import { HttpResponse, http } from 'msw';
import {
  IdempotencyConflictError,
  InvalidParamsError,
  NotFoundError,
  Page,
  PermissionDeniedError,
  UnprocessableEntityError,
} from 'payments-sdk';
import { describe, expect, it } from 'vitest';
import { caught } from '../helpers/caught.js';
import { makeClient } from '../helpers/client.js';
import { API_URL, chargeParams, envelope, ORIGIN, payment } from '../helpers/fixtures.js';
import { useMswServer } from '../helpers/msw.js';
import { jsonOf, queryOf, useRequestLog } from '../helpers/request-log.js';

const server = useMswServer();
const log = useRequestLog(server);
const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe('payments.create', () => {
  it('POSTs the params as JSON to /api/v1/payments with auth, idempotency key, and returns the unwrapped payment', async () => {
    const answer = payment();
    server.use(http.post(`${API_URL}/payments`, () => HttpResponse.json({ data: answer }, { status: 201 })));
    const params = { ...chargeParams, payer_name: 'Awa Diop', payer_email: 'awa@example.sn', description: 'Order #1042' };

    const { data, replayed, idempotencyKey } = await makeClient().payments.create(params).withResponse();

    expect(data).toEqual(answer);
    expect(replayed).toBe(false);
    expect(log).toHaveLength(1);
    const sent = log[0];
    expect(sent?.method).toBe('POST');
    expect(sent?.url.href).toBe(`${API_URL}/payments`);
    expect(await jsonOf(sent)).toEqual(params);
    expect(sent?.headers.get('authorization')).toMatch(/^Bearer sk_test_/);
    expect(sent?.headers.get('content-type')).toMatch(/^application\/json/);
    expect(sent?.headers.get('idempotency-key')).toMatch(UUID_V4);
    expect(sent?.headers.get('idempotency-key')).toBe(idempotencyKey);
  });

  it('sends the caller idempotency key and per-call headers', async () => {
    server.use(http.post(`${API_URL}/payments`, () => HttpResponse.json({ data: payment() }, { status: 201 })));
    await makeClient({ headers: { 'X-Shop': 'dakar-1' } }).payments.create(chargeParams, {
      idempotencyKey: 'order-1042',
      headers: { 'X-Trace': 't-1' },
    });
    expect(log[0]?.headers.get('idempotency-key')).toBe('order-1042');
    expect(log[0]?.headers.get('x-shop')).toBe('dakar-1');
    expect(log[0]?.headers.get('x-trace')).toBe('t-1');
  });

  it('returns the currency and amount the service charged, not the ones asked (§4.1 conversion)', async () => {
    // 10.00 EUR asked for a Senegalese operator: the service converts and shows XOF.
    const converted = payment({
      currency: 'XOF',
      gross_amount: 6560,
      psp_fee_amount: 98,
      platform_fee_amount: 33,
      net_amount_to_merchant: 6429,
    });
    server.use(http.post(`${API_URL}/payments`, () => HttpResponse.json({ data: converted }, { status: 201 })));
    const result = await makeClient().payments.create({ ...chargeParams, amount: 1000, currency: 'EUR' });
    expect(await jsonOf(log[0])).toMatchObject({ amount: 1000, currency: 'EUR' });
    expect(result.currency).toBe('XOF');
    expect(result.gross_amount).toBe(6560);
  });

  it('403 (live key without KYC) → PermissionDeniedError with the service message and the idempotency key', async () => {
    server.use(http.post(`${API_URL}/payments`, () => HttpResponse.json({ message: 'KYC non approuvé.' }, { status: 403 })));
    const error = await caught(() => makeClient().payments.create(chargeParams, { idempotencyKey: 'k-403' }));
    expect(error).toBeInstanceOf(PermissionDeniedError);
    expect((error as PermissionDeniedError).message).toBe('KYC non approuvé.');
    expect((error as PermissionDeniedError).idempotencyKey).toBe('k-403');
  });

  it('422 → UnprocessableEntityError with per-field errors and failure_reason', async () => {
    server.use(
      http.post(`${API_URL}/payments`, () =>
        HttpResponse.json(
          { message: 'The phone field is invalid.', errors: { phone: ['The phone field is invalid.'] }, failure_reason: 'invalid_phone' },
          { status: 422 },
        ),
      ),
    );
    const error = await caught(() => makeClient().payments.create(chargeParams));
    expect(error).toBeInstanceOf(UnprocessableEntityError);
    const e = error as UnprocessableEntityError;
    expect(e.status).toBe(422);
    expect(e.errors).toEqual({ phone: ['The phone field is invalid.'] });
    expect(e.failureReason).toBe('invalid_phone');
    expect(e.message).toBe('The phone field is invalid.');
  });

  it('409 → IdempotencyConflictError, sent once (never retried)', async () => {
    server.use(
      http.post(`${API_URL}/payments`, () =>
        HttpResponse.json({ message: 'This idempotency key was already used with a different payload.' }, { status: 409 }),
      ),
    );
    const error = await caught(() => makeClient().payments.create(chargeParams, { idempotencyKey: 'k-409' }));
    expect(error).toBeInstanceOf(IdempotencyConflictError);
    expect((error as IdempotencyConflictError).idempotencyKey).toBe('k-409');
    expect(log).toHaveLength(1);
  });
});

describe('payments.retrieve', () => {
  it('GETs /api/v1/payments/{uuid} with auth and no body, and unwraps { data }', async () => {
    const answer = payment({ status: 'succeeded' });
    server.use(http.get(`${API_URL}/payments/:uuid`, () => HttpResponse.json({ data: answer })));
    const result = await makeClient().payments.retrieve(answer.uuid);
    expect(result).toEqual(answer);
    expect(log).toHaveLength(1);
    expect(log[0]?.method).toBe('GET');
    expect(log[0]?.url.href).toBe(`${API_URL}/payments/${answer.uuid}`);
    expect(log[0]?.headers.get('authorization')).toMatch(/^Bearer /);
    expect(log[0]?.headers.get('idempotency-key')).toBeNull();
    expect(await log[0]?.text).toBe('');
  });

  it('URL-encodes the identifier: "/", "?", "#" and spaces stay inside the path segment', async () => {
    server.use(http.get(`${API_URL}/payments/*`, () => HttpResponse.json({ data: payment() })));
    await makeClient().payments.retrieve('a/b?c=1#d e');
    expect(log).toHaveLength(1);
    expect(log[0]?.url.pathname).toBe('/api/v1/payments/a%2Fb%3Fc%3D1%23d%20e');
    expect(log[0]?.url.search).toBe('');
  });

  it('refuses "." and ".." (the URL parser would resolve them to another endpoint), sending nothing', async () => {
    for (const id of ['.', '..', '']) {
      const error = await caught(() => makeClient().payments.retrieve(id));
      expect(error).toBeInstanceOf(InvalidParamsError);
      // The error names the call and the identifier.
      expect((error as Error).message).toMatch(/^Invalid payments\.retrieve identifier: id: must /);
    }
    expect(log).toHaveLength(0);
  });

  it('404 → NotFoundError with the service message', async () => {
    server.use(http.get(`${API_URL}/payments/:uuid`, () => HttpResponse.json({ message: 'Paiement introuvable.' }, { status: 404 })));
    const error = await caught(() => makeClient().payments.retrieve('00000000-0000-4000-8000-000000000000'));
    expect(error).toBeInstanceOf(NotFoundError);
    expect((error as NotFoundError).message).toBe('Paiement introuvable.');
    expect((error as NotFoundError).status).toBe(404);
  });

  it('works with a base URL that has a path prefix and a trailing /api/v1/', async () => {
    server.use(http.get(`${ORIGIN}/pay/api/v1/payments/:uuid`, () => HttpResponse.json({ data: payment() })));
    await makeClient({ baseUrl: `${ORIGIN}/pay/api/v1/` }).payments.retrieve('p-1');
    expect(log[0]?.url.href).toBe(`${ORIGIN}/pay/api/v1/payments/p-1`);
  });
});

describe('payments.list', () => {
  it('GETs /api/v1/payments with the filters as query and resolves to the first Page', async () => {
    const items = [payment({ uuid: 'p-1', status: 'succeeded' }), payment({ uuid: 'p-2', status: 'succeeded' })];
    server.use(http.get(`${API_URL}/payments`, () => HttpResponse.json(envelope(items, { origin: ORIGIN, total: 2, perPage: 50 }))));
    const page = await makeClient().payments.list({ status: 'succeeded', from: '2026-11-01', to: '2026-11-30', per_page: 50, page: 1 });
    expect(page).toBeInstanceOf(Page);
    expect(page.data).toEqual(items);
    expect(page.meta).toEqual({ current_page: 1, last_page: 1, per_page: 50, total: 2 });
    expect(page.hasNextPage()).toBe(false);
    expect(log).toHaveLength(1);
    expect(log[0]?.method).toBe('GET');
    expect(log[0]?.url.pathname).toBe('/api/v1/payments');
    expect(queryOf(log[0])).toEqual({ status: 'succeeded', from: '2026-11-01', to: '2026-11-30', per_page: '50', page: '1' });
  });

  it('sends no query string when no filter is given', async () => {
    server.use(http.get(`${API_URL}/payments`, () => HttpResponse.json(envelope([], { origin: ORIGIN }))));
    const page = await makeClient().payments.list();
    expect(page.data).toEqual([]);
    expect(log[0]?.url.href).toBe(`${API_URL}/payments`);
  });
});
