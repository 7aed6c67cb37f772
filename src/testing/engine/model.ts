/**
 * The shapes the mock's engine keeps: merchants, their per-mode partitions, stored resources, and
 * the states the mock gives payouts and payment links.
 */

import type { CheckoutSession } from '../../schemas/checkout-session.js';
import type { Payment } from '../../schemas/payment.js';
import type { PaymentLink } from '../../schemas/payment-link.js';
import type { Payout } from '../../schemas/payout.js';
import type { MockFeeInput, MockKycStatus } from '../options.js';

/** A key's mode. */
export type KeyMode = 'live' | 'sandbox';

/**
 * Payout states of the mock. The service says only that a payout awaits approval and is then sent
 * to the operator; these names are the mock's own.
 */
export const MOCK_PAYOUT_STATUSES = ['pending_approval', 'approved', 'processing', 'completed', 'rejected', 'failed'] as const;

/** A payout state of the mock. */
export type MockPayoutStatus = (typeof MOCK_PAYOUT_STATUSES)[number];

/**
 * Payment-link states of the mock. The service says a link is active, deactivated or expired
 * without naming the states; these names are the mock's.
 */
export const MOCK_PAYMENT_LINK_STATUSES = ['active', 'deactivated', 'expired'] as const;

/** A payment-link state of the mock. */
export type MockPaymentLinkStatus = (typeof MOCK_PAYMENT_LINK_STATUSES)[number];

/** An event as the service sends it: `{ id, type, data }`, `data` being the resource as it is now. */
export type MockWebhookEvent =
  | { id: string; type: 'payment.succeeded' | 'payment.failed'; data: Payment }
  | { id: string; type: `payout.${MockPayoutStatus}`; data: Payout };

/** What a list endpoint answers: Laravel's paginator envelope, with absolute links. */
export interface Envelope<T> {
  data: T[];
  links: { first: string; last: string; prev: string | null; next: string | null };
  meta: { current_page: number; last_page: number; per_page: number; total: number; from: number | null; to: number | null; path: string };
}

/** One stored resource: its data, when it was made (for ordering and date filters), and an insertion rank. */
export interface Stored<T> {
  data: T;
  createdMs: number;
  seq: number;
}

/** A stored payment, with the channel it came through (the fee rule reads it). */
export interface StoredPayment extends Stored<Payment> {
  channel: MockFeeInput['channel'];
}

/** A wallet: its currency, its balance in minor units, and any field a seed gave it. */
export type WalletRecord = { currency: string; balance: number; [key: string]: unknown };

/** The answer stored under an `Idempotency-Key`, with what the request looked like and when. */
export interface IdempotencyRecord {
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

/** The list kinds. */
export type ListKind = 'payments' | 'checkout-sessions' | 'payouts' | 'payment-links';

/** A resource found in some merchant's data, with the partition that holds it. */
export interface Found<T> {
  partition: Partition;
  stored: T;
}

/** A partition with no resources, wallets or idempotency records. */
export function emptyPartition(merchant: MerchantState, mode: KeyMode): Partition {
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

/** Options of a checkout-session payment made by the mock (the customer on the hosted page). */
export interface MockPayerOptions {
  /** ISO 3166-1 alpha-3 of the payer's operator. Default: the first country of the session's currency. */
  country?: string;
  /** Operator code. Default: the country's first operator. */
  provider?: string;
  /** `'card'` gives `mobile_money_country`/`provider` = `null`, as the service does for card payments. Default `'mobile_money'`. */
  payment_method?: 'mobile_money' | 'card';
}
