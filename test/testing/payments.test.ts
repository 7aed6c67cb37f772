/** Direct charges on the mock (docs/service.md "Statuses", "Endpoints"), driven through the real client. */
import { InternalServerError, NotFoundError, UnprocessableEntityError } from 'payments-sdk';
import { createMockService, MockServiceError } from 'payments-sdk/testing';
import { describe, expect, it } from 'vitest';
import { caught } from '../helpers/caught.js';
import { chargeParams } from '../helpers/fixtures.js';
import { expectSigned, raw, setup } from '../helpers/mock-service.js';

describe('POST /payments: a direct charge', () => {
  it('answers 201 with a pending payment shaped as §2.1, fees by the default rule', async () => {
    const { mock, client } = setup({ now: '2026-03-01T09:30:00Z' });
    const {
      data: payment,
      response,
      replayed,
    } = await client.payments.create({ ...chargeParams, payer_name: 'Awa', description: 'Order 7' }).withResponse();
    expect(response.status).toBe(201);
    expect(replayed).toBe(false);
    expect(payment).toEqual({
      uuid: expect.stringMatching(/^[0-9a-f-]{36}$/),
      checkout_session: null,
      gross_amount: 5000,
      psp_fee_amount: 75,
      platform_fee_amount: 25,
      net_amount_to_merchant: 4900,
      currency: 'XOF',
      payment_method: 'mobile_money',
      mobile_money_country: 'SEN',
      mobile_money_provider: 'orange',
      psp_reference: expect.stringMatching(/^[0-9a-f-]{36}$/),
      status: 'pending',
      failure_reason: null,
      created_at: '2026-03-01T09:30:00+00:00',
    });
    expect(await client.payments.retrieve(payment.uuid)).toEqual(payment);
    expect(mock.getPayment(payment.uuid)?.status).toBe('pending');
  });

  it('answers 404 with the French message for an unknown payment', async () => {
    const { client } = setup();
    const error = await caught(client.payments.retrieve('00000000-0000-4000-8000-000000000000'));
    expect(error).toBeInstanceOf(NotFoundError);
    expect(error.status).toBe(404);
    expect(error.message).toBe('Paiement introuvable.');
  });

  it('answers 422 naming every bad field, with Laravel-style messages', async () => {
    const { mock } = setup();
    const { status, body } = await raw(mock, 'POST', '/payments', {
      body: {
        currency: 'xof',
        country: 'SN',
        provider: 'orange',
        phone: '+221771234567',
        payer_email: 'awa@',
        payer_name: 'x'.repeat(256),
        description: 'd'.repeat(501),
      },
    });
    expect(status).toBe(422);
    expect(Object.keys(body.errors).sort()).toEqual(['amount', 'country', 'currency', 'description', 'payer_email', 'payer_name', 'phone']);
    expect(body.errors.amount).toEqual(['Le champ amount est obligatoire.']);
    expect(body.errors.description).toEqual(['Le texte de description ne peut contenir plus de 500 caractères.']);
    expect(body.message).toBe('Le champ amount est obligatoire. (et 6 erreurs en plus)');
  });

  it('refuses an amount that is not an integer ≥ 1 (money is never a float)', async () => {
    const { mock } = setup();
    for (const [amount, message] of [
      [10.5, 'Le champ amount doit être un entier.'],
      ['5000', 'Le champ amount doit être un entier.'],
      [0, 'La valeur de amount doit être supérieure ou égale à 1.'],
    ] as const) {
      const { status, body } = await raw(mock, 'POST', '/payments', { body: { ...chargeParams, amount } });
      expect(status).toBe(422);
      expect(body).toEqual({ message, errors: { amount: [message] } });
    }
  });

  it('answers 422 for an unknown country, an operator of another country, and a phone without the calling code', async () => {
    const { client } = setup();
    const country = await caught(client.payments.create({ ...chargeParams, country: 'FRA' }));
    expect(country).toBeInstanceOf(UnprocessableEntityError);
    expect(Object.keys(country.errors)).toEqual(['country']);
    const provider = await caught(client.payments.create({ ...chargeParams, provider: 'mpesa' }));
    expect(provider.errors).toEqual({ provider: ["L'opérateur mpesa n'est pas disponible pour SEN."] });
    const phone = await caught(client.payments.create({ ...chargeParams, phone: '225771234567' }));
    expect(Object.keys(phone.errors)).toEqual(['phone']);
    const short = await caught(client.payments.create({ ...chargeParams, phone: '2217712' }));
    expect(Object.keys(short.errors)).toEqual(['phone']);
    expect((await client.payments.list()).meta.total).toBe(0);
  });
});

describe('currency conversion (§4.1)', () => {
  it('charges in the operator currency: currency and gross_amount are the converted ones, fees on them', async () => {
    const { client } = setup();
    // 10.00 EUR at the CFA peg 655.957 = 6559.57 XOF, rounded to the unit (XOF has no decimals).
    const eur = await client.payments.create({ ...chargeParams, amount: 1000, currency: 'EUR' });
    expect(eur).toMatchObject({
      currency: 'XOF',
      gross_amount: 6560,
      psp_fee_amount: 98,
      platform_fee_amount: 33,
      net_amount_to_merchant: 6429,
    });
    // 10.00 USD → 150.00 GHS = 15000 pesewas: both exponents are 2.
    const ghs = await client.payments.create({
      ...chargeParams,
      amount: 1000,
      currency: 'USD',
      country: 'GHA',
      provider: 'mtn',
      phone: '233241234567',
    });
    expect(ghs).toMatchObject({ currency: 'GHS', gross_amount: 15000 });
  });

  it('uses the inverse of a pair when only the other direction is in the table', async () => {
    const { client } = setup({ rates: { 'XOF/EUR': 0.002 } });
    const payment = await client.payments.create({ ...chargeParams, amount: 1000, currency: 'EUR' });
    expect(payment).toMatchObject({ currency: 'XOF', gross_amount: 5000 });
  });

  it('answers 422 on currency when no rate exists', async () => {
    const { client } = setup();
    const error = await caught(client.payments.create({ ...chargeParams, currency: 'JPY' }));
    expect(error).toBeInstanceOf(UnprocessableEntityError);
    expect(error.errors).toEqual({ currency: ["La devise JPY ne peut pas être convertie en XOF, la devise de l'opérateur."] });
    const none = setup({ rates: {} });
    expect((await caught(none.client.payments.create({ ...chargeParams, currency: 'EUR' }))).errors.currency).toHaveLength(1);
    expect(await none.client.payments.create(chargeParams)).toMatchObject({ currency: 'XOF', gross_amount: 5000 });
  });
});

describe('refused charges (§4.1, §7)', () => {
  it('answers 422 with failure_reason for the magic numbers, and creates nothing', async () => {
    const { client } = setup();
    for (const [tail, reason] of [
      ['000001', 'insufficient_funds'],
      ['000002', 'payer_declined'],
      ['000003', 'account_blocked'],
    ]) {
      const error = await caught(client.payments.create({ ...chargeParams, phone: `221770${tail}` }));
      expect(error).toBeInstanceOf(UnprocessableEntityError);
      expect(error.failureReason).toBe(reason);
      expect(error.body).toEqual({ message: 'Le paiement a été refusé.', failure_reason: reason });
    }
    expect((await client.payments.list()).meta.total).toBe(0);
  });

  it('takes a refusal rule of its own', async () => {
    const { client } = setup({ refuseCharge: (charge) => (charge.amount > 100_000 ? 'amount_limit_exceeded' : null) });
    expect((await caught(client.payments.create({ ...chargeParams, amount: 100_001 }))).failureReason).toBe('amount_limit_exceeded');
    expect((await client.payments.create({ ...chargeParams, phone: '221770000001' })).status).toBe('pending');
  });
});

describe('fee rule', () => {
  it('takes rates or a function; net = gross − psp fee − platform fee', async () => {
    const rates = setup({ fees: { psp: 0.02, platform: 0 } });
    expect(await rates.client.payments.create({ ...chargeParams, amount: 1234 })).toMatchObject({
      psp_fee_amount: 25,
      platform_fee_amount: 0,
      net_amount_to_merchant: 1209,
    });
    const fn = setup({
      fees: ({ gross_amount, channel }) => ({
        psp_fee_amount: 100,
        platform_fee_amount: channel === 'direct' ? Math.floor(gross_amount / 100) : 0,
      }),
    });
    expect(await fn.client.payments.create(chargeParams)).toMatchObject({
      psp_fee_amount: 100,
      platform_fee_amount: 50,
      net_amount_to_merchant: 4850,
    });
  });

  it('refuses a broken rule: at construction for rates, with a 500 naming the problem for a function', async () => {
    expect(() => createMockService({ fees: { psp: 0.8, platform: 0.3 } })).toThrow(MockServiceError);
    const { client } = setup({ fees: () => ({ psp_fee_amount: 1.5, platform_fee_amount: 0 }) });
    const error = await caught(client.payments.create(chargeParams));
    expect(error).toBeInstanceOf(InternalServerError);
    expect(error.message).toMatch(/fee rule returned/);
  });
});

describe('settling and failing (§3.1, §6)', () => {
  it('settlePayment: succeeded, net credited to the wallet, a signed payment.succeeded delivery', async () => {
    const { mock, client } = setup();
    const payment = await client.payments.create(chargeParams);
    const delivery = await mock.settlePayment(payment.uuid);
    const event = await expectSigned(delivery, mock.webhookSecret, 'payment.succeeded');
    expect(event.id).toMatch(/^evt_[0-9A-Z]{26}$/);
    expect(event.data).toEqual({ ...payment, status: 'succeeded' });
    expect(await client.payments.retrieve(payment.uuid)).toMatchObject({ status: 'succeeded', failure_reason: null });
    expect(await client.wallets.list()).toEqual([{ currency: 'XOF', balance: 4900 }]);
    expect(mock.deliveries).toEqual([delivery]);
  });

  it('failPayment: failed with failure_reason, a signed payment.failed delivery, nothing credited', async () => {
    const { mock, client } = setup();
    const a = await client.payments.create(chargeParams);
    const b = await client.payments.create(chargeParams);
    const first = await expectSigned(await mock.failPayment(a.uuid), mock.webhookSecret, 'payment.failed');
    expect(first.data).toMatchObject({ uuid: a.uuid, status: 'failed', failure_reason: 'declined' });
    const second = await expectSigned(await mock.failPayment(b.uuid, 'timeout'), mock.webhookSecret, 'payment.failed');
    expect(second.data.failure_reason).toBe('timeout');
    expect(await client.payments.retrieve(b.uuid)).toMatchObject({ status: 'failed', failure_reason: 'timeout' });
    expect(await client.wallets.list()).toEqual([]);
  });

  it('decides a payment only once, and only a known one', async () => {
    const { mock, client } = setup();
    const payment = await client.payments.create(chargeParams);
    await mock.settlePayment(payment.uuid);
    await expect(mock.settlePayment(payment.uuid)).rejects.toThrow(/is succeeded: only a pending payment/);
    await expect(mock.failPayment(payment.uuid)).rejects.toBeInstanceOf(MockServiceError);
    await expect(mock.settlePayment('nope')).rejects.toThrow(/No payment "nope"/);
  });

  it('signs with the webhookSecret given in the options', async () => {
    const { mock, client } = setup({ webhookSecret: 'whsec_given_for_this_test' });
    expect(mock.webhookSecret).toBe('whsec_given_for_this_test');
    const payment = await client.payments.create(chargeParams);
    await expectSigned(await mock.settlePayment(payment.uuid), 'whsec_given_for_this_test', 'payment.succeeded');
  });
});
