/** Checkout sessions on the mock (docs/service.md "Statuses", "Endpoints"), driven through the real client. */
import { NotFoundError } from 'payments-sdk';
import { MockServiceError } from 'payments-sdk/testing';
import { describe, expect, it } from 'vitest';
import { caught } from '../helpers/caught.js';
import { expectSigned, raw, setup } from '../helpers/mock-service.js';

const SESSION = {
  amount: 5000,
  currency: 'XOF',
  description: 'Order #1042',
  payer_email: 'awa@example.sn',
  success_url: 'http://localhost:3000/thanks',
  cancel_url: 'https://shop.example/cancel',
  metadata: { order_id: '1042', items: [1, 2] },
};

describe('POST /checkout-sessions', () => {
  it('answers 201 with a created session: reference, checkout_url, expires_at one hour later, metadata returned', async () => {
    const { mock, client } = setup({ now: '2026-03-01T09:30:00Z' });
    const { data: session, response } = await client.checkoutSessions.create(SESSION).withResponse();
    expect(response.status).toBe(201);
    expect(session).toEqual({
      reference: expect.stringMatching(/^[0-9A-HJKMNP-TV-Z]{26}$/),
      amount: 5000,
      currency: 'XOF',
      description: 'Order #1042',
      payer_name: null,
      payer_email: 'awa@example.sn',
      payer_phone: null,
      success_url: 'http://localhost:3000/thanks',
      cancel_url: 'https://shop.example/cancel',
      status: 'created',
      metadata: { order_id: '1042', items: [1, 2] },
      checkout_url: `${mock.baseUrl}/checkout/${session.reference}`,
      expires_at: '2026-03-01T10:30:00+00:00',
      created_at: '2026-03-01T09:30:00+00:00',
    });
    expect(await client.checkoutSessions.retrieve(session.reference)).toEqual(session);
  });

  it('checkoutBaseUrl gives checkout_url and payment link url their own origin (the hosted pages)', async () => {
    const { client } = setup({ checkoutBaseUrl: 'http://127.0.0.1:5050/' });
    const session = await client.checkoutSessions.create(SESSION);
    expect(session.checkout_url).toBe(`http://127.0.0.1:5050/checkout/${session.reference}`);
    const link = await client.paymentLinks.create({ title: 'Tea', currency: 'XOF', amount: 1000 });
    expect(link.url).toMatch(/^http:\/\/127\.0\.0\.1:5050\/pay\/[^/]+$/);
  });

  it('answers 422 naming every bad field (§4.4 rules)', async () => {
    const { mock } = setup();
    const { status, body } = await raw(mock, 'POST', '/checkout-sessions', {
      body: {
        amount: -1,
        description: 'd'.repeat(501),
        payer_name: 'n'.repeat(256),
        payer_email: 'not-an-email',
        payer_phone: '2'.repeat(21),
        success_url: 'javascript:alert(1)',
        cancel_url: `https://shop.example/${'c'.repeat(2048)}`,
        metadata: 'order 1042',
      },
    });
    expect(status).toBe(422);
    expect(Object.keys(body.errors).sort()).toEqual(
      ['amount', 'cancel_url', 'currency', 'description', 'metadata', 'payer_email', 'payer_name', 'payer_phone', 'success_url'].sort(),
    );
    expect(body.errors.currency).toEqual(['Le champ currency est obligatoire.']);
    expect(body.errors.success_url).toEqual(["Le format de l'URL de success_url n'est pas valide."]);
    expect(body.message).toMatch(/\(et 8 erreurs en plus\)$/);
  });

  it('answers 404 "Session de paiement introuvable." (§7) for an unknown reference', async () => {
    const { client } = setup();
    const error = await caught(client.checkoutSessions.retrieve('01JD3Z8Q4X5Y6Z7A8B9C0D1E2F'));
    expect(error).toBeInstanceOf(NotFoundError);
    expect(error.message).toBe('Session de paiement introuvable.');
    expect(error.body).toEqual({ message: 'Session de paiement introuvable.' });
  });
});

describe('paying a session', () => {
  it('paySession: a payment with checkout_session = reference, the session completed, payment.succeeded signed', async () => {
    const { mock, client } = setup();
    const session = await client.checkoutSessions.create(SESSION);
    const delivery = await mock.paySession(session.reference);
    const event = await expectSigned(delivery, mock.webhookSecret, 'payment.succeeded');
    expect(event.data).toMatchObject({
      checkout_session: session.reference,
      gross_amount: 5000,
      currency: 'XOF',
      status: 'succeeded',
      payment_method: 'mobile_money',
      mobile_money_country: 'SEN',
      mobile_money_provider: 'orange',
    });
    expect((await client.checkoutSessions.retrieve(session.reference)).status).toBe('completed');
    // §2.2: the session carries no payment field; its payment is found through GET /payments.
    expect(await client.checkoutSessions.findPayment(session.reference)).toEqual(event.data);
    expect(await client.wallets.list()).toEqual([{ currency: 'XOF', balance: 4900 }]);
  });

  it('a failed attempt leaves the session pending_payment; a second attempt can pay it', async () => {
    const { mock, client } = setup();
    const session = await client.checkoutSessions.create(SESSION);
    const failed = await expectSigned(
      await mock.paySession(session.reference, { outcome: 'failed', failure_reason: 'payer_declined' }),
      mock.webhookSecret,
      'payment.failed',
    );
    expect(failed.data).toMatchObject({ checkout_session: session.reference, status: 'failed', failure_reason: 'payer_declined' });
    expect((await client.checkoutSessions.retrieve(session.reference)).status).toBe('pending_payment');
    const paid = await mock.paySession(session.reference, { country: 'CIV', provider: 'wave' });
    expect(paid.event.data).toMatchObject({ status: 'succeeded', mobile_money_country: 'CIV', mobile_money_provider: 'wave' });
    const payments = await client.payments.list().toArray();
    expect(payments.map((p) => p.status)).toEqual(['succeeded', 'failed']);
    expect((await client.checkoutSessions.retrieve(session.reference)).status).toBe('completed');
  });

  it('startSessionPayment then settlePayment: pending first (session pending_payment), then completed', async () => {
    const { mock, client } = setup();
    const session = await client.checkoutSessions.create(SESSION);
    const pending = mock.startSessionPayment(session.reference);
    expect(pending).toMatchObject({ status: 'pending', checkout_session: session.reference });
    expect(mock.startSessionPayment(session.reference).uuid).toBe(pending.uuid);
    expect((await client.checkoutSessions.retrieve(session.reference)).status).toBe('pending_payment');
    expect(await client.payments.list({ status: 'pending' }).toArray()).toEqual([pending]);
    await mock.settlePayment(pending.uuid);
    expect((await client.checkoutSessions.retrieve(session.reference)).status).toBe('completed');
    await expect(mock.paySession(session.reference)).rejects.toThrow(/is completed/);
  });

  it('a card payment has no mobile-money country or operator (§2.1); a currency without a country needs one', async () => {
    const { mock, client } = setup();
    const eur = await client.checkoutSessions.create({ amount: 1999, currency: 'EUR' });
    await expect(mock.paySession(eur.reference)).rejects.toThrow(/pass \{ country, provider \}/);
    const delivery = await mock.paySession(eur.reference, { payment_method: 'card' });
    expect(delivery.event.data).toMatchObject({
      payment_method: 'card',
      mobile_money_country: null,
      mobile_money_provider: null,
      currency: 'EUR',
      gross_amount: 1999,
    });
  });
});

describe('ending a session without payment', () => {
  it('expires at expires_at on the mock clock', async () => {
    const { mock, client } = setup({ now: '2026-03-01T09:30:00Z', checkoutSessionTtlMs: 30 * 60_000 });
    const session = await client.checkoutSessions.create(SESSION);
    expect(session.expires_at).toBe('2026-03-01T10:00:00+00:00');
    mock.advance(30 * 60_000 - 1);
    expect((await client.checkoutSessions.retrieve(session.reference)).status).toBe('created');
    mock.advance(1);
    expect((await client.checkoutSessions.retrieve(session.reference)).status).toBe('expired');
    expect((await client.checkoutSessions.list({ status: 'expired' })).data.map((s) => s.reference)).toEqual([session.reference]);
    await expect(mock.paySession(session.reference)).rejects.toBeInstanceOf(MockServiceError);
  });

  it('expireSession and cancelSession resolve null (no event is documented for sessions)', async () => {
    const { mock, client } = setup({ now: '2026-03-01T09:30:00Z' });
    const a = await client.checkoutSessions.create(SESSION);
    const b = await client.checkoutSessions.create(SESSION);
    expect(await mock.expireSession(a.reference)).toBeNull();
    expect(await mock.cancelSession(b.reference)).toBeNull();
    expect(await client.checkoutSessions.retrieve(a.reference)).toMatchObject({
      status: 'expired',
      expires_at: '2026-03-01T09:30:00+00:00',
    });
    expect((await client.checkoutSessions.retrieve(b.reference)).status).toBe('cancelled');
    await expect(mock.cancelSession(a.reference)).rejects.toThrow(/is expired/);
    await expect(mock.expireSession('unknown')).rejects.toThrow(/No checkout session/);
    expect(mock.deliveries).toEqual([]);
  });
});
