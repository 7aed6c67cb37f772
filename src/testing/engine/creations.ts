/**
 * Creating resources: the four `POST` endpoints with the service's validation, and the builders that
 * fill in what the service fills in (ids, fees, URLs, timestamps), which the actions and the seed
 * use too.
 */

import { isRecord } from '../../internal/is-record.js';
import { currencyExponent } from '../../money.js';
import type { CheckoutSession } from '../../schemas/checkout-session.js';
import type { Payment } from '../../schemas/payment.js';
import type { PaymentLink } from '../../schemas/payment-link.js';
import type { Payout } from '../../schemas/payout.js';
import { addError, type FieldErrors, isEmpty, isGiven, mergeErrors, validateFields, validationBody } from '../field-rules.js';
import { isoWithOffset, slug, ulid, uuid } from '../ids.js';
import { HttpAnswer, MockServiceError } from '../mock-errors.js';
import type { MockChargeInput, MockCountry, MockFeeInput, MockFees } from '../options.js';
import type { MockPayerOptions, Partition, Stored, StoredPayment } from './model.js';
import type { EngineState } from './state.js';

/** What a new session needs; the rest (reference, status, URLs, timestamps) is filled in. */
export type SessionFields = Partial<CheckoutSession> &
  Pick<
    CheckoutSession,
    'amount' | 'currency' | 'description' | 'payer_name' | 'payer_email' | 'payer_phone' | 'success_url' | 'cancel_url' | 'metadata'
  >;

/** A session made by the mock itself (a seed, a payment link) has no payer details and no return URLs. */
export const NO_PAYER_OR_RETURN_URLS = {
  payer_name: null,
  payer_email: null,
  payer_phone: null,
  success_url: null,
  cancel_url: null,
} as const;

/** What a new payment needs; fees, net amount, ids and timestamp are filled in unless given. */
export interface PaymentSpec {
  gross: number;
  currency: string;
  country: string | null;
  provider: string | null;
  method: string;
  session: string | null;
  channel: MockFeeInput['channel'];
  status: string;
  failure_reason?: string | null;
  createdMs?: number;
  fees?: Partial<MockFees>;
  uuid?: string;
  psp_reference?: string;
  extra?: Record<string, unknown>;
}

/** `POST /api/v1/payments`: a direct mobile-money charge. */
export function createDirectCharge(state: EngineState, partition: Partition, input: Record<string, unknown>): Payment {
  const errors = validateFields(input, {
    amount: { required: true, type: 'integer', min: 1 },
    currency: { required: true, type: 'letters3' },
    country: { required: true, type: 'letters3' },
    provider: { required: true, type: 'string', max: 255 },
    phone: { required: true, type: 'digits', max: 20 },
    payer_name: { type: 'string', max: 255 },
    payer_email: { type: 'email', max: 255 },
    description: { type: 'string', max: 500 },
  });
  const country = checkOperator(state, errors, input, '');
  if (!isEmpty(errors)) throw new HttpAnswer(422, validationBody(errors));
  const charge = input as unknown as MockChargeInput;
  const operatorCurrency = (country as MockCountry).currency;
  // An operator moves only its national currency; another currency is converted, and the payment
  // shows what was charged, in the operator's currency. No rate → 422.
  const gross = convert(state, charge.amount, charge.currency, operatorCurrency);
  if (gross === undefined) {
    throw new HttpAnswer(
      422,
      validationBody({
        currency: [`La devise ${charge.currency} ne peut pas être convertie en ${operatorCurrency}, la devise de l'opérateur.`],
      }),
    );
  }
  if (gross < 1) throw new HttpAnswer(422, validationBody({ amount: [`Le montant converti en ${operatorCurrency} est inférieur à 1.`] }));
  // A refused payment is a 422 carrying `failure_reason`; nothing is created.
  const refusal = state.refuse({
    amount: charge.amount,
    currency: charge.currency,
    country: charge.country,
    provider: charge.provider,
    phone: charge.phone,
  });
  if (refusal) throw new HttpAnswer(422, { message: 'Le paiement a été refusé.', failure_reason: refusal });
  return newPayment(state, partition, {
    gross,
    currency: operatorCurrency,
    country: charge.country,
    provider: charge.provider,
    method: 'mobile_money',
    session: null,
    channel: 'direct',
    status: 'pending',
  }).data;
}

/** `POST /api/v1/checkout-sessions`. */
export function createCheckoutSession(state: EngineState, partition: Partition, input: Record<string, unknown>): CheckoutSession {
  const errors = validateFields(input, {
    amount: { required: true, type: 'integer', min: 1 },
    currency: { required: true, type: 'letters3' },
    description: { type: 'string', max: 500 },
    payer_name: { type: 'string', max: 255 },
    payer_email: { type: 'email', max: 255 },
    payer_phone: { type: 'string', max: 20 },
    success_url: { type: 'url', max: 2048 },
    cancel_url: { type: 'url', max: 2048 },
    metadata: { type: 'object' },
  });
  if (!isEmpty(errors)) throw new HttpAnswer(422, validationBody(errors));
  return newSession(state, partition, {
    amount: input.amount as number,
    currency: input.currency as string,
    description: stringOrNull(input.description),
    payer_name: stringOrNull(input.payer_name),
    payer_email: stringOrNull(input.payer_email),
    payer_phone: stringOrNull(input.payer_phone),
    success_url: stringOrNull(input.success_url),
    cancel_url: stringOrNull(input.cancel_url),
    metadata: isGiven(input.metadata) ? (input.metadata as Record<string, unknown>) : {},
  }).data;
}

/**
 * `POST /api/v1/payouts`: live keys only, and the amount leaves the wallet at once. Fields beyond
 * the service's documented ones are the mock's.
 */
export function createPayout(state: EngineState, partition: Partition, input: Record<string, unknown>): Payout {
  if (partition.mode !== 'live') throw new HttpAnswer(403, { message: 'Les versements sont réservés aux clés live avec un KYC approuvé.' });
  const errors = validateFields(input, {
    amount: { required: true, type: 'integer', min: 1 },
    currency: { required: true, type: 'letters3' },
    destination: { required: true, type: 'object' },
  });
  const destination = isRecord(input.destination) ? input.destination : {};
  let country: MockCountry | undefined;
  if (isGiven(input.destination) && !errors.destination) {
    mergeErrors(errors, validateFields(destination, { type: { required: true, type: 'string', in: ['mobile_money'] } }, 'destination.'));
    if (destination.type === 'mobile_money') {
      mergeErrors(
        errors,
        validateFields(
          destination,
          {
            country: { required: true, type: 'letters3' },
            provider: { required: true, type: 'string' },
            phone: { required: true, type: 'digits', max: 20 },
          },
          'destination.',
        ),
      );
      country = checkOperator(state, errors, destination, 'destination.');
    }
  }
  if (country && !errors.currency && input.currency !== country.currency) {
    addError(errors, 'currency', `La devise doit être celle du pays de destination (${country.currency}).`);
  }
  const amount = input.amount as number;
  const currency = input.currency as string;
  if (isEmpty(errors) && state.options.checkPayoutBalance !== false && (partition.wallets.get(currency)?.balance ?? 0) < amount) {
    addError(errors, 'amount', `Solde insuffisant : le portefeuille ${currency} ne couvre pas ce montant.`);
  }
  if (!isEmpty(errors)) throw new HttpAnswer(422, validationBody(errors));
  credit(partition, currency, -amount);
  const now = state.clock.now();
  const payout: Payout = {
    id: uuid(),
    amount,
    currency,
    status: 'pending_approval',
    destination: structuredClone(destination) as Payout['destination'],
    failure_reason: null,
    created_at: isoWithOffset(now),
    updated_at: isoWithOffset(now),
  };
  storePayout(state, partition, payout, now);
  return payout;
}

/** `POST /api/v1/payment-links`. Fields beyond the service's documented ones are the mock's. */
export function createPaymentLink(state: EngineState, partition: Partition, input: Record<string, unknown>): PaymentLink {
  const errors = validateFields(input, {
    title: { required: true, type: 'string', max: 255 },
    currency: { required: true, type: 'letters3' },
    amount: { type: 'integer', min: 1 },
    minimum_amount: { type: 'integer', min: 1 },
  });
  if (!isEmpty(errors)) throw new HttpAnswer(422, validationBody(errors));
  return newLink(state, partition, {
    title: input.title as string,
    currency: input.currency as string,
    amount: isGiven(input.amount) ? (input.amount as number) : null,
    minimum_amount: isGiven(input.minimum_amount) ? (input.minimum_amount as number) : null,
  }).data;
}

/**
 * Country and operator checks shared by charges and payout destinations: an unsupported country,
 * an operator the country lacks, or a phone number outside the country's plan is a 422 on that field.
 */
function checkOperator(state: EngineState, errors: FieldErrors, input: Record<string, unknown>, prefix: string): MockCountry | undefined {
  const code = input.country;
  if (errors[`${prefix}country`] || typeof code !== 'string') return undefined;
  const country = state.countries[code];
  if (!country) {
    addError(errors, `${prefix}country`, `Le pays ${code} n'est pas pris en charge.`);
    return undefined;
  }
  if (!errors[`${prefix}provider`] && typeof input.provider === 'string' && !country.providers.includes(input.provider)) {
    addError(errors, `${prefix}provider`, `L'opérateur ${input.provider} n'est pas disponible pour ${code}.`);
  }
  const phone = input.phone;
  if (!errors[`${prefix}phone`] && typeof phone === 'string') {
    const [min, max] = country.nationalDigits ?? [8, 10];
    const national = phone.slice(country.callingCode.length);
    if (!phone.startsWith(country.callingCode) || national.length < min || national.length > max) {
      addError(
        errors,
        `${prefix}phone`,
        `Le numéro de téléphone n'est pas valide pour ${code} (indicatif ${country.callingCode}, sans « + »).`,
      );
    }
  }
  return country;
}

/** Converts minor units between currencies with the rate table; `undefined` when no rate exists. */
export function convert(state: EngineState, amount: number, from: string, to: string): number | undefined {
  if (from === to) return amount;
  const direct = state.rates[`${from}/${to}`];
  const inverse = state.rates[`${to}/${from}`];
  const rate = typeof direct === 'number' ? direct : typeof inverse === 'number' && inverse !== 0 ? 1 / inverse : undefined;
  if (rate === undefined || !Number.isFinite(rate) || rate <= 0) return undefined;
  // Rates are between major units; amounts are minor units of each currency's own exponent.
  return Math.round(amount * rate * 10 ** (currencyExponent(to) - currencyExponent(from)));
}

/** The operator country and provider of a payment made by the mock for a customer paying in `currency`. */
export function payerFor(
  state: EngineState,
  currency: string,
  payer: MockPayerOptions,
): { country: string | null; provider: string | null; method: string } {
  if (payer.payment_method === 'card') return { country: null, provider: null, method: 'card' };
  const code = payer.country ?? Object.keys(state.countries).find((c) => state.countries[c]?.currency === currency);
  const country = code ? state.countries[code] : undefined;
  if (!code || !country) {
    throw new MockServiceError(
      `No mobile-money country for ${currency} in the mock's table: pass { country, provider }, or { payment_method: 'card' }.`,
    );
  }
  const provider = payer.provider ?? country.providers[0] ?? null;
  return { country: code, provider, method: 'mobile_money' };
}

/** Stores a new payment, computing its fees and net amount as the service does. */
export function newPayment(state: EngineState, partition: Partition, spec: PaymentSpec): StoredPayment {
  const fees = { ...computeFees(state, { gross_amount: spec.gross, currency: spec.currency, channel: spec.channel }), ...spec.fees };
  const createdMs = spec.createdMs ?? state.clock.now();
  const payment: Payment = {
    ...spec.extra,
    uuid: spec.uuid ?? uuid(),
    checkout_session: spec.session,
    gross_amount: spec.gross,
    psp_fee_amount: fees.psp_fee_amount,
    platform_fee_amount: fees.platform_fee_amount,
    // The merchant receives the gross amount less both fees.
    net_amount_to_merchant: spec.gross - fees.psp_fee_amount - fees.platform_fee_amount,
    currency: spec.currency,
    payment_method: spec.method,
    mobile_money_country: spec.country,
    mobile_money_provider: spec.provider,
    psp_reference: spec.psp_reference ?? uuid(),
    status: spec.status,
    failure_reason: spec.failure_reason ?? null,
    created_at: isoWithOffset(createdMs),
  };
  const stored: StoredPayment = { data: payment, createdMs, seq: ++state.seq, channel: spec.channel };
  partition.payments.set(payment.uuid, stored);
  return stored;
}

function computeFees(state: EngineState, input: MockFeeInput): MockFees {
  const fees = state.fees(input);
  const ok = (n: unknown) => typeof n === 'number' && Number.isSafeInteger(n) && n >= 0;
  if (
    !fees ||
    !ok(fees.psp_fee_amount) ||
    !ok(fees.platform_fee_amount) ||
    fees.psp_fee_amount + fees.platform_fee_amount > input.gross_amount
  ) {
    throw new MockServiceError(
      `The fee rule returned ${JSON.stringify(fees)} for ${input.gross_amount} ${input.currency}: fees must be integers ≥ 0 whose sum is at most the gross amount.`,
    );
  }
  return { psp_fee_amount: fees.psp_fee_amount, platform_fee_amount: fees.platform_fee_amount };
}

/** Stores a new checkout session, filling in its reference, status, `checkout_url` and expiry. */
export function newSession(
  state: EngineState,
  partition: Partition,
  fields: SessionFields,
  createdMs = state.clock.now(),
): Stored<CheckoutSession> {
  const reference = fields.reference ?? ulid(createdMs);
  const session = {
    ...fields,
    reference,
    status: fields.status ?? 'created',
    checkout_url: fields.checkout_url ?? `${state.hostedOrigin}/checkout/${encodeURIComponent(reference)}`,
    expires_at: fields.expires_at ?? isoWithOffset(createdMs + state.sessionTtlMs),
    created_at: isoWithOffset(createdMs),
  } as CheckoutSession;
  const stored = { data: session, createdMs, seq: ++state.seq };
  partition.sessions.set(reference, stored);
  return stored;
}

/** Stores a new payment link, filling in its id, slug, shareable `url` and status. */
export function newLink(
  state: EngineState,
  partition: Partition,
  fields: Partial<PaymentLink> & { title: string; currency: string },
  createdMs = state.clock.now(),
): Stored<PaymentLink> {
  const linkSlug = typeof fields.slug === 'string' ? fields.slug : slug();
  const link: PaymentLink = {
    amount: null,
    minimum_amount: null,
    ...fields,
    uuid: fields.uuid ?? uuid(),
    slug: linkSlug,
    // `url` is the address to share as it is.
    url: fields.url ?? `${state.hostedOriginFixed ? state.hostedOrigin : state.baseUrl}/pay/${linkSlug}`,
    status: fields.status ?? 'active',
    created_at: isoWithOffset(createdMs),
  };
  const stored = { data: link, createdMs, seq: ++state.seq };
  partition.links.set(link.uuid, stored);
  return stored;
}

/** Stores a payout as it is. */
export function storePayout(state: EngineState, partition: Partition, payout: Payout, createdMs: number): void {
  partition.payouts.set(String(payout.id), { data: payout, createdMs, seq: ++state.seq });
}

/** Adds `amount` (negative to take it out) to the partition's wallet in `currency`, opening the wallet if needed. */
export function credit(partition: Partition, currency: string, amount: number): void {
  const wallet = partition.wallets.get(currency) ?? { currency, balance: 0 };
  wallet.balance += amount;
  partition.wallets.set(currency, wallet);
}

function stringOrNull(value: unknown): string | null {
  return typeof value === 'string' ? value : null;
}
