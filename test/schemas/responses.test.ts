/**
 * Response schemas (README "Errors", ResponseValidationError): unknown fields are kept, enums are open, money is strict
 * (an amount that is not an integer is a ResponseValidationError), and the Laravel quirks the
 * service shows are read as meant (`metadata: []` for an empty object).
 */
import { HttpResponse, http } from 'msw';
import { ResponseValidationError, readField } from 'payments-sdk';
import { WalletListSchema } from 'payments-sdk/schemas';
import { describe, expect, it } from 'vitest';
import * as z from 'zod/mini';
import { caught } from '../helpers/caught.js';
import { makeClient } from '../helpers/client.js';
import { API_URL, checkoutSession, envelope, ORIGIN, payment } from '../helpers/fixtures.js';
import { useMswServer } from '../helpers/msw.js';

const server = useMswServer();

function answerPayment(data: unknown) {
  server.use(http.get(`${API_URL}/payments/:uuid`, () => HttpResponse.json({ data })));
}
function answerSession(data: unknown) {
  server.use(http.get(`${API_URL}/checkout-sessions/:reference`, () => HttpResponse.json({ data })));
}
const lastKeys = (error: unknown) => (error as ResponseValidationError).issues.map((i) => i.path.at(-1));

describe('Payment', () => {
  it('keeps unknown fields, nested ones included', async () => {
    const body = { ...payment(), refunded_amount: 0, risk: { score: 12, rules: ['velocity'] } };
    answerPayment(body);
    const result = await makeClient().payments.retrieve(body.uuid);
    expect(result).toEqual(body);
    expect(readField(result, 'risk')).toEqual({ score: 12, rules: ['velocity'] });
  });

  it('lets a status the SDK does not know pass through, and a new payment_method too', async () => {
    answerPayment(payment({ status: 'partially_refunded', payment_method: 'card' }));
    const result = await makeClient().payments.retrieve('p');
    expect(result.status).toBe('partially_refunded');
    expect(result.payment_method).toBe('card');
  });

  it('accepts null for the nullable fields (a card payment, a direct charge)', async () => {
    answerPayment(payment({ checkout_session: null, mobile_money_country: null, mobile_money_provider: null, failure_reason: null }));
    expect((await makeClient().payments.retrieve('p')).mobile_money_country).toBeNull();
  });

  it.each([
    ['a fraction', 5000.5],
    ['a numeric string', '5000'],
    ['null', null],
  ])('gross_amount as %s → ResponseValidationError carrying the issues and the body', async (_label, gross_amount) => {
    const body = { ...payment(), gross_amount };
    answerPayment(body);
    const error = await caught(() => makeClient().payments.retrieve('p'));
    expect(error).toBeInstanceOf(ResponseValidationError);
    expect(lastKeys(error)).toEqual(['gross_amount']);
    expect(JSON.stringify((error as ResponseValidationError).body)).toContain(JSON.stringify(gross_amount));
  });

  it('every fee field is checked, and every bad one is named', async () => {
    answerPayment({ ...payment(), psp_fee_amount: 75.25, platform_fee_amount: '25', net_amount_to_merchant: 4899.75 });
    const error = await caught(() => makeClient().payments.retrieve('p'));
    expect(lastKeys(error).sort()).toEqual(['net_amount_to_merchant', 'platform_fee_amount', 'psp_fee_amount']);
  });

  it('a missing known field or a missing { data } wrapper is an error', async () => {
    const { uuid: _uuid, ...withoutUuid } = payment();
    answerPayment(withoutUuid);
    expect(lastKeys(await caught(() => makeClient().payments.retrieve('p')))).toEqual(['uuid']);
    server.use(http.get(`${API_URL}/payments/:uuid`, () => HttpResponse.json(payment())));
    expect(await caught(() => makeClient().payments.retrieve('p'))).toBeInstanceOf(ResponseValidationError);
  });
});

describe('CheckoutSession', () => {
  it('reads metadata [] (Laravel empty PHP array) as {}', async () => {
    answerSession({ ...checkoutSession(), metadata: [] });
    expect((await makeClient().checkoutSessions.retrieve('s')).metadata).toEqual({});
  });

  it('keeps an object metadata as given, and reads null as {}', async () => {
    answerSession(checkoutSession({ metadata: { order_id: '1042', lines: [{ sku: 'TS-1' }] } }));
    expect((await makeClient().checkoutSessions.retrieve('s')).metadata).toEqual({ order_id: '1042', lines: [{ sku: 'TS-1' }] });
    answerSession({ ...checkoutSession(), metadata: null });
    expect((await makeClient().checkoutSessions.retrieve('s')).metadata).toEqual({});
  });

  it('a non-empty array metadata is not an object: ResponseValidationError', async () => {
    answerSession({ ...checkoutSession(), metadata: ['x'] });
    expect(lastKeys(await caught(() => makeClient().checkoutSessions.retrieve('s')))).toEqual(['metadata']);
    answerSession({ ...checkoutSession(), metadata: 'none' });
    expect(lastKeys(await caught(() => makeClient().checkoutSessions.retrieve('s')))).toEqual(['metadata']);
  });

  it('unknown status and fields pass; a non-integer amount does not', async () => {
    answerSession({ ...checkoutSession(), status: 'refunded', locale: 'fr' });
    const result = await makeClient().checkoutSessions.retrieve('s');
    expect(result.status).toBe('refunded');
    expect(readField(result, 'locale')).toBe('fr');
    answerSession({ ...checkoutSession(), amount: 49.99 });
    expect(lastKeys(await caught(() => makeClient().checkoutSessions.retrieve('s')))).toEqual(['amount']);
  });
});

describe('Payout', () => {
  it('id may be a string or a number; anything else is named at id', async () => {
    server.use(http.get(`${API_URL}/payouts/:id`, () => HttpResponse.json({ data: { id: 7, status: 'queued' } })));
    expect((await makeClient().payouts.retrieve(7)).id).toBe(7);
    server.use(http.get(`${API_URL}/payouts/:id`, () => HttpResponse.json({ data: { id: true } })));
    const error = await caught(() => makeClient().payouts.retrieve(7));
    expect(error).toBeInstanceOf(ResponseValidationError);
    expect((error as ResponseValidationError).issues).toEqual([
      { path: ['data', 'id'], message: 'must be a string or a safe integer, got a boolean' },
    ]);
  });
});

describe('list envelope', () => {
  it('a bad item is named by its index in data', async () => {
    server.use(
      http.get(`${API_URL}/payments`, () => HttpResponse.json(envelope([payment(), payment({ gross_amount: 1.5 })], { origin: ORIGIN }))),
    );
    const error = await caught(() => makeClient().payments.list());
    expect(error).toBeInstanceOf(ResponseValidationError);
    const path = (error as ResponseValidationError).issues[0]?.path ?? [];
    expect(path.slice(-3)).toEqual(['data', 1, 'gross_amount']);
  });

  it('keeps unknown members of the envelope, links and meta (Laravel adds meta.from, meta.path, meta.links...)', async () => {
    const body = envelope([payment()], { origin: ORIGIN });
    const extended = { ...body, meta: { ...body.meta, from: 1, to: 1, path: `${ORIGIN}/api/v1/payments` }, links: { ...body.links } };
    server.use(http.get(`${API_URL}/payments`, () => HttpResponse.json(extended)));
    const page = await makeClient().payments.list();
    expect(page.meta).toEqual(extended.meta);
  });

  it('an envelope without links.next or with a non-integer meta.total is an error', async () => {
    const body = envelope([payment()], { origin: ORIGIN });
    server.use(http.get(`${API_URL}/payments`, () => HttpResponse.json({ ...body, links: { first: null, last: null, prev: null } })));
    expect(await caught(() => makeClient().payments.list())).toBeInstanceOf(ResponseValidationError);
    server.use(http.get(`${API_URL}/payments`, () => HttpResponse.json({ ...body, meta: { ...body.meta, total: '1' } })));
    expect(await caught(() => makeClient().payments.list())).toBeInstanceOf(ResponseValidationError);
  });
});

describe('WalletListSchema (payments-sdk/schemas)', () => {
  // The client unwraps `{ data }` itself; the public schema still does it on its own, for a stored answer.
  it('unwraps { data: [...] }, accepts a bare array, and refuses anything else', () => {
    const wallets = [{ currency: 'XOF', balance: 1000 }];
    expect(z.parse(WalletListSchema, { data: wallets })).toEqual(wallets);
    expect(z.parse(WalletListSchema, wallets)).toEqual(wallets);
    expect(z.safeParse(WalletListSchema, { wallets }).success).toBe(false);
    expect(z.safeParse(WalletListSchema, { data: [wallets[0], 'XOF'] }).error?.issues.map((i) => i.path)).toEqual([[1]]);
  });
});
