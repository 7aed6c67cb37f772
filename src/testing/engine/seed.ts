/** Seeding: resources added straight into a partition, with what is missing filled in as the service would. */

import type { Payout } from '../../schemas/payout.js';
import { isoWithOffset, uuid } from '../ids.js';
import { MockServiceError } from '../mock-errors.js';
import type { MockSeed } from '../options.js';
import { toMs } from './clock.js';
import { NO_PAYER_OR_RETURN_URLS, newLink, newPayment, newSession, payerFor, storePayout } from './creations.js';
import type { Partition } from './model.js';
import type { EngineState } from './state.js';

/** Adds the seed's wallets, checkout sessions, payments, payouts and payment links to `partition`. */
export function applySeed(state: EngineState, partition: Partition, seed: MockSeed): void {
  for (const w of seed.wallets ?? []) {
    if (typeof w.currency !== 'string' || !Number.isSafeInteger(w.balance))
      throw new MockServiceError('seed.wallets: each needs { currency, balance } with an integer balance.');
    partition.wallets.set(w.currency, { ...structuredClone(w) });
  }
  for (const s of seed.checkoutSessions ?? []) {
    const createdMs = s.created_at ? toMs(s.created_at, 'seed checkout_session.created_at') : state.clock.now();
    newSession(
      state,
      partition,
      {
        amount: 5000,
        currency: 'XOF',
        description: null,
        ...NO_PAYER_OR_RETURN_URLS,
        metadata: {},
        ...structuredClone(s),
      },
      createdMs,
    );
  }
  for (const raw of seed.payments ?? []) {
    const s = structuredClone(raw);
    const createdMs = s.created_at ? toMs(s.created_at, 'seed payment.created_at') : state.clock.now();
    const currency = s.currency ?? 'XOF';
    const method = s.payment_method ?? 'mobile_money';
    const payer =
      method === 'mobile_money' && s.mobile_money_country === undefined
        ? payerFor(state, currency, { provider: s.mobile_money_provider ?? undefined })
        : undefined;
    const {
      uuid: id,
      gross_amount,
      psp_fee_amount,
      platform_fee_amount,
      net_amount_to_merchant: _net,
      checkout_session,
      mobile_money_country,
      mobile_money_provider,
      psp_reference,
      status,
      failure_reason,
      created_at: _created,
      payment_method: _method,
      currency: _currency,
      ...extra
    } = s;
    newPayment(state, partition, {
      uuid: id,
      gross: gross_amount ?? 5000,
      currency,
      country: payer ? payer.country : (mobile_money_country ?? null),
      provider: payer ? payer.provider : (mobile_money_provider ?? null),
      method,
      session: checkout_session ?? null,
      channel: checkout_session ? 'checkout' : 'direct',
      status: status ?? 'succeeded',
      failure_reason: failure_reason ?? null,
      createdMs,
      fees: {
        ...(psp_fee_amount !== undefined ? { psp_fee_amount } : {}),
        ...(platform_fee_amount !== undefined ? { platform_fee_amount } : {}),
      },
      ...(psp_reference ? { psp_reference } : {}),
      extra,
    });
  }
  for (const raw of seed.payouts ?? []) {
    const s = structuredClone(raw);
    const createdMs = s.created_at ? toMs(String(s.created_at), 'seed payout.created_at') : state.clock.now();
    const payout: Payout = {
      id: uuid(),
      amount: 1000,
      currency: 'XOF',
      status: 'completed',
      destination: { type: 'mobile_money' },
      failure_reason: null,
      updated_at: isoWithOffset(createdMs),
      ...s,
      created_at: isoWithOffset(createdMs),
    };
    storePayout(state, partition, payout, createdMs);
  }
  for (const raw of seed.paymentLinks ?? []) {
    const s = structuredClone(raw);
    const createdMs = s.created_at ? toMs(String(s.created_at), 'seed payment_link.created_at') : state.clock.now();
    newLink(state, partition, { ...s, title: s.title ?? 'Lien', currency: s.currency ?? 'XOF' }, createdMs);
  }
}
