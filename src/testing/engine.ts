/**
 * The state and rules of the mock service, behind one front: merchants and keys, the four
 * resources, wallets, idempotency records, the clock. Each job lives in its own module under
 * `engine/`; HTTP framing lives in `router.ts`, signing in `delivery.ts`.
 */

import type { CheckoutSession } from '../schemas/checkout-session.js';
import type { Payment } from '../schemas/payment.js';
import type { PaymentLink } from '../schemas/payment-link.js';
import type { Payout } from '../schemas/payout.js';
import * as actions from './engine/actions.js';
import * as creations from './engine/creations.js';
import { expireDueSessions } from './engine/expiry.js';
import { idempotentReplay, rememberIdempotent } from './engine/idempotency.js';
import { authenticate, emptyAllPartitions, partitionOfKey, setMerchant } from './engine/merchants.js';
import type * as model from './engine/model.js';
import { list, newestRecords, type RecordOf, retrieve, wallets } from './engine/reads.js';
import { applySeed } from './engine/seed.js';
import { createEngineState, type EngineState } from './engine/state.js';
import type { MockKycStatus, MockSeed, MockServiceOptions } from './options.js';

/** The whole model. One instance per `createMockService()`. */
export class Engine {
  readonly #state: EngineState;

  constructor(baseUrl: string, options: MockServiceOptions) {
    this.#state = createEngineState(baseUrl, options);
    if (options.seed) this.seed(options.seed, this.keys[0]?.key);
  }

  /** The base URL the mock answers on. */
  get baseUrl(): string {
    return this.#state.baseUrl;
  }

  /**
   * Origin of the hosted pages (`checkout_url`): the `checkoutBaseUrl` option, else the base URL, or
   * the origin of a running `mock.listen()` server, so the address a test opens reaches the mock.
   */
  get hostedOrigin(): string {
    return this.#state.hostedOrigin;
  }

  set hostedOrigin(origin: string) {
    this.#state.hostedOrigin = origin;
  }

  /** `true` when `checkoutBaseUrl` was given: then it stays the origin of `checkout_url` and link `url`. */
  get hostedOriginFixed(): boolean {
    return this.#state.hostedOriginFixed;
  }

  /** The secret deliveries are signed with. */
  get webhookSecret(): string {
    return this.#state.webhookSecret;
  }

  /** Every configured key. */
  get keys(): readonly model.MockKeyInfo[] {
    return this.#state.merchants.keys;
  }

  // Clock

  /** Milliseconds since the epoch on the mock's clock. */
  now(): number {
    return this.#state.clock.now();
  }

  /** Moves the clock forward, then applies what time does (sessions expire at `expires_at`). */
  advance(ms: number): void {
    this.#state.clock.advance(ms);
    this.sweep();
  }

  /** Expires checkout sessions whose `expires_at` has passed. */
  sweep(): void {
    expireDueSessions(this.#state);
  }

  // Merchants and keys

  /** The partition of an `Authorization` header, or the 401/403 the service answers. */
  authenticate(authorization: string | null): model.Partition {
    return authenticate(this.#state.merchants, authorization);
  }

  /** The partition of a configured key, for the kit's own methods. */
  partitionOfKey(key: string | undefined): model.Partition {
    return partitionOfKey(this.#state.merchants, key);
  }

  /** Changes a merchant's KYC state or suspension, as the service's back office would. */
  setMerchant(id: string, changes: { kyc?: MockKycStatus; suspended?: boolean }): void {
    setMerchant(this.#state.merchants, id, changes);
  }

  /** Forgets every resource and idempotency record, then applies the `seed` option again. */
  reset(): void {
    emptyAllPartitions(this.#state.merchants);
    if (this.#state.options.seed) this.seed(this.#state.options.seed, this.keys[0]?.key);
  }

  // Idempotency

  /** The stored answer of a repeated `Idempotency-Key`, `undefined` for a new one, or a 409 for other content. */
  idempotentReplay(partition: model.Partition, scope: string, key: string, fingerprint: string): unknown {
    return idempotentReplay(partition, this.now(), scope, key, fingerprint);
  }

  /** Remembers the 201 answer of a creation under its key. */
  rememberIdempotent(partition: model.Partition, scope: string, key: string, fingerprint: string, body: unknown): void {
    rememberIdempotent(partition, this.now(), scope, key, fingerprint, body);
  }

  // Creations

  /** `POST /api/v1/payments`. */
  createDirectCharge(partition: model.Partition, input: Record<string, unknown>): Payment {
    return creations.createDirectCharge(this.#state, partition, input);
  }

  /** `POST /api/v1/checkout-sessions`. */
  createCheckoutSession(partition: model.Partition, input: Record<string, unknown>): CheckoutSession {
    return creations.createCheckoutSession(this.#state, partition, input);
  }

  /** `POST /api/v1/payouts`. */
  createPayout(partition: model.Partition, input: Record<string, unknown>): Payout {
    return creations.createPayout(this.#state, partition, input);
  }

  /** `POST /api/v1/payment-links`. */
  createPaymentLink(partition: model.Partition, input: Record<string, unknown>): PaymentLink {
    return creations.createPaymentLink(this.#state, partition, input);
  }

  /** Converts minor units between currencies with the rate table; `undefined` when no rate exists. */
  convert(amount: number, from: string, to: string): number | undefined {
    return creations.convert(this.#state, amount, from, to);
  }

  // Reads

  /** `GET /…/{id}`: the resource, or 404. */
  retrieve(partition: model.Partition, kind: model.ListKind, id: string): unknown {
    return retrieve(partition, kind, id);
  }

  /** `GET /api/v1/wallets`. */
  wallets(partition: model.Partition): model.WalletRecord[] {
    return wallets(partition);
  }

  /** A list endpoint's answer for the request `url`. */
  list(partition: model.Partition, kind: model.ListKind, url: URL): model.Envelope<unknown> {
    return list(this.#state, partition, kind, url);
  }

  /** The `limit` newest resources of `kind` across every merchant and mode, newest first. */
  newestRecords(kind: model.ListKind, limit: number): Array<RecordOf<unknown>> {
    return newestRecords(this.#state, kind, limit);
  }

  // Actions: what the service does on its own

  /** A payment by `uuid`, in any merchant's data. */
  findPayment(id: string): model.Found<model.StoredPayment> | undefined {
    return actions.findPayment(this.#state, id);
  }

  /** A checkout session by reference, in any merchant's data. */
  findSession(reference: string): model.Found<model.Stored<CheckoutSession>> | undefined {
    return actions.findSession(this.#state, reference);
  }

  /** A payout by `id`, in any merchant's data. */
  findPayout(id: string): model.Found<model.Stored<Payout>> | undefined {
    return actions.findPayout(this.#state, id);
  }

  /** A payment link by `uuid`, slug or `url`. */
  findLink(id: string): model.Found<model.Stored<PaymentLink>> | undefined {
    return actions.findLink(this.#state, id);
  }

  /** Decides a pending payment; returns the event. */
  decidePayment(id: string, outcome: 'succeeded' | 'failed', failureReason?: string): model.MockWebhookEvent {
    return actions.decidePayment(this.#state, id, outcome, failureReason);
  }

  /** The customer starts paying a checkout session on the hosted page. */
  startSessionPayment(reference: string, payer: model.MockPayerOptions = {}): Payment {
    return actions.startSessionPayment(this.#state, reference, payer);
  }

  /** Pays a checkout session; returns the payment's event. */
  paySession(
    reference: string,
    outcome: 'succeeded' | 'failed',
    payer: model.MockPayerOptions = {},
    failureReason?: string,
  ): model.MockWebhookEvent {
    return actions.paySession(this.#state, reference, outcome, payer, failureReason);
  }

  /** Ends a session without payment. */
  closeSession(reference: string, status: 'expired' | 'cancelled'): CheckoutSession {
    return actions.closeSession(this.#state, reference, status);
  }

  /** A customer pays a payment link; returns the payment's event. */
  payPaymentLink(
    id: string,
    options: { amount?: number; outcome: 'succeeded' | 'failed'; failure_reason?: string } & model.MockPayerOptions,
  ): model.MockWebhookEvent {
    return actions.payPaymentLink(this.#state, id, options);
  }

  /** Sets a payment link's state, as the merchant dashboard does. */
  setPaymentLinkStatus(id: string, status: model.MockPaymentLinkStatus): PaymentLink {
    return actions.setPaymentLinkStatus(this.#state, id, status);
  }

  /** Moves a payout one step; returns the event. */
  movePayout(id: string, to: model.MockPayoutStatus | undefined, failureReason?: string): model.MockWebhookEvent {
    return actions.movePayout(this.#state, id, to, failureReason);
  }

  /** An event `{ id, type, data }` with a copy of the resource as it is now. */
  event(type: string, data: unknown): { id: string; type: string; data: unknown } {
    return actions.makeEvent(this.#state, type, data);
  }

  // Seed

  /** Adds resources to a key's partition, filling what is missing as the service would. */
  seed(seed: MockSeed, apiKey: string | undefined): void {
    applySeed(this.#state, this.partitionOfKey(apiKey), seed);
  }
}
