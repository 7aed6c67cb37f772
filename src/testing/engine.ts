/**
 * The state and rules of the mock service: merchants and keys, the four resources, wallets,
 * idempotency records, the clock. HTTP framing lives in `http.ts`; signing in `delivery.ts`.
 * Every rule cites the section of service-api.md it models.
 */

import { modeOfKey, normalizeBaseUrl } from '../internal/config.js';
import { isRecord } from '../internal/is-record.js';
import { currencyExponent } from '../money.js';
import { CHECKOUT_SESSION_STATUSES, type CheckoutSession } from '../schemas/checkout-session.js';
import { PAYMENT_STATUSES, type Payment } from '../schemas/payment.js';
import type { PaymentLink } from '../schemas/payment-link.js';
import type { Payout } from '../schemas/payout.js';
import { addError, type FieldErrors, isEmpty, isGiven, mergeErrors, validateFields, validationBody } from './field-rules.js';
import { isoWithOffset, randomHex, slug, ulid, utcDate, uuid } from './ids.js';
import { HttpAnswer, MockServiceError } from './mock-errors.js';
import {
  DEFAULT_COUNTRIES,
  DEFAULT_FEES,
  DEFAULT_RATES,
  defaultRefusal,
  type MockChargeInput,
  type MockClockOption,
  type MockCountry,
  type MockFeeInput,
  type MockFees,
  type MockKycStatus,
  type MockSeed,
  type MockServiceOptions,
} from './options.js';

/** A key's mode. */
export type KeyMode = 'live' | 'sandbox';

/**
 * Payout states of the mock. The service documents only "awaits approval, then sent to the
 * operator" (service-api.md §3.3); these names are the mock's own.
 */
export const MOCK_PAYOUT_STATUSES = ['pending_approval', 'approved', 'processing', 'completed', 'rejected', 'failed'] as const;

/** A payout state of the mock. */
export type MockPayoutStatus = (typeof MOCK_PAYOUT_STATUSES)[number];

/**
 * Payment-link states of the mock. The service documents "active, deactivated or expired" without
 * their names (service-api.md §3.4); these are the mock's.
 */
export const MOCK_PAYMENT_LINK_STATUSES = ['active', 'deactivated', 'expired'] as const;

/** A payment-link state of the mock. */
export type MockPaymentLinkStatus = (typeof MOCK_PAYMENT_LINK_STATUSES)[number];

/** Which payout moves the mock allows, and the default next step (the first). */
const PAYOUT_MOVES: Record<string, readonly MockPayoutStatus[]> = {
  pending_approval: ['approved', 'rejected'],
  approved: ['processing', 'failed'],
  processing: ['completed', 'failed'],
};

/** An event as the service sends it: `{ id, type, data }` (service-api.md §6.2). */
export type MockWebhookEvent =
  | { id: string; type: 'payment.succeeded' | 'payment.failed'; data: Payment }
  | { id: string; type: `payout.${MockPayoutStatus}`; data: Payout };

/** What a list endpoint answers (service-api.md §2.7). */
export interface Envelope<T> {
  data: T[];
  links: { first: string; last: string; prev: string | null; next: string | null };
  meta: { current_page: number; last_page: number; per_page: number; total: number; from: number | null; to: number | null; path: string };
}

/** One stored resource: its data, when it was made (for ordering and date filters), and an insertion rank. */
interface Stored<T> {
  data: T;
  createdMs: number;
  seq: number;
}

interface StoredPayment extends Stored<Payment> {
  channel: MockFeeInput['channel'];
}

type WalletRecord = { currency: string; balance: number; [key: string]: unknown };

interface IdempotencyRecord {
  fingerprint: string;
  body: unknown;
  storedAt: number;
}

/** One merchant in one mode: sandbox and live data are separate, as with any payment service. */
export interface Partition {
  readonly merchant: MerchantState;
  readonly mode: KeyMode;
  payments: Map<string, StoredPayment>;
  sessions: Map<string, Stored<CheckoutSession>>;
  payouts: Map<string, Stored<Payout>>;
  links: Map<string, Stored<PaymentLink>>;
  wallets: Map<string, WalletRecord>;
  idempotency: Map<string, IdempotencyRecord>;
}

/** A merchant: KYC state, suspension, and one partition per mode. */
export interface MerchantState {
  readonly id: string;
  kyc: MockKycStatus;
  suspended: boolean;
  readonly partitions: Record<KeyMode, Partition>;
}

/** A configured API key, as `mock.keys` lists it. */
export interface MockKeyInfo {
  /** The API key text. */
  readonly key: string;
  readonly mode: KeyMode;
  /** Merchant it belongs to. */
  readonly merchant: string;
}

/** What a new session needs; the rest (reference, status, URLs, timestamps) is filled in. */
type SessionFields = Partial<CheckoutSession> &
  Pick<
    CheckoutSession,
    'amount' | 'currency' | 'description' | 'payer_name' | 'payer_email' | 'payer_phone' | 'success_url' | 'cancel_url' | 'metadata'
  >;

/** The list kinds and their statuses. */
export type ListKind = 'payments' | 'checkout-sessions' | 'payouts' | 'payment-links';

const STATUSES: Record<ListKind, readonly string[]> = {
  payments: PAYMENT_STATUSES,
  'checkout-sessions': CHECKOUT_SESSION_STATUSES,
  payouts: MOCK_PAYOUT_STATUSES,
  'payment-links': MOCK_PAYMENT_LINK_STATUSES,
};

const NOT_FOUND: Record<ListKind, string> = {
  payments: 'Paiement introuvable.',
  // The French sentence for "checkout session not found" (service-api.md §7).
  'checkout-sessions': 'Session de paiement introuvable.',
  payouts: 'Versement introuvable.',
  'payment-links': 'Lien de paiement introuvable.',
};

/** "This link is no longer available" (service-api.md §7): deactivated, expired or wrong slug. */
export const LINK_UNAVAILABLE = "Ce lien de paiement n'est plus disponible.";

const DAY_MS = 86_400_000;
/** Idempotency keys are kept 24 hours (service-api.md §5.2, §8). */
export const IDEMPOTENCY_TTL_MS = DAY_MS;
const HOUR_MS = 3_600_000;

/** Options of a checkout-session payment made by the mock (the customer on the hosted page). */
export interface MockPayerOptions {
  /** ISO 3166-1 alpha-3 of the payer's operator. Default: the first country of the session's currency. */
  country?: string;
  /** Operator code. Default: the country's first operator. */
  provider?: string;
  /** `'card'` gives `mobile_money_country`/`provider` = `null` (service-api.md §2.1). Default `'mobile_money'`. */
  payment_method?: 'mobile_money' | 'card';
}

/** The mock's clock: a base (real time, a function, or a frozen instant) plus what `advance()` added. */
class Clock {
  readonly #base: () => number;
  #offset = 0;

  constructor(option: MockClockOption | undefined) {
    if (option === undefined) this.#base = () => Date.now();
    else if (typeof option === 'function') this.#base = () => toMs(option(), 'now()');
    else {
      const fixed = toMs(option, 'now');
      this.#base = () => fixed;
    }
  }

  now(): number {
    return this.#base() + this.#offset;
  }

  advance(ms: number): void {
    if (typeof ms !== 'number' || !Number.isFinite(ms) || ms < 0)
      throw new MockServiceError(`advance(ms): ms must be a finite number ≥ 0, got ${String(ms)}.`);
    this.#offset += ms;
  }
}

function toMs(value: Date | number | string, what: string): number {
  const ms = value instanceof Date ? value.getTime() : typeof value === 'string' ? Date.parse(value) : value;
  if (typeof ms !== 'number' || !Number.isFinite(ms))
    throw new MockServiceError(`${what} must give a valid Date, timestamp or ISO string, got ${String(value)}.`);
  return ms;
}

/** The whole model. One instance per `createMockService()`. */
export class Engine {
  readonly baseUrl: string;
  /**
   * Origin of the hosted pages (`checkout_url`): the `checkoutBaseUrl` option, else the base URL, or
   * the origin of a running `mock.listen()` server, so the address a test opens reaches the mock.
   */
  hostedOrigin: string;
  /** `true` when `checkoutBaseUrl` was given: then it stays the origin of `checkout_url` and link `url`. */
  readonly hostedOriginFixed: boolean;
  readonly webhookSecret: string;
  readonly keys: readonly MockKeyInfo[];
  readonly #keyIndex = new Map<string, { merchant: MerchantState; mode: KeyMode }>();
  readonly #merchants = new Map<string, MerchantState>();
  readonly #options: MockServiceOptions;
  readonly #clock: Clock;
  readonly #countries: Record<string, MockCountry>;
  readonly #rates: Record<string, number>;
  readonly #fees: (input: MockFeeInput) => MockFees;
  readonly #refuse: (charge: MockChargeInput) => string | null;
  readonly #sessionTtl: number;
  #seq = 0;
  /**
   * Each resource map sorted newest first, kept until the next creation (every creation bumps
   * `#seq`; `reset()` makes new maps): a list request then costs a page, not a sort of everything,
   * so a mock seeded with 100,000 payments still pages quickly.
   */
  readonly #sorted = new WeakMap<Map<string, Stored<unknown>>, { seq: number; size: number; items: Stored<unknown>[] }>();

  constructor(baseUrl: string, options: MockServiceOptions) {
    this.baseUrl = baseUrl;
    this.hostedOriginFixed = options.checkoutBaseUrl !== undefined;
    this.hostedOrigin = options.checkoutBaseUrl === undefined ? baseUrl : normalizeBaseUrl(options.checkoutBaseUrl);
    this.#options = options;
    this.#clock = new Clock(options.now);
    this.webhookSecret = options.webhookSecret ?? `whsec_mock_${randomHex(24)}`;
    // Blank is refused as verifyWebhook refuses it: deliveries signed with it would all be answered 500.
    if (typeof this.webhookSecret !== 'string' || this.webhookSecret.trim() === '')
      throw new MockServiceError('webhookSecret must be a non-blank string.');
    this.#countries = options.countries ?? { ...DEFAULT_COUNTRIES };
    this.#rates = options.rates ?? { ...DEFAULT_RATES };
    this.#fees = feeFunction(options.fees ?? DEFAULT_FEES);
    this.#refuse = options.refuseCharge ?? defaultRefusal;
    this.#sessionTtl = options.checkoutSessionTtlMs ?? HOUR_MS;

    const keys: MockKeyInfo[] = [];
    const merchants = options.merchants ?? [{}];
    if (merchants.length === 0) throw new MockServiceError('merchants: give at least one merchant (or leave the option out).');
    merchants.forEach((m, i) => {
      const id = m.id ?? `merchant_${i + 1}`;
      if (this.#merchants.has(id)) throw new MockServiceError(`merchants: the id ${JSON.stringify(id)} is used twice.`);
      const merchant: MerchantState = {
        id,
        kyc: m.kyc ?? 'approved',
        suspended: m.suspended ?? false,
        partitions: {} as Record<KeyMode, Partition>,
      };
      merchant.partitions.sandbox = emptyPartition(merchant, 'sandbox');
      merchant.partitions.live = emptyPartition(merchant, 'live');
      this.#merchants.set(id, merchant);
      const given = m.keys ?? [`sk_test_mock_${randomHex(12)}`, `sk_live_mock_${randomHex(12)}`];
      if (given.length === 0) throw new MockServiceError(`merchants[${i}].keys: give at least one key (or leave the option out).`);
      for (const k of given) {
        const key = typeof k === 'string' ? k : k.key;
        if (typeof key !== 'string' || key.trim() === '')
          throw new MockServiceError(`merchants[${i}].keys: every key must be a non-empty string.`);
        const read = modeOfKey(key);
        const mode = (typeof k === 'string' ? undefined : k.mode) ?? (read === 'unknown' ? undefined : read);
        // The client reads the mode from the key's text (API.md "Client"); a key that says nothing needs it stated.
        if (!mode)
          throw new MockServiceError(
            `merchants[${i}].keys: a key whose text says neither "live" nor "test"/"sandbox" needs { key, mode }.`,
          );
        if (this.#keyIndex.has(key)) throw new MockServiceError(`merchants[${i}].keys: a key is configured twice.`);
        this.#keyIndex.set(key, { merchant, mode });
        keys.push(Object.freeze({ key, mode, merchant: id }));
      }
    });
    this.keys = Object.freeze(keys);
    if (options.seed) this.seed(options.seed, this.keys[0]?.key);
  }

  // ---------------------------------------------------------------- clock

  /** Milliseconds since the epoch on the mock's clock. */
  now(): number {
    return this.#clock.now();
  }

  /** Moves the clock forward, then applies what time does (sessions expire at `expires_at`). */
  advance(ms: number): void {
    this.#clock.advance(ms);
    this.sweep();
  }

  /** Expires checkout sessions whose `expires_at` has passed (service-api.md §2.2, §3.2). */
  sweep(): void {
    const now = this.now();
    for (const p of this.#partitions()) {
      for (const s of p.sessions.values()) {
        if ((s.data.status === 'created' || s.data.status === 'pending_payment') && Date.parse(s.data.expires_at) <= now)
          s.data.status = 'expired';
      }
    }
  }

  // ---------------------------------------------------------------- merchants and keys

  /** The partition of a key, or the 401/403 the service answers (service-api.md §5). */
  authenticate(authorization: string | null): Partition {
    const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization ?? '');
    const entry = match?.[1] ? this.#keyIndex.get(match[1]) : undefined;
    // Laravel's own message; the key itself is never echoed.
    if (!entry) throw new HttpAnswer(401, { message: 'Unauthenticated.' });
    if (entry.merchant.suspended) throw new HttpAnswer(403, { message: 'Ce compte marchand est suspendu.' });
    if (entry.mode === 'live' && entry.merchant.kyc !== 'approved') {
      throw new HttpAnswer(403, { message: 'Votre KYC doit être approuvé pour utiliser une clé live.' });
    }
    return entry.merchant.partitions[entry.mode];
  }

  /** The partition of a configured key, for the kit's own methods. */
  partitionOfKey(key: string | undefined): Partition {
    const entry = key === undefined ? undefined : this.#keyIndex.get(key);
    if (!entry) throw new MockServiceError("apiKey: not one of the mock's keys (see mock.keys).");
    return entry.merchant.partitions[entry.mode];
  }

  /** Changes a merchant's KYC state or suspension, as the service's back office would. */
  setMerchant(id: string, changes: { kyc?: MockKycStatus; suspended?: boolean }): void {
    const merchant = this.#merchants.get(id);
    if (!merchant) throw new MockServiceError(`No merchant ${JSON.stringify(id)} (merchants: ${[...this.#merchants.keys()].join(', ')}).`);
    if (changes.kyc !== undefined) merchant.kyc = changes.kyc;
    if (changes.suspended !== undefined) merchant.suspended = changes.suspended;
  }

  /** Forgets every resource and idempotency record, then applies the `seed` option again. */
  reset(): void {
    for (const merchant of this.#merchants.values()) {
      merchant.partitions.sandbox = emptyPartition(merchant, 'sandbox');
      merchant.partitions.live = emptyPartition(merchant, 'live');
    }
    if (this.#options.seed) this.seed(this.#options.seed, this.keys[0]?.key);
  }

  *#partitions(): Generator<Partition> {
    for (const m of this.#merchants.values()) {
      yield m.partitions.sandbox;
      yield m.partitions.live;
    }
  }

  // ---------------------------------------------------------------- idempotency (service-api.md §5.2)

  /**
   * Looks up an `Idempotency-Key`: `undefined` when new (or forgotten after 24 h), the stored body
   * when the content is the same (replayed with 200), or a 409 when it differs.
   */
  idempotentReplay(p: Partition, scope: string, key: string, fingerprint: string): unknown {
    const id = `${scope} ${key}`;
    const record = p.idempotency.get(id);
    if (!record) return undefined;
    if (this.now() - record.storedAt >= IDEMPOTENCY_TTL_MS) {
      p.idempotency.delete(id);
      return undefined;
    }
    if (record.fingerprint !== fingerprint) {
      throw new HttpAnswer(409, { message: "Cette clé d'idempotence a déjà été utilisée avec un contenu différent." });
    }
    return structuredClone(record.body);
  }

  /** Remembers the 201 answer of a creation under its key. Errors are not remembered: a retry re-evaluates. */
  rememberIdempotent(p: Partition, scope: string, key: string, fingerprint: string, body: unknown): void {
    p.idempotency.set(`${scope} ${key}`, { fingerprint, body: structuredClone(body), storedAt: this.now() });
  }

  // ---------------------------------------------------------------- creations

  /** `POST /api/v1/payments`: a direct mobile-money charge (service-api.md §4.1). */
  createDirectCharge(p: Partition, input: Record<string, unknown>): Payment {
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
    const country = this.#checkOperator(errors, input, '');
    if (!isEmpty(errors)) throw new HttpAnswer(422, validationBody(errors));
    const charge = input as unknown as MockChargeInput;
    const operatorCurrency = (country as MockCountry).currency;
    // §4.1: an operator moves only its national currency; another currency is converted, and the
    // payment shows what was charged, in the operator's currency. No rate → 422.
    const gross = this.convert(charge.amount, charge.currency, operatorCurrency);
    if (gross === undefined) {
      throw new HttpAnswer(
        422,
        validationBody({
          currency: [`La devise ${charge.currency} ne peut pas être convertie en ${operatorCurrency}, la devise de l'opérateur.`],
        }),
      );
    }
    if (gross < 1) throw new HttpAnswer(422, validationBody({ amount: [`Le montant converti en ${operatorCurrency} est inférieur à 1.`] }));
    // §4.1, §7: a refused payment is a 422 carrying `failure_reason`; nothing is created.
    const refusal = this.#refuse({
      amount: charge.amount,
      currency: charge.currency,
      country: charge.country,
      provider: charge.provider,
      phone: charge.phone,
    });
    if (refusal) throw new HttpAnswer(422, { message: 'Le paiement a été refusé.', failure_reason: refusal });
    return this.#newPayment(p, {
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

  /** `POST /api/v1/checkout-sessions` (service-api.md §4.4). */
  createCheckoutSession(p: Partition, input: Record<string, unknown>): CheckoutSession {
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
    return this.#newSession(p, {
      amount: input.amount as number,
      currency: input.currency as string,
      description: str(input.description),
      payer_name: str(input.payer_name),
      payer_email: str(input.payer_email),
      payer_phone: str(input.payer_phone),
      success_url: str(input.success_url),
      cancel_url: str(input.cancel_url),
      metadata: isGiven(input.metadata) ? (input.metadata as Record<string, unknown>) : {},
    }).data;
  }

  /** `POST /api/v1/payouts`: live keys only (service-api.md §4.7, §5.4). Fields beyond the documented ones are the mock's. */
  createPayout(p: Partition, input: Record<string, unknown>): Payout {
    if (p.mode !== 'live') throw new HttpAnswer(403, { message: 'Les versements sont réservés aux clés live avec un KYC approuvé.' });
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
        country = this.#checkOperator(errors, destination, 'destination.');
      }
    }
    if (country && !errors.currency && input.currency !== country.currency) {
      addError(errors, 'currency', `La devise doit être celle du pays de destination (${country.currency}).`);
    }
    const amount = input.amount as number;
    const currency = input.currency as string;
    if (isEmpty(errors) && this.#options.checkPayoutBalance !== false && (p.wallets.get(currency)?.balance ?? 0) < amount) {
      addError(errors, 'amount', `Solde insuffisant : le portefeuille ${currency} ne couvre pas ce montant.`);
    }
    if (!isEmpty(errors)) throw new HttpAnswer(422, validationBody(errors));
    this.#credit(p, currency, -amount);
    const now = this.now();
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
    const stored = { data: payout, createdMs: now, seq: ++this.#seq };
    p.payouts.set(payout.id as string, stored);
    return payout;
  }

  /** `POST /api/v1/payment-links` (service-api.md §4.8). Fields beyond the documented ones are the mock's. */
  createPaymentLink(p: Partition, input: Record<string, unknown>): PaymentLink {
    const errors = validateFields(input, {
      title: { required: true, type: 'string', max: 255 },
      currency: { required: true, type: 'letters3' },
      amount: { type: 'integer', min: 1 },
      minimum_amount: { type: 'integer', min: 1 },
    });
    if (!isEmpty(errors)) throw new HttpAnswer(422, validationBody(errors));
    return this.#newLink(p, {
      title: input.title as string,
      currency: input.currency as string,
      amount: isGiven(input.amount) ? (input.amount as number) : null,
      minimum_amount: isGiven(input.minimum_amount) ? (input.minimum_amount as number) : null,
    }).data;
  }

  /** Country and operator checks shared by charges and payout destinations (service-api.md §4.1: invalid country or operator, invalid phone → 422). */
  #checkOperator(errors: FieldErrors, input: Record<string, unknown>, prefix: string): MockCountry | undefined {
    const code = input.country;
    if (errors[`${prefix}country`] || typeof code !== 'string') return undefined;
    const country = this.#countries[code];
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

  /** Converts minor units between currencies with the rate table; `undefined` when no rate exists (§4.1). */
  convert(amount: number, from: string, to: string): number | undefined {
    if (from === to) return amount;
    const direct = this.#rates[`${from}/${to}`];
    const inverse = this.#rates[`${to}/${from}`];
    const rate = typeof direct === 'number' ? direct : typeof inverse === 'number' && inverse !== 0 ? 1 / inverse : undefined;
    if (rate === undefined || !Number.isFinite(rate) || rate <= 0) return undefined;
    // Rates are between major units; amounts are minor units of each currency's own exponent.
    return Math.round(amount * rate * 10 ** (currencyExponent(to) - currencyExponent(from)));
  }

  #newPayment(
    p: Partition,
    spec: {
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
    },
  ): StoredPayment {
    const fees = { ...this.#computeFees({ gross_amount: spec.gross, currency: spec.currency, channel: spec.channel }), ...spec.fees };
    const createdMs = spec.createdMs ?? this.now();
    const payment: Payment = {
      ...spec.extra,
      uuid: spec.uuid ?? uuid(),
      checkout_session: spec.session,
      gross_amount: spec.gross,
      psp_fee_amount: fees.psp_fee_amount,
      platform_fee_amount: fees.platform_fee_amount,
      // §2.1: net = gross − both fee amounts.
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
    const stored: StoredPayment = { data: payment, createdMs, seq: ++this.#seq, channel: spec.channel };
    p.payments.set(payment.uuid, stored);
    return stored;
  }

  #computeFees(input: MockFeeInput): MockFees {
    const fees = this.#fees(input);
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

  #newSession(p: Partition, fields: SessionFields, createdMs = this.now()): Stored<CheckoutSession> {
    const reference = fields.reference ?? ulid(createdMs);
    const session = {
      ...fields,
      reference,
      status: fields.status ?? 'created',
      checkout_url: fields.checkout_url ?? `${this.hostedOrigin}/checkout/${encodeURIComponent(reference)}`,
      expires_at: fields.expires_at ?? isoWithOffset(createdMs + this.#sessionTtl),
      created_at: isoWithOffset(createdMs),
    } as CheckoutSession;
    const stored = { data: session, createdMs, seq: ++this.#seq };
    p.sessions.set(reference, stored);
    return stored;
  }

  #newLink(p: Partition, fields: Partial<PaymentLink> & { title: string; currency: string }, createdMs = this.now()): Stored<PaymentLink> {
    const s = typeof fields.slug === 'string' ? fields.slug : slug();
    const link: PaymentLink = {
      amount: null,
      minimum_amount: null,
      ...fields,
      uuid: fields.uuid ?? uuid(),
      slug: s,
      // §2.4: `url` is the address to share as it is.
      url: fields.url ?? `${this.hostedOriginFixed ? this.hostedOrigin : this.baseUrl}/pay/${s}`,
      status: fields.status ?? 'active',
      created_at: isoWithOffset(createdMs),
    };
    const stored = { data: link, createdMs, seq: ++this.#seq };
    p.links.set(link.uuid, stored);
    return stored;
  }

  #credit(p: Partition, currency: string, amount: number): void {
    const wallet = p.wallets.get(currency) ?? { currency, balance: 0 };
    wallet.balance += amount;
    p.wallets.set(currency, wallet);
  }

  // ---------------------------------------------------------------- reads

  /** `GET /…/{id}`: the resource, or 404 for an unknown one or another merchant's (service-api.md §4.3, §5.5). */
  retrieve(p: Partition, kind: ListKind, id: string): unknown {
    const stored = this.#map(p, kind).get(id);
    if (!stored) throw new HttpAnswer(404, { message: NOT_FOUND[kind] });
    return structuredClone(stored.data);
  }

  /** `GET /api/v1/wallets`: balances, not paginated (service-api.md §4.9). */
  wallets(p: Partition): WalletRecord[] {
    return [...p.wallets.values()].map((w) => structuredClone(w));
  }

  /**
   * A list: filters, most recent first, the envelope with absolute links (service-api.md §2.7, §4.2,
   * §4.5, §4.10). `url` is the request's: links point back to where the request went, keeping its
   * filters, as Laravel's paginator does with `withQueryString()`.
   */
  list(p: Partition, kind: ListKind, url: URL): Envelope<unknown> {
    const q = url.searchParams;
    const errors: FieldErrors = {};
    const status = q.get('status');
    if (status !== null && !STATUSES[kind].includes(status)) addError(errors, 'status', 'La valeur sélectionnée pour status est invalide.');
    const from = readDate(q.get('from'), 'from', errors);
    const to = readDate(q.get('to'), 'to', errors);
    if (from && to && to < from) addError(errors, 'to', 'Le champ to doit être une date postérieure ou égale à from.');
    // §4.10: default 20, maximum 100. Above the maximum the service's validation refuses (422).
    let perPage = 20;
    const rawPerPage = q.get('per_page');
    if (rawPerPage !== null) {
      const n = /^\d+$/.test(rawPerPage) ? Number(rawPerPage) : Number.NaN;
      if (!Number.isSafeInteger(n)) addError(errors, 'per_page', 'Le champ per_page doit être un entier.');
      else if (n < 1) addError(errors, 'per_page', 'La valeur de per_page doit être supérieure ou égale à 1.');
      else if (n > 100) addError(errors, 'per_page', 'La valeur de per_page doit être inférieure ou égale à 100.');
      else perPage = n;
    }
    if (!isEmpty(errors)) throw new HttpAnswer(422, validationBody(errors));
    // Laravel's paginator reads a page that is not an integer ≥ 1 as page 1.
    const rawPage = q.get('page');
    const page = rawPage !== null && /^\d+$/.test(rawPage) && Number(rawPage) >= 1 ? Number(rawPage) : 1;

    const sorted = this.#sortedItems(this.#map(p, kind));
    const filtered = status !== null || from !== undefined || to !== undefined;
    const items = filtered
      ? sorted.filter(
          (s) => (status === null || (s.data as { status?: unknown }).status === status) && inRange(utcDate(s.createdMs), from, to),
        )
      : sorted;
    const total = items.length;
    const lastPage = Math.max(1, Math.ceil(total / perPage));
    const slice = items.slice((page - 1) * perPage, page * perPage);
    const path = `${url.origin}${url.pathname}`;
    const link = (n: number) => {
      const query = new URLSearchParams(q);
      query.delete('page');
      query.set('page', String(n));
      return `${path}?${query.toString()}`;
    };
    return {
      data: slice.map((s) => structuredClone(s.data)),
      links: {
        first: link(1),
        last: link(lastPage),
        prev: page > 1 ? link(page - 1) : null,
        next: page < lastPage ? link(page + 1) : null,
      },
      meta: {
        current_page: page,
        last_page: lastPage,
        per_page: perPage,
        total,
        from: slice.length ? (page - 1) * perPage + 1 : null,
        to: slice.length ? (page - 1) * perPage + slice.length : null,
        path,
      },
    };
  }

  #sortedItems(map: Map<string, Stored<unknown>>): Stored<unknown>[] {
    const cached = this.#sorted.get(map);
    if (cached && cached.seq === this.#seq && cached.size === map.size) return cached.items;
    const items = [...map.values()].sort((a, b) => b.createdMs - a.createdMs || b.seq - a.seq);
    this.#sorted.set(map, { seq: this.#seq, size: map.size, items });
    return items;
  }

  #map(p: Partition, kind: ListKind): Map<string, Stored<unknown>> {
    if (kind === 'payments') return p.payments;
    if (kind === 'checkout-sessions') return p.sessions;
    if (kind === 'payouts') return p.payouts;
    return p.links;
  }

  // ---------------------------------------------------------------- actions (what the service does on its own)

  /** Looks a resource up across merchants and modes (actions are the service's side: no key needed). */
  #find<T>(pick: (p: Partition) => Map<string, T>, id: string): { p: Partition; stored: T } | undefined {
    for (const p of this.#partitions()) {
      const stored = pick(p).get(id);
      if (stored) return { p, stored };
    }
    return undefined;
  }

  /** A payment by `uuid`, in any merchant's data. */
  findPayment(id: string): { p: Partition; stored: StoredPayment } | undefined {
    return this.#find((p) => p.payments, id);
  }

  /** A checkout session by reference, in any merchant's data. */
  findSession(reference: string): { p: Partition; stored: Stored<CheckoutSession> } | undefined {
    return this.#find((p) => p.sessions, reference);
  }

  /** A payout by `id`, in any merchant's data. */
  findPayout(id: string): { p: Partition; stored: Stored<Payout> } | undefined {
    return this.#find((p) => p.payouts, id);
  }

  /** Looks a payment link up by `uuid`, slug or `url`. */
  findLink(id: string): { p: Partition; stored: Stored<PaymentLink> } | undefined {
    for (const p of this.#partitions()) {
      const stored = p.links.get(id) ?? [...p.links.values()].find((l) => l.data.slug === id || l.data.url === id);
      if (stored) return { p, stored };
    }
    return undefined;
  }

  /**
   * Decides a pending payment (service-api.md §3.1): `succeeded` credits the net amount to the
   * wallet and completes its checkout session; `failed` sets `failure_reason`. Returns the event.
   */
  decidePayment(id: string, outcome: 'succeeded' | 'failed', failureReason?: string): MockWebhookEvent {
    this.sweep();
    const found = this.findPayment(id);
    if (!found) throw new MockServiceError(`No payment ${JSON.stringify(id)} in the mock.`);
    const { p, stored } = found;
    const payment = stored.data;
    if (payment.status !== 'pending' && payment.status !== 'processing') {
      throw new MockServiceError(
        `Payment ${id} is ${payment.status}: only a pending payment is decided by payment.succeeded or payment.failed (service-api.md §3.1).`,
      );
    }
    if (outcome === 'succeeded') {
      payment.status = 'succeeded';
      payment.failure_reason = null;
      this.#credit(p, payment.currency, payment.net_amount_to_merchant);
      const session = payment.checkout_session ? p.sessions.get(payment.checkout_session) : undefined;
      if (session) session.data.status = 'completed';
    } else {
      payment.status = 'failed';
      payment.failure_reason = failureReason ?? 'declined';
    }
    return this.event(`payment.${outcome}`, payment) as MockWebhookEvent;
  }

  /** The customer starts paying on the hosted page: a pending payment with `checkout_session` = reference; the session moves to `pending_payment`. */
  startSessionPayment(reference: string, payer: MockPayerOptions = {}): Payment {
    this.sweep();
    const found = this.findSession(reference);
    if (!found) throw new MockServiceError(`No checkout session ${JSON.stringify(reference)} in the mock.`);
    const { p, stored } = found;
    const session = stored.data;
    if (session.status !== 'created' && session.status !== 'pending_payment') {
      throw new MockServiceError(
        `Checkout session ${reference} is ${session.status}: only a created or pending_payment session can be paid.`,
      );
    }
    const pending = this.#pendingPaymentOf(p, reference);
    if (pending) return structuredClone(pending.data);
    const channel = isRecord(session.metadata) && typeof session.metadata.payment_link === 'string' ? 'payment_link' : 'checkout';
    const made = this.#newPayment(p, {
      ...this.#payer(session.currency, payer),
      gross: session.amount,
      currency: session.currency,
      session: reference,
      channel,
      status: 'pending',
    });
    session.status = 'pending_payment';
    return structuredClone(made.data);
  }

  /** Pays a checkout session: its payment (new or already pending) is decided; `succeeded` completes the session (§2.2). */
  paySession(reference: string, outcome: 'succeeded' | 'failed', payer: MockPayerOptions = {}, failureReason?: string): MockWebhookEvent {
    const payment = this.startSessionPayment(reference, payer);
    return this.decidePayment(payment.uuid, outcome, failureReason);
  }

  #pendingPaymentOf(p: Partition, reference: string): StoredPayment | undefined {
    for (const s of p.payments.values()) if (s.data.checkout_session === reference && s.data.status === 'pending') return s;
    return undefined;
  }

  #payer(currency: string, payer: MockPayerOptions): { country: string | null; provider: string | null; method: string } {
    if (payer.payment_method === 'card') return { country: null, provider: null, method: 'card' };
    const code = payer.country ?? Object.keys(this.#countries).find((c) => this.#countries[c]?.currency === currency);
    const country = code ? this.#countries[code] : undefined;
    if (!code || !country) {
      throw new MockServiceError(
        `No mobile-money country for ${currency} in the mock's table: pass { country, provider }, or { payment_method: 'card' }.`,
      );
    }
    const provider = payer.provider ?? country.providers[0] ?? null;
    return { country: code, provider, method: 'mobile_money' };
  }

  /** Ends a session without payment: `expired` (time ran out) or `cancelled` (the customer cancelled) (§3.2). */
  closeSession(reference: string, status: 'expired' | 'cancelled'): CheckoutSession {
    this.sweep();
    const found = this.findSession(reference);
    if (!found) throw new MockServiceError(`No checkout session ${JSON.stringify(reference)} in the mock.`);
    const session = found.stored.data;
    if (session.status !== 'created' && session.status !== 'pending_payment') {
      throw new MockServiceError(
        `Checkout session ${reference} is ${session.status}: only a created or pending_payment session can become ${status}.`,
      );
    }
    session.status = status;
    if (status === 'expired') session.expires_at = isoWithOffset(Math.min(Date.parse(session.expires_at), this.now()));
    return structuredClone(session);
  }

  /**
   * A customer pays a payment link (service-api.md §4.8): a session of the link is made and paid, so
   * the payment appears in `GET /payments` with that session's reference. A deactivated or expired
   * link, or an unknown one, is refused with the service's sentence (§7); an amount below
   * `minimum_amount` is a validation error on `amount`.
   */
  payPaymentLink(
    id: string,
    options: { amount?: number; outcome: 'succeeded' | 'failed'; failure_reason?: string } & MockPayerOptions,
  ): MockWebhookEvent {
    this.sweep();
    const found = this.findLink(id);
    if (found?.stored.data.status !== 'active') throw new MockServiceError(LINK_UNAVAILABLE);
    const { p, stored } = found;
    const link = stored.data;
    const fixed = typeof link.amount === 'number' ? link.amount : null;
    const amount = fixed ?? options.amount;
    const errors: FieldErrors = {};
    if (fixed !== null && options.amount !== undefined && options.amount !== fixed)
      addError(errors, 'amount', `Ce lien a un montant fixe de ${fixed}.`);
    else if (amount === undefined) addError(errors, 'amount', 'Le champ amount est obligatoire.');
    else if (!Number.isSafeInteger(amount) || amount < 1)
      addError(errors, 'amount', 'La valeur de amount doit être supérieure ou égale à 1.');
    else if (typeof link.minimum_amount === 'number' && amount < link.minimum_amount) {
      addError(errors, 'amount', `La valeur de amount doit être supérieure ou égale à ${link.minimum_amount}.`);
    }
    if (!isEmpty(errors)) throw new MockServiceError(validationBody(errors).message, errors);
    const session = this.#newSession(p, {
      amount: amount as number,
      currency: link.currency as string,
      description: typeof link.title === 'string' ? link.title : null,
      payer_name: null,
      payer_email: null,
      payer_phone: null,
      success_url: null,
      cancel_url: null,
      metadata: { payment_link: link.uuid },
    });
    return this.paySession(session.data.reference, options.outcome, options, options.failure_reason);
  }

  /** Sets a payment link's state, as the merchant dashboard does (no API for it: service-api.md §3.4, §4.8). */
  setPaymentLinkStatus(id: string, status: MockPaymentLinkStatus): PaymentLink {
    const found = this.findLink(id);
    if (!found) throw new MockServiceError(`No payment link ${JSON.stringify(id)} in the mock.`);
    found.stored.data.status = status;
    return structuredClone(found.stored.data);
  }

  /**
   * Moves a payout one step (states and event names are the mock's: service-api.md §3.3, §6.3 leave
   * them undocumented). `rejected` and `failed` give the amount back to the wallet.
   */
  movePayout(id: string, to: MockPayoutStatus | undefined, failureReason?: string): MockWebhookEvent {
    const found = this.findPayout(id);
    if (!found) throw new MockServiceError(`No payout ${JSON.stringify(id)} in the mock.`);
    const { p, stored } = found;
    const payout = stored.data;
    const allowed = PAYOUT_MOVES[String(payout.status)] ?? [];
    const next = to ?? allowed[0];
    if (!next || !allowed.includes(next)) {
      throw new MockServiceError(
        `Payout ${id} is ${String(payout.status)}: it can move to ${allowed.length ? allowed.join(' or ') : 'nothing (final state)'}, not ${String(to)}.`,
      );
    }
    payout.status = next;
    payout.updated_at = isoWithOffset(this.now());
    if (next === 'rejected' || next === 'failed') {
      payout.failure_reason = failureReason ?? (next === 'rejected' ? 'rejected_by_reviewer' : 'operator_error');
      this.#credit(p, String(payout.currency), Number(payout.amount));
    }
    return this.event(`payout.${next}`, payout) as MockWebhookEvent;
  }

  /** An event `{ id, type, data }` with a copy of the resource as it is now (service-api.md §6.2). */
  event(type: string, data: unknown): { id: string; type: string; data: unknown } {
    return { id: `evt_${ulid(this.now())}`, type, data: structuredClone(data) };
  }

  // ---------------------------------------------------------------- seed

  /** Adds resources to a key's partition, filling what is missing as the service would. */
  seed(seed: MockSeed, apiKey: string | undefined): void {
    const p = this.partitionOfKey(apiKey);
    for (const w of seed.wallets ?? []) {
      if (typeof w.currency !== 'string' || !Number.isSafeInteger(w.balance))
        throw new MockServiceError('seed.wallets: each needs { currency, balance } with an integer balance.');
      p.wallets.set(w.currency, { ...structuredClone(w) });
    }
    for (const s of seed.checkoutSessions ?? []) {
      const createdMs = s.created_at ? toMs(s.created_at, 'seed checkout_session.created_at') : this.now();
      this.#newSession(
        p,
        {
          amount: 5000,
          currency: 'XOF',
          description: null,
          payer_name: null,
          payer_email: null,
          payer_phone: null,
          success_url: null,
          cancel_url: null,
          metadata: {},
          ...structuredClone(s),
        },
        createdMs,
      );
    }
    for (const raw of seed.payments ?? []) {
      const s = structuredClone(raw);
      const createdMs = s.created_at ? toMs(s.created_at, 'seed payment.created_at') : this.now();
      const currency = s.currency ?? 'XOF';
      const method = s.payment_method ?? 'mobile_money';
      const payer =
        method === 'mobile_money' && s.mobile_money_country === undefined
          ? this.#payer(currency, { provider: s.mobile_money_provider ?? undefined })
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
      this.#newPayment(p, {
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
      const createdMs = s.created_at ? toMs(String(s.created_at), 'seed payout.created_at') : this.now();
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
      p.payouts.set(String(payout.id), { data: payout, createdMs, seq: ++this.#seq });
    }
    for (const raw of seed.paymentLinks ?? []) {
      const s = structuredClone(raw);
      const createdMs = s.created_at ? toMs(String(s.created_at), 'seed payment_link.created_at') : this.now();
      this.#newLink(p, { ...s, title: s.title ?? 'Lien', currency: s.currency ?? 'XOF' }, createdMs);
    }
  }
}

function emptyPartition(merchant: MerchantState, mode: KeyMode): Partition {
  return {
    merchant,
    mode,
    payments: new Map(),
    sessions: new Map(),
    payouts: new Map(),
    links: new Map(),
    wallets: new Map(),
    idempotency: new Map(),
  };
}

function feeFunction(rule: NonNullable<MockServiceOptions['fees']>): (input: MockFeeInput) => MockFees {
  if (typeof rule === 'function') return rule;
  const psp = rule.psp ?? 0;
  const platform = rule.platform ?? 0;
  if (!(psp >= 0 && platform >= 0 && psp + platform <= 1)) {
    throw new MockServiceError(
      `fees: psp and platform are fractions of the gross amount (≥ 0, summing to at most 1), got ${JSON.stringify(rule)}.`,
    );
  }
  return ({ gross_amount }) => ({
    psp_fee_amount: Math.round(gross_amount * psp),
    platform_fee_amount: Math.round(gross_amount * platform),
  });
}

function readDate(value: string | null, field: string, errors: FieldErrors): string | undefined {
  if (value === null) return undefined;
  const parsed = /^\d{4}-\d{2}-\d{2}$/.test(value) ? new Date(`${value}T00:00:00Z`) : undefined;
  if (!parsed || Number.isNaN(parsed.getTime()) || !parsed.toISOString().startsWith(value)) {
    addError(errors, field, `Le champ ${field} ne correspond pas au format Y-m-d.`);
    return undefined;
  }
  return value;
}

/** §4.2: both bounds inclusive, compared on the UTC calendar date (the mock's time zone is UTC). */
function inRange(date: string, from: string | undefined, to: string | undefined): boolean {
  return (from === undefined || date >= from) && (to === undefined || date <= to);
}

function str(value: unknown): string | null {
  return typeof value === 'string' ? value : null;
}
