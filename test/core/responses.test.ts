/**
 * Responses (README "Errors", ResponseValidationError): 2xx bodies validated with zod; a known field of the wrong type
 * (an amount that is not an integer: money is never guessed) throws ResponseValidationError with
 * the issues and the raw body; unknown fields are kept and unknown enum values pass.
 */
import { HttpResponse, http } from 'msw';
import { ResponseValidationError, readField } from 'payments-sdk';
import { describe, expect, it } from 'vitest';
import { caught } from '../helpers/caught.js';
import { makeClient } from '../helpers/client.js';
import { API_URL, checkoutSession, envelope, payment, sessionParams } from '../helpers/fixtures.js';
import { useMswServer } from '../helpers/msw.js';

const server = useMswServer();

function answerSession(body: unknown, status = 200) {
  server.use(
    http.get(`${API_URL}/checkout-sessions/:reference`, () => HttpResponse.json(body as never, { status })),
    http.post(`${API_URL}/checkout-sessions`, () => HttpResponse.json(body as never, { status: 201 })),
  );
}

describe('ResponseValidationError', () => {
  it('is thrown for a non-integer amount, with the issue’s path and the raw body', async () => {
    const raw = { data: checkoutSession({ amount: 50.5 }) };
    answerSession(raw);
    const error = await caught(() => makeClient().checkoutSessions.retrieve('ref'));
    expect(error).toBeInstanceOf(ResponseValidationError);
    const e = error as ResponseValidationError;
    expect(e.issues).toHaveLength(1);
    expect(e.issues[0]!.path).toEqual(['data', 'amount']);
    expect(e.issues[0]!.message).toMatch(/integer/);
    expect(e.body).toEqual(raw);
    expect(e.message).toMatch(/data\.amount/);
    // The message names the call.
    expect(e.message).toMatch(/^The checkoutSessions\.retrieve response from the payments service did not match/);
  });

  it.each([
    ['a string amount', { amount: '5000' }],
    ['a missing reference', { reference: undefined }],
    ['a numeric status', { status: 3 }],
  ])('is thrown for %s', async (_label, overrides) => {
    answerSession({ data: { ...checkoutSession(), ...overrides } });
    await expect(makeClient().checkoutSessions.retrieve('ref')).rejects.toBeInstanceOf(ResponseValidationError);
  });

  it('names every mismatch at once', async () => {
    answerSession({ data: payment({ gross_amount: 1.5, net_amount_to_merchant: '4900' as never, uuid: 7 as never }) });
    server.use(
      http.get(`${API_URL}/payments/:uuid`, () =>
        HttpResponse.json({ data: payment({ gross_amount: 1.5, net_amount_to_merchant: '4900' as never, uuid: 7 as never }) }),
      ),
    );
    const error = (await caught(() => makeClient().payments.retrieve('p-1'))) as ResponseValidationError;
    expect(error.issues.map((i) => i.path.join('.')).sort()).toEqual(['data.gross_amount', 'data.net_amount_to_merchant', 'data.uuid']);
  });

  it('is thrown when the object is not wrapped in `data`', async () => {
    const raw = checkoutSession();
    answerSession(raw);
    const error = (await caught(() => makeClient().checkoutSessions.retrieve('ref'))) as ResponseValidationError;
    expect(error).toBeInstanceOf(ResponseValidationError);
    expect(error.body).toEqual(raw);
    expect(error.message).toMatch(/data/);
  });

  it('is thrown for a creation whose 201 breaks the schema (not retried: the service did create it)', async () => {
    let attempts = 0;
    server.use(
      http.post(`${API_URL}/checkout-sessions`, () => {
        attempts += 1;
        return HttpResponse.json({ data: checkoutSession({ amount: 99.99 }) }, { status: 201 });
      }),
    );
    const error = await caught(() => makeClient().checkoutSessions.create(sessionParams));
    expect(error).toBeInstanceOf(ResponseValidationError);
    expect(attempts).toBe(1);
  });

  it('is thrown, with the text as body, for a 2xx that stays non-JSON through the retries', async () => {
    let attempts = 0;
    server.use(
      http.get(`${API_URL}/payments/:uuid`, () => {
        attempts += 1;
        return new HttpResponse('<html>Bientôt de retour</html>', { status: 200, headers: { 'Content-Type': 'text/html' } });
      }),
    );
    const error = (await caught(() => makeClient().payments.retrieve('p-1'))) as ResponseValidationError;
    expect(error).toBeInstanceOf(ResponseValidationError);
    expect(error.body).toBe('<html>Bientôt de retour</html>');
    expect(attempts).toBe(3);
  });

  it('is thrown for a list page whose item breaks the schema', async () => {
    server.use(http.get(`${API_URL}/payments`, () => HttpResponse.json(envelope([payment(), payment({ psp_fee_amount: 7.5 })]))));
    const error = (await caught(() => makeClient().payments.list())) as ResponseValidationError;
    expect(error).toBeInstanceOf(ResponseValidationError);
    expect(error.issues[0]!.path).toEqual(['data', 1, 'psp_fee_amount']);
  });
});

describe('forward compatibility', () => {
  it('keeps unknown fields, nested ones included', async () => {
    answerSession({ data: { ...checkoutSession(), locale: 'fr', branding: { color: '#123456' } }, request_id: 'r-1' });
    const session = await makeClient().checkoutSessions.retrieve('ref');
    expect(readField(session, 'locale')).toBe('fr');
    expect(readField(session, 'branding')).toEqual({ color: '#123456' });
  });

  it('lets an unknown status value through as a string', async () => {
    answerSession({ data: checkoutSession({ status: 'on_hold' }) });
    expect((await makeClient().checkoutSessions.retrieve('ref')).status).toBe('on_hold');
    server.use(
      http.get(`${API_URL}/payments/:uuid`, () =>
        HttpResponse.json({ data: payment({ status: 'partially_refunded', payment_method: 'card' }) }),
      ),
    );
    const found = await makeClient().payments.retrieve('p-1');
    expect(found.status).toBe('partially_refunded');
    expect(found.payment_method).toBe('card');
  });

  it('accepts the documented nulls', async () => {
    server.use(
      http.get(`${API_URL}/payments/:uuid`, () =>
        HttpResponse.json({
          data: payment({ mobile_money_country: null, mobile_money_provider: null, checkout_session: null, failure_reason: null }),
        }),
      ),
    );
    const found = await makeClient().payments.retrieve('p-1');
    expect(found.mobile_money_country).toBeNull();
  });
});
