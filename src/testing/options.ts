/**
 * Options of `createMockService()` and the default tables behind them: countries and their
 * operators, exchange rates, the fee rule. Everything the service documents is followed; where it
 * is silent (operator codes, rate values, payout states), the choices are the mock's own and say so.
 */
import type { CheckoutSession } from '../schemas/checkout-session.js';
import type { Payment } from '../schemas/payment.js';
import type { PaymentLink } from '../schemas/payment-link.js';
import type { Payout } from '../schemas/payout.js';
import type { Wallet } from '../schemas/wallet.js';
import type { MockWebhooksOptions } from './webhook-schedule.js';

/** KYC state of a mock merchant. Only `approved` may use a live key, as on the service. */
export type MockKycStatus = 'approved' | 'pending' | 'rejected';

/** A key of a mock merchant: its text, and its mode when the text does not say (`live` vs `test`/`sandbox`). */
export interface MockKeyOptions {
  /** The API key text, e.g. `sk_test_…` or `sk_live_…`. */
  key: string;
  /** `'live'` or `'sandbox'`. Default: read from the key's text like the client does. */
  mode?: 'live' | 'sandbox';
}

/** A merchant of the mock service. Each merchant sees only its own resources. */
export interface MockMerchantOptions {
  /** Merchant identifier (only used by the kit's own methods). Default `merchant_<n>`. */
  id?: string;
  /** Default `'approved'`. A live key of a merchant whose KYC is not approved gets 403. */
  kyc?: MockKycStatus;
  /** A suspended merchant gets 403 on every call. Default `false`. */
  suspended?: boolean;
  /** Its API keys. Default: one generated sandbox key and one generated live key. */
  keys?: Array<string | MockKeyOptions>;
}

/** A country the direct charge accepts: its currency, calling code and operators. */
export interface MockCountry {
  /** The operators' national currency (ISO 4217). A charge in another currency is converted to it. */
  currency: string;
  /** Country calling code, the prefix of every phone number, e.g. `'221'` for Senegal. */
  callingCode: string;
  /** Operator codes accepted for this country (the service's codes are not documented: these are the mock's). */
  providers: string[];
  /** Digits after the calling code. Default `[8, 10]`. */
  nationalDigits?: [min: number, max: number];
}

/**
 * Default countries (ISO 3166-1 alpha-3) of the mock. Operator codes are the mock's choice:
 * the service does not publish its list. Pass `countries` to replace
 * the table, e.g. `{ ...DEFAULT_COUNTRIES, NER: { currency: 'XOF', callingCode: '227', providers: ['airtel'] } }`.
 */
export const DEFAULT_COUNTRIES: Readonly<Record<string, MockCountry>> = Object.freeze({
  SEN: { currency: 'XOF', callingCode: '221', providers: ['orange', 'wave', 'free'], nationalDigits: [9, 9] },
  CIV: { currency: 'XOF', callingCode: '225', providers: ['orange', 'mtn', 'moov', 'wave'], nationalDigits: [10, 10] },
  MLI: { currency: 'XOF', callingCode: '223', providers: ['orange', 'moov'], nationalDigits: [8, 8] },
  BFA: { currency: 'XOF', callingCode: '226', providers: ['orange', 'moov'], nationalDigits: [8, 8] },
  BEN: { currency: 'XOF', callingCode: '229', providers: ['mtn', 'moov'], nationalDigits: [8, 10] },
  TGO: { currency: 'XOF', callingCode: '228', providers: ['moov', 'tmoney'], nationalDigits: [8, 8] },
  CMR: { currency: 'XAF', callingCode: '237', providers: ['orange', 'mtn'], nationalDigits: [9, 9] },
  GHA: { currency: 'GHS', callingCode: '233', providers: ['mtn', 'telecel', 'airteltigo'], nationalDigits: [9, 9] },
  KEN: { currency: 'KES', callingCode: '254', providers: ['mpesa', 'airtel'], nationalDigits: [9, 9] },
  UGA: { currency: 'UGX', callingCode: '256', providers: ['mtn', 'airtel'], nationalDigits: [9, 9] },
  RWA: { currency: 'RWF', callingCode: '250', providers: ['mtn', 'airtel'], nationalDigits: [9, 9] },
});

/**
 * Default exchange rates, `'FROM/TO'` → how many major units of TO one major unit of FROM buys.
 * The inverse of a pair is derived when only one direction is listed. Values are illustrative
 * (EUR/XOF and EUR/XAF are the fixed CFA pegs). A pair missing from the table makes a direct charge
 * in that currency fail with 422, as the service does when it has no rate.
 */
export const DEFAULT_RATES: Readonly<Record<string, number>> = Object.freeze({
  'EUR/XOF': 655.957,
  'EUR/XAF': 655.957,
  'XAF/XOF': 1,
  'USD/XOF': 600,
  'USD/XAF': 600,
  'USD/GHS': 15,
  'EUR/GHS': 16.5,
  'USD/KES': 130,
  'USD/UGX': 3700,
  'USD/RWF': 1350,
});

/** What a fee function receives. */
export interface MockFeeInput {
  /** Amount paid by the customer, minor units, in `currency`. */
  gross_amount: number;
  currency: string;
  /** How the payment started. */
  channel: 'direct' | 'checkout' | 'payment_link';
}

/** Fees of one payment, minor units. `net_amount_to_merchant` = gross − both, as on the service. */
export interface MockFees {
  psp_fee_amount: number;
  platform_fee_amount: number;
}

/**
 * The fee rule: rates (fractions of the gross amount, rounded to the minor unit) or a function.
 * Default `{ psp: 0.015, platform: 0.005 }`: 5000 XOF → 75 + 25, net 4900.
 */
export type MockFeeRule = { psp?: number; platform?: number } | ((input: MockFeeInput) => MockFees);

/** Default fee rule: 1.5 % processor fee and 0.5 % platform fee. */
export const DEFAULT_FEES = Object.freeze({ psp: 0.015, platform: 0.005 });

/** What the refusal rule receives: the direct charge as validated. */
export interface MockChargeInput {
  amount: number;
  currency: string;
  country: string;
  provider: string;
  phone: string;
}

/**
 * Default refusal rule of a direct charge (the mock's "magic numbers", as card test numbers are
 * elsewhere): a phone number whose last six digits are
 * - `000001` is refused with `failure_reason: 'insufficient_funds'`,
 * - `000002` with `'payer_declined'`,
 * - `000003` with `'account_blocked'`.
 * A refused charge answers 422 with `failure_reason`, as the service does. Every other number is accepted.
 */
export function defaultRefusal(charge: MockChargeInput): string | null {
  const tail = charge.phone.slice(-6);
  if (tail === '000001') return 'insufficient_funds';
  if (tail === '000002') return 'payer_declined';
  if (tail === '000003') return 'account_blocked';
  return null;
}

/** Resources to start with. Missing fields are filled as the service would (fees from the fee rule, ids, timestamps). */
export interface MockSeed {
  payments?: Array<Partial<Payment>>;
  checkoutSessions?: Array<Partial<CheckoutSession>>;
  payouts?: Array<Partial<Payout>>;
  paymentLinks?: Array<Partial<PaymentLink>>;
  /** Wallet balances, e.g. `[{ currency: 'XOF', balance: 100_000 }]`. */
  wallets?: Array<{ currency: string; balance: number } & Wallet>;
}

/** A source of time for the mock: a function (an injectable clock) or a fixed instant (a frozen clock). */
export type MockClockOption = (() => Date | number) | Date | number | string;

/** Options of `createMockService()`. Every one is optional. */
export interface MockServiceOptions {
  /**
   * Service root the client is configured with. Never contacted: requests go through `mock.fetch`
   * or `mock.handlers`. Default `https://mock.payments.test` (`.test` never resolves).
   */
  baseUrl?: string;
  /**
   * Root of the hosted pages, the origin a customer's browser opens: every checkout session's
   * `checkout_url` is `<checkoutBaseUrl>/checkout/<reference>` and every payment link's `url` is
   * `<checkoutBaseUrl>/pay/<slug>`. Default: {@link baseUrl}, or the address of `mock.listen()`'s
   * server while it runs. The CLI's `mock` command points it at the server that serves those pages.
   */
  checkoutBaseUrl?: string;
  /** The merchants and their keys. Default: one approved merchant with a sandbox and a live key. */
  merchants?: MockMerchantOptions[];
  /** Secret that signs webhook deliveries (`whsec_…`). Default: a random `whsec_mock_…`. */
  webhookSecret?: string;
  /**
   * The mock's clock. A function is called for every reading (inject your fake timers); a `Date`,
   * number or ISO string freezes the clock at that instant. Default: real time. In every case
   * `mock.advance(ms)` moves it forward (idempotency keys expire after 24 h of this clock,
   * checkout sessions at their `expires_at`).
   */
  now?: MockClockOption;
  /** Countries, currencies, calling codes and operators. Default {@link DEFAULT_COUNTRIES}. Replaces the table. */
  countries?: Record<string, MockCountry>;
  /** Exchange rates, `'FROM/TO'` → rate. Default {@link DEFAULT_RATES}. Replaces the table (`{}`: no conversion possible). */
  rates?: Record<string, number>;
  /** The fee rule. Default: the service's published fees for each operator. */
  fees?: MockFeeRule;
  /** Decides whether a direct charge is refused (422 with `failure_reason`). Default: a phone number ending in `000001`, `000002` or `000003` is refused (`insufficient_funds`, `payer_declined`, `account_blocked`). */
  refuseCharge?: (charge: MockChargeInput) => string | null;
  /** Lifetime of a checkout session. Default one hour. */
  checkoutSessionTtlMs?: number;
  /**
   * Whether a payout must fit the wallet balance of its currency (422 on `amount` otherwise). The
   * service documents no payout errors; the mock checks by default because a real one would.
   * Default `true`.
   */
  checkPayoutBalance?: boolean;
  /**
   * A rate limit on every API request, as a token bucket: up to `requests` at once, refilled at
   * `requests` per `perMs` (default 1000 ms) of real time. Past it the mock answers 429 with
   * `Retry-After` (whole seconds until a request is allowed again, at least 1), and the request is
   * not processed. The service's own limits are not documented: this models a typical one.
   * Default: no limit.
   */
  rateLimit?: { requests: number; perMs?: number };
  /** Resources of the first merchant's first key (its mode) to start with. For others: `mock.seed(data, { apiKey })`. */
  seed?: MockSeed;
  /**
   * Deliver every event the actions produce to an endpoint, as the service does: at once, then
   * retried on the mock's clock until a 2xx within 10 s, 5 attempts at most, the same event `id`
   * on each; `dropRate` loses a share of the events on purpose. See {@link MockWebhooksOptions}.
   * Default: none (actions hand back the signed delivery for `mock.deliver()`).
   */
  webhooks?: MockWebhooksOptions;
}
