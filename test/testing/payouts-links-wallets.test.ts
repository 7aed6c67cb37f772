/** Payouts, payment links and wallets on the mock (docs/service.md "Money and records", "Endpoints"). */
import { NotFoundError, UnprocessableEntityError } from 'payments-sdk';
import { MockServiceError } from 'payments-sdk/testing';
import { describe, expect, it } from 'vitest';
import { LINK_UNAVAILABLE } from '../../src/testing/engine/actions.js';
import { caught } from '../helpers/caught.js';
import { expectSigned, raw, setup } from '../helpers/mock-service.js';

const DESTINATION = { type: 'mobile_money', country: 'SEN', provider: 'wave', phone: '221781234567' };
const PAYOUT = { amount: 3000, currency: 'XOF', destination: DESTINATION };

function withBalance(balance = 10_000) {
  const s = setup({ now: '2026-03-01T09:30:00Z' });
  s.mock.seed({ wallets: [{ currency: 'XOF', balance }] }, { apiKey: s.mock.liveApiKey });
  return s;
}

describe('payouts', () => {
  it('creates a payout awaiting approval, reserving its amount; reads give the same structure', async () => {
    const { live } = withBalance();
    const { data: payout, response } = await live.payouts.create(PAYOUT).withResponse();
    expect(response.status).toBe(201);
    expect(payout).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      amount: 3000,
      currency: 'XOF',
      status: 'pending_approval',
      destination: DESTINATION,
      failure_reason: null,
      created_at: '2026-03-01T09:30:00+00:00',
      updated_at: '2026-03-01T09:30:00+00:00',
    });
    expect(await live.payouts.retrieve(String(payout.id))).toEqual(payout);
    expect((await live.payouts.list()).data).toEqual([payout]);
    expect(await live.wallets.list()).toEqual([{ currency: 'XOF', balance: 7000 }]);
    const missing = await caught(live.payouts.retrieve('00000000-0000-4000-8000-000000000000'));
    expect(missing).toBeInstanceOf(NotFoundError);
    expect(missing.message).toBe('Versement introuvable.');
  });

  it('answers 422 naming every bad field of the body and of the destination', async () => {
    const { mock } = withBalance();
    const key = mock.liveApiKey;
    const bad = await raw(mock, 'POST', '/payouts', {
      key,
      body: { amount: 1.5, destination: { type: 'mobile_money', country: 'SEN', provider: 'mtn', phone: '22177' } },
    });
    expect(bad.status).toBe(422);
    expect(Object.keys(bad.body.errors).sort()).toEqual(['amount', 'currency', 'destination.phone', 'destination.provider']);
    const type = await raw(mock, 'POST', '/payouts', { key, body: { ...PAYOUT, destination: { type: 'bank_account' } } });
    expect(type.body.errors).toEqual({ 'destination.type': ['La valeur sélectionnée pour destination.type est invalide.'] });
    const none = await raw(mock, 'POST', '/payouts', { key, body: { amount: 100, currency: 'XOF' } });
    expect(none.body.errors).toEqual({ destination: ['Le champ destination est obligatoire.'] });
    const currency = await raw(mock, 'POST', '/payouts', { key, body: { ...PAYOUT, currency: 'GHS' } });
    expect(currency.body.errors).toEqual({ currency: ['La devise doit être celle du pays de destination (XOF).'] });
  });

  it('refuses a payout above the wallet balance (checkPayoutBalance: false turns it off)', async () => {
    const { live } = withBalance(2999);
    const error = await caught(live.payouts.create(PAYOUT));
    expect(error).toBeInstanceOf(UnprocessableEntityError);
    expect(Object.keys(error.errors)).toEqual(['amount']);
    const free = setup({ checkPayoutBalance: false });
    expect((await free.live.payouts.create(PAYOUT)).status).toBe('pending_approval');
  });

  it('moves along pending_approval → approved → processing → completed, one signed payout.* delivery per step', async () => {
    const { mock, live } = withBalance();
    const payout = await live.payouts.create(PAYOUT);
    const id = String(payout.id);
    const approved = await expectSigned(await mock.advancePayout(id), mock.webhookSecret, 'payout.approved');
    expect(approved.data).toMatchObject({ id, status: 'approved' });
    mock.advance(60_000);
    const completed = await mock.completePayout(id);
    // Like every action, it resolves to one delivery: the last step's. The step before is in mock.deliveries.
    await expectSigned(completed, mock.webhookSecret, 'payout.completed');
    expect(mock.deliveries.slice(-2).map((d) => d.event.type)).toEqual(['payout.processing', 'payout.completed']);
    expect(await live.payouts.retrieve(id)).toMatchObject({ status: 'completed', updated_at: '2026-03-01T09:31:00+00:00' });
    await expect(mock.advancePayout(id)).rejects.toThrow(/final state/);
    expect(await live.wallets.list()).toEqual([{ currency: 'XOF', balance: 7000 }]);
  });

  it('a rejected or failed payout carries failure_reason and gives the amount back', async () => {
    const { mock, live } = withBalance();
    const a = String((await live.payouts.create(PAYOUT)).id);
    const b = String((await live.payouts.create(PAYOUT)).id);
    expect(await live.wallets.list()).toEqual([{ currency: 'XOF', balance: 4000 }]);
    const rejected = await expectSigned(await mock.advancePayout(a, { to: 'rejected' }), mock.webhookSecret, 'payout.rejected');
    expect(rejected.data).toMatchObject({ status: 'rejected', failure_reason: 'rejected_by_reviewer' });
    await mock.advancePayout(b);
    await expect(mock.advancePayout(b, { to: 'completed' })).rejects.toBeInstanceOf(MockServiceError);
    const failed = await mock.advancePayout(b, { to: 'failed', failure_reason: 'invalid_wallet' });
    expect(failed.event.data).toMatchObject({ status: 'failed', failure_reason: 'invalid_wallet' });
    expect(await live.wallets.list()).toEqual([{ currency: 'XOF', balance: 10_000 }]);
    await expect(mock.advancePayout('nope')).rejects.toThrow(/No payout/);
  });
});

describe('payment links', () => {
  it('creates a link with a url to share; reads give the same structure; 422 and 404', async () => {
    const { mock, client } = setup({ now: '2026-03-01T09:30:00Z' });
    const link = await client.paymentLinks.create({ title: 'T-shirt', currency: 'XOF', amount: 7500 });
    expect(link).toEqual({
      uuid: expect.stringMatching(/^[0-9a-f-]{36}$/),
      slug: expect.stringMatching(/^[a-z2-9]{10}$/),
      url: `${mock.baseUrl}/pay/${link.slug}`,
      title: 'T-shirt',
      currency: 'XOF',
      amount: 7500,
      minimum_amount: null,
      status: 'active',
      created_at: '2026-03-01T09:30:00+00:00',
    });
    expect(await client.paymentLinks.retrieve(link.uuid)).toEqual(link);
    const bad = await raw(mock, 'POST', '/payment-links', { body: { amount: 0 } });
    expect(Object.keys(bad.body.errors).sort()).toEqual(['amount', 'currency', 'title']);
    expect((await caught(client.paymentLinks.retrieve('nope'))).message).toBe('Lien de paiement introuvable.');
  });

  it('a payment through a link appears in GET /payments with the checkout_session reference of its session (§4.8)', async () => {
    const { mock, client } = setup();
    const link = await client.paymentLinks.create({ title: 'T-shirt', currency: 'XOF', amount: 7500 });
    const delivery = await mock.payPaymentLink(link.uuid);
    const event = await expectSigned(delivery, mock.webhookSecret, 'payment.succeeded');
    expect(event.data).toMatchObject({ gross_amount: 7500, currency: 'XOF', status: 'succeeded', checkout_session: expect.any(String) });
    const [listed] = (await client.payments.list()).data;
    expect(listed).toEqual(event.data);
    const session = await client.checkoutSessions.retrieve(event.data.checkout_session);
    expect(session).toMatchObject({ amount: 7500, status: 'completed', description: 'T-shirt', metadata: { payment_link: link.uuid } });
    expect(await client.checkoutSessions.findPayment(session.reference)).toEqual(event.data);
    // A link is reusable: a second customer pays it too, by slug or by url.
    await mock.payPaymentLink(String(link.slug));
    await mock.payPaymentLink(link.url, { outcome: 'failed', failure_reason: 'timeout' });
    expect((await client.payments.list()).data.map((p) => p.status)).toEqual(['failed', 'succeeded', 'succeeded']);
  });

  it('customer-chosen amounts: required, and refused below minimum_amount with an error on amount', async () => {
    const { mock, client } = setup();
    const link = await client.paymentLinks.create({ title: 'Donation', currency: 'XOF', minimum_amount: 1000 });
    expect(link).toMatchObject({ amount: null, minimum_amount: 1000 });
    const below = await caught(mock.payPaymentLink(link.uuid, { amount: 999 }));
    expect(below).toBeInstanceOf(MockServiceError);
    expect(below.errors).toEqual({ amount: ['La valeur de amount doit être supérieure ou égale à 1000.'] });
    expect((await caught(mock.payPaymentLink(link.uuid))).errors.amount).toEqual(['Le champ amount est obligatoire.']);
    expect((await mock.payPaymentLink(link.uuid, { amount: 2500 })).event.data.gross_amount).toBe(2500);
    const fixed = await client.paymentLinks.create({ title: 'Tee', currency: 'XOF', amount: 7500 });
    expect((await caught(mock.payPaymentLink(fixed.uuid, { amount: 100 }))).errors.amount).toHaveLength(1);
    expect((await client.payments.list()).meta.total).toBe(1);
  });

  it('a deactivated or expired link, or a wrong slug, is "no longer available" (§7); reactivated it works again', async () => {
    const { mock, client } = setup();
    const link = await client.paymentLinks.create({ title: 'Tee', currency: 'XOF', amount: 7500 });
    expect(mock.setPaymentLinkStatus(link.uuid, 'deactivated').status).toBe('deactivated');
    expect((await client.paymentLinks.retrieve(link.uuid)).status).toBe('deactivated');
    await expect(mock.payPaymentLink(link.uuid)).rejects.toThrow(LINK_UNAVAILABLE);
    mock.setPaymentLinkStatus(link.uuid, 'expired');
    await expect(mock.payPaymentLink(link.uuid)).rejects.toThrow("Ce lien de paiement n'est plus disponible.");
    await expect(mock.payPaymentLink('wrong-slug')).rejects.toThrow(LINK_UNAVAILABLE);
    mock.setPaymentLinkStatus(link.uuid, 'active');
    expect((await mock.payPaymentLink(link.uuid)).event.type).toBe('payment.succeeded');
    expect((await client.paymentLinks.list({ status: 'active' })).data).toHaveLength(1);
  });
});

describe('wallets (§4.9)', () => {
  it('lists balances, not paginated: seeded, credited by succeeded payments in their currency', async () => {
    const { mock, client } = setup({ seed: { wallets: [{ currency: 'GHS', balance: 120_00 }] } });
    const session = await client.checkoutSessions.create({ amount: 10_000, currency: 'XOF' });
    await mock.paySession(session.reference);
    const { body } = await raw(mock, 'GET', '/wallets');
    expect(body).toEqual({
      data: [
        { currency: 'GHS', balance: 12_000 },
        { currency: 'XOF', balance: 9_800 },
      ],
    });
    expect(await client.wallets.list()).toEqual(body.data);
  });
});

describe("every delivery passes the SDK's own verifyWebhook", () => {
  it('payment.succeeded, payment.failed and each payout.* event verify and come back typed', async () => {
    const { verifyWebhook } = await import('payments-sdk/webhooks');
    const { mock, client, live } = withBalance();
    const a = await client.payments.create({ amount: 5000, currency: 'XOF', country: 'SEN', provider: 'orange', phone: '221771234567' });
    const b = await client.payments.create({ amount: 5000, currency: 'XOF', country: 'SEN', provider: 'orange', phone: '221771234567' });
    const p1 = String((await live.payouts.create(PAYOUT)).id);
    const p2 = String((await live.payouts.create(PAYOUT)).id);
    const deliveries = [
      await mock.settlePayment(a.uuid),
      await mock.failPayment(b.uuid, 'timeout'),
      await mock.advancePayout(p1),
      await mock.advancePayout(p1),
      await mock.completePayout(p1),
      await mock.advancePayout(p2, { to: 'rejected' }),
    ];
    const types: string[] = [];
    for (const delivery of deliveries) {
      const event = await verifyWebhook({ payload: delivery.body, headers: delivery.headers, secret: mock.webhookSecret });
      expect(event).toEqual(delivery.event);
      types.push(event.type);
    }
    expect(types).toEqual([
      'payment.succeeded',
      'payment.failed',
      'payout.approved',
      'payout.processing',
      'payout.completed',
      'payout.rejected',
    ]);
    await expect(
      verifyWebhook({ payload: deliveries[0]?.body ?? '', headers: deliveries[0]?.headers, secret: 'whsec_other' }),
    ).rejects.toMatchObject({
      reason: 'signature_mismatch',
    });
  });
});
