/** Keys, merchants and modes on the mock (docs/service.md "Keys, modes and errors"): 401, KYC and suspension 403, payouts live only, 404 across merchants. */
import { inspect } from 'node:util';
import { AuthenticationError, NotFoundError, PermissionDeniedError } from 'payments-sdk';
import { createMockService, MockServiceError } from 'payments-sdk/testing';
import { describe, expect, it } from 'vitest';
import { caught } from '../helpers/caught.js';
import { chargeParams } from '../helpers/fixtures.js';
import { clientFor, raw } from '../helpers/mock-service.js';

const PAYOUT = {
  amount: 1000,
  currency: 'XOF',
  destination: { type: 'mobile_money', country: 'SEN', provider: 'orange', phone: '221771234567' },
};

function twoMerchants() {
  return createMockService({
    merchants: [
      { id: 'shop', keys: ['sk_test_shop', 'sk_live_shop'] },
      { id: 'other', keys: ['sk_test_other', 'sk_live_other'] },
    ],
  });
}

describe('401 (§5.1)', () => {
  it('answers a missing Authorization, an unknown key and a malformed header with 401, never echoing the key', async () => {
    const mock = createMockService();
    expect(await raw(mock, 'GET', '/payments', { key: null })).toMatchObject({ status: 401, body: { message: 'Unauthenticated.' } });
    expect((await raw(mock, 'GET', '/payments', { headers: { Authorization: `Basic ${mock.apiKey}` }, key: null })).status).toBe(401);
    const error = await caught(clientFor(mock, 'sk_test_not_a_key_of_this_mock').payments.list());
    expect(error).toBeInstanceOf(AuthenticationError);
    expect(JSON.stringify(error.body)).not.toContain('sk_test_not_a_key_of_this_mock');
  });

  it('default keys: a sandbox key and a live key of one approved merchant', () => {
    const mock = createMockService();
    expect(mock.keys.map((k) => [k.mode, k.merchant])).toEqual([
      ['sandbox', 'merchant_1'],
      ['live', 'merchant_1'],
    ]);
    expect(mock.apiKey).toMatch(/^sk_test_mock_[0-9a-f]{24}$/);
    expect(mock.liveApiKey).toMatch(/^sk_live_mock_[0-9a-f]{24}$/);
    expect(clientFor(mock).mode).toBe('sandbox');
    expect(clientFor(mock, mock.liveApiKey).mode).toBe('live');
  });
});

describe('403 (§5.3, §5.4)', () => {
  it('a live key needs approved KYC; the sandbox key of the same merchant works', async () => {
    const mock = createMockService({ merchants: [{ id: 'shop', kyc: 'pending', keys: ['sk_test_shop', 'sk_live_shop'] }] });
    const live = clientFor(mock, 'sk_live_shop');
    const error = await caught(live.payments.create(chargeParams));
    expect(error).toBeInstanceOf(PermissionDeniedError);
    expect(error.message).toBe('Votre KYC doit être approuvé pour utiliser une clé live.');
    expect(await caught(live.checkoutSessions.list())).toBeInstanceOf(PermissionDeniedError);
    expect((await clientFor(mock, 'sk_test_shop').payments.create(chargeParams)).status).toBe('pending');
    mock.setMerchant('shop', { kyc: 'approved' });
    expect((await live.payments.create(chargeParams)).status).toBe('pending');
    mock.setMerchant('shop', { kyc: 'rejected' });
    expect(await caught(live.wallets.list())).toBeInstanceOf(PermissionDeniedError);
  });

  it('a suspended merchant gets 403 with every key', async () => {
    const mock = createMockService({ merchants: [{ id: 'shop', suspended: true, keys: ['sk_test_shop', 'sk_live_shop'] }] });
    for (const key of ['sk_test_shop', 'sk_live_shop']) {
      const error = await caught(clientFor(mock, key).payments.list());
      expect(error).toBeInstanceOf(PermissionDeniedError);
      expect(error.message).toBe('Ce compte marchand est suspendu.');
    }
    mock.setMerchant('shop', { suspended: false });
    expect((await clientFor(mock, 'sk_test_shop').payments.list()).data).toEqual([]);
    expect(() => mock.setMerchant('nobody', { suspended: true })).toThrow(MockServiceError);
  });

  it('payouts are for live keys only: a sandbox key gets 403', async () => {
    const mock = createMockService();
    mock.seed({ wallets: [{ currency: 'XOF', balance: 10_000 }] }, { apiKey: mock.liveApiKey });
    const error = await caught(clientFor(mock).payouts.create(PAYOUT));
    expect(error).toBeInstanceOf(PermissionDeniedError);
    expect(error.idempotencyKey).toEqual(expect.any(String));
    expect((await clientFor(mock, mock.liveApiKey).payouts.create(PAYOUT)).status).toBe('pending_approval');
  });
});

describe('another merchant (§5.5) and the other mode', () => {
  it("answers another merchant's payment, session, payout and link with 404, and lists only one's own", async () => {
    const mock = twoMerchants();
    mock.seed({ wallets: [{ currency: 'XOF', balance: 10_000 }] }, { apiKey: 'sk_live_other' });
    const other = clientFor(mock, 'sk_test_other');
    const otherLive = clientFor(mock, 'sk_live_other');
    const payment = await other.payments.create(chargeParams);
    const session = await other.checkoutSessions.create({ amount: 100, currency: 'XOF' });
    const link = await other.paymentLinks.create({ title: 'Tee', currency: 'XOF', amount: 5000 });
    const payout = await otherLive.payouts.create(PAYOUT);

    const shop = clientFor(mock, 'sk_test_shop');
    const shopLive = clientFor(mock, 'sk_live_shop');
    expect(await caught(shop.payments.retrieve(payment.uuid))).toBeInstanceOf(NotFoundError);
    expect((await caught(shop.checkoutSessions.retrieve(session.reference))).message).toBe('Session de paiement introuvable.');
    expect((await caught(shop.paymentLinks.retrieve(link.uuid))).message).toBe('Lien de paiement introuvable.');
    expect((await caught(shopLive.payouts.retrieve(String(payout.id)))).message).toBe('Versement introuvable.');
    expect((await shop.payments.list()).meta.total).toBe(0);
    expect((await shopLive.payouts.list()).meta.total).toBe(0);
    // Sandbox and live data are separate, as with any payment service.
    expect(await caught(otherLive.payments.retrieve(payment.uuid))).toBeInstanceOf(NotFoundError);
    expect((await other.payments.retrieve(payment.uuid)).uuid).toBe(payment.uuid);
  });
});

describe('key options', () => {
  it('takes a mode for a key whose text says neither live nor test, and refuses ambiguous or repeated keys', async () => {
    const mock = createMockService({ merchants: [{ keys: [{ key: 'pk_abc123', mode: 'live' }, 'sk_sandbox_1'] }] });
    expect(mock.keys.map((k) => k.mode)).toEqual(['live', 'sandbox']);
    expect(mock.apiKey).toBe('sk_sandbox_1');
    expect(mock.liveApiKey).toBe('pk_abc123');
    expect((await raw(mock, 'GET', '/wallets', { key: 'pk_abc123' })).status).toBe(200);
    expect(() => createMockService({ merchants: [{ keys: ['pk_abc123'] }] })).toThrow(/needs \{ key, mode \}/);
    expect(() => createMockService({ merchants: [{ keys: ['sk_test_1'] }, { keys: ['sk_test_1'] }] })).toThrow(/configured twice/);
    expect(() => createMockService({ merchants: [] })).toThrow(MockServiceError);
  });

  it('keeps keys and the webhook secret out of util.inspect and JSON.stringify', () => {
    const mock = createMockService({ webhookSecret: 'whsec_do_not_print' });
    for (const text of [inspect(mock, { depth: 5 }), JSON.stringify(mock), String(mock)]) {
      expect(text).not.toContain(mock.apiKey);
      expect(text).not.toContain(String(mock.liveApiKey));
      expect(text).not.toContain('whsec_do_not_print');
    }
    expect(inspect(mock)).toContain('https://mock.payments.test');
  });
});
