/**
 * What the service does on its own side, which a test drives: deciding payments, a customer paying
 * a checkout session or a payment link, closing sessions, moving payouts, and the events these give.
 * Resources are looked up across every merchant and mode: these actions need no API key.
 */

import { isRecord } from '../../internal/is-record.js';
import type { CheckoutSession } from '../../schemas/checkout-session.js';
import type { Payment } from '../../schemas/payment.js';
import type { PaymentLink } from '../../schemas/payment-link.js';
import type { Payout } from '../../schemas/payout.js';
import { addError, type FieldErrors, isEmpty, validationBody } from '../field-rules.js';
import { isoWithOffset, ulid } from '../ids.js';
import { MockServiceError } from '../mock-errors.js';
import { credit, NO_PAYER_OR_RETURN_URLS, newPayment, newSession, payerFor } from './creations.js';
import { expireDueSessions } from './expiry.js';
import { allPartitions } from './merchants.js';
import type {
  Found,
  MockPayerOptions,
  MockPaymentLinkStatus,
  MockPayoutStatus,
  MockWebhookEvent,
  Partition,
  Stored,
  StoredPayment,
} from './model.js';
import type { EngineState } from './state.js';

/** The service's sentence for a link that is deactivated, expired or unknown: "this link is no longer available". */
export const LINK_UNAVAILABLE = "Ce lien de paiement n'est plus disponible.";

/** Which payout moves the mock allows, and the default next step (the first). */
const PAYOUT_MOVES: Record<string, readonly MockPayoutStatus[]> = {
  pending_approval: ['approved', 'rejected'],
  approved: ['processing', 'failed'],
  processing: ['completed', 'failed'],
};

function findIn<T>(state: EngineState, pick: (partition: Partition) => Map<string, T>, id: string): Found<T> | undefined {
  for (const partition of allPartitions(state.merchants)) {
    const stored = pick(partition).get(id);
    if (stored) return { partition, stored };
  }
  return undefined;
}

/** A payment by `uuid`, in any merchant's data. */
export function findPayment(state: EngineState, id: string): Found<StoredPayment> | undefined {
  return findIn(state, (partition) => partition.payments, id);
}

/** A checkout session by reference, in any merchant's data. */
export function findSession(state: EngineState, reference: string): Found<Stored<CheckoutSession>> | undefined {
  return findIn(state, (partition) => partition.sessions, reference);
}

/** A payout by `id`, in any merchant's data. */
export function findPayout(state: EngineState, id: string): Found<Stored<Payout>> | undefined {
  return findIn(state, (partition) => partition.payouts, id);
}

/** A payment link by `uuid`, slug or `url`, in any merchant's data. */
export function findLink(state: EngineState, id: string): Found<Stored<PaymentLink>> | undefined {
  for (const partition of allPartitions(state.merchants)) {
    const stored = partition.links.get(id) ?? [...partition.links.values()].find((l) => l.data.slug === id || l.data.url === id);
    if (stored) return { partition, stored };
  }
  return undefined;
}

/** An event `{ id, type, data }` with a copy of the resource as it is now. */
export function makeEvent(state: EngineState, type: string, data: unknown): { id: string; type: string; data: unknown } {
  return { id: `evt_${ulid(state.clock.now())}`, type, data: structuredClone(data) };
}

/**
 * Decides a pending payment: `succeeded` credits the net amount to the wallet and completes its
 * checkout session; `failed` sets `failure_reason`. Returns the event.
 */
export function decidePayment(state: EngineState, id: string, outcome: 'succeeded' | 'failed', failureReason?: string): MockWebhookEvent {
  expireDueSessions(state);
  const found = findPayment(state, id);
  if (!found) throw new MockServiceError(`No payment ${JSON.stringify(id)} in the mock.`);
  const { partition, stored } = found;
  const payment = stored.data;
  if (payment.status !== 'pending' && payment.status !== 'processing') {
    throw new MockServiceError(
      `Payment ${id} is ${payment.status}: only a pending payment is decided by payment.succeeded or payment.failed.`,
    );
  }
  if (outcome === 'succeeded') {
    payment.status = 'succeeded';
    payment.failure_reason = null;
    credit(partition, payment.currency, payment.net_amount_to_merchant);
    const session = payment.checkout_session ? partition.sessions.get(payment.checkout_session) : undefined;
    if (session) session.data.status = 'completed';
  } else {
    payment.status = 'failed';
    payment.failure_reason = failureReason ?? 'declined';
  }
  return makeEvent(state, `payment.${outcome}`, payment) as MockWebhookEvent;
}

/** The customer starts paying on the hosted page: a pending payment with `checkout_session` = reference; the session moves to `pending_payment`. */
export function startSessionPayment(state: EngineState, reference: string, payer: MockPayerOptions = {}): Payment {
  expireDueSessions(state);
  const found = findSession(state, reference);
  if (!found) throw new MockServiceError(`No checkout session ${JSON.stringify(reference)} in the mock.`);
  const { partition, stored } = found;
  const session = stored.data;
  if (session.status !== 'created' && session.status !== 'pending_payment') {
    throw new MockServiceError(
      `Checkout session ${reference} is ${session.status}: only a created or pending_payment session can be paid.`,
    );
  }
  const pending = pendingPaymentOf(partition, reference);
  if (pending) return structuredClone(pending.data);
  const channel = isRecord(session.metadata) && typeof session.metadata.payment_link === 'string' ? 'payment_link' : 'checkout';
  const made = newPayment(state, partition, {
    ...payerFor(state, session.currency, payer),
    gross: session.amount,
    currency: session.currency,
    session: reference,
    channel,
    status: 'pending',
  });
  session.status = 'pending_payment';
  return structuredClone(made.data);
}

/** Pays a checkout session: its payment (new or already pending) is decided; `succeeded` completes the session. */
export function paySession(
  state: EngineState,
  reference: string,
  outcome: 'succeeded' | 'failed',
  payer: MockPayerOptions = {},
  failureReason?: string,
): MockWebhookEvent {
  const payment = startSessionPayment(state, reference, payer);
  return decidePayment(state, payment.uuid, outcome, failureReason);
}

function pendingPaymentOf(partition: Partition, reference: string): StoredPayment | undefined {
  for (const s of partition.payments.values()) if (s.data.checkout_session === reference && s.data.status === 'pending') return s;
  return undefined;
}

/** Ends a session without payment: `expired` (time ran out) or `cancelled` (the customer cancelled). */
export function closeSession(state: EngineState, reference: string, status: 'expired' | 'cancelled'): CheckoutSession {
  expireDueSessions(state);
  const found = findSession(state, reference);
  if (!found) throw new MockServiceError(`No checkout session ${JSON.stringify(reference)} in the mock.`);
  const session = found.stored.data;
  if (session.status !== 'created' && session.status !== 'pending_payment') {
    throw new MockServiceError(
      `Checkout session ${reference} is ${session.status}: only a created or pending_payment session can become ${status}.`,
    );
  }
  session.status = status;
  if (status === 'expired') session.expires_at = isoWithOffset(Math.min(Date.parse(session.expires_at), state.clock.now()));
  return structuredClone(session);
}

/**
 * A customer pays a payment link: a session of the link is made and paid, so the payment appears in
 * `GET /payments` with that session's reference. A deactivated, expired or unknown link is refused
 * with the service's sentence; an amount below `minimum_amount` is a validation error on `amount`.
 */
export function payPaymentLink(
  state: EngineState,
  id: string,
  options: { amount?: number; outcome: 'succeeded' | 'failed'; failure_reason?: string } & MockPayerOptions,
): MockWebhookEvent {
  expireDueSessions(state);
  const found = findLink(state, id);
  if (found?.stored.data.status !== 'active') throw new MockServiceError(LINK_UNAVAILABLE);
  const { partition, stored } = found;
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
  const session = newSession(state, partition, {
    amount: amount as number,
    currency: link.currency as string,
    description: typeof link.title === 'string' ? link.title : null,
    ...NO_PAYER_OR_RETURN_URLS,
    metadata: { payment_link: link.uuid },
  });
  return paySession(state, session.data.reference, options.outcome, options, options.failure_reason);
}

/** Sets a payment link's state, as the merchant dashboard does (the API has no endpoint for it). */
export function setPaymentLinkStatus(state: EngineState, id: string, status: MockPaymentLinkStatus): PaymentLink {
  const found = findLink(state, id);
  if (!found) throw new MockServiceError(`No payment link ${JSON.stringify(id)} in the mock.`);
  found.stored.data.status = status;
  return structuredClone(found.stored.data);
}

/**
 * Moves a payout one step (the service does not document payout states or event names; these are
 * the mock's). `rejected` and `failed` give the amount back to the wallet.
 */
export function movePayout(state: EngineState, id: string, to: MockPayoutStatus | undefined, failureReason?: string): MockWebhookEvent {
  const found = findPayout(state, id);
  if (!found) throw new MockServiceError(`No payout ${JSON.stringify(id)} in the mock.`);
  const { partition, stored } = found;
  const payout = stored.data;
  const allowed = PAYOUT_MOVES[String(payout.status)] ?? [];
  const next = to ?? allowed[0];
  if (!next || !allowed.includes(next)) {
    throw new MockServiceError(
      `Payout ${id} is ${String(payout.status)}: it can move to ${allowed.length ? allowed.join(' or ') : 'nothing (final state)'}, not ${String(to)}.`,
    );
  }
  payout.status = next;
  payout.updated_at = isoWithOffset(state.clock.now());
  if (next === 'rejected' || next === 'failed') {
    payout.failure_reason = failureReason ?? (next === 'rejected' ? 'rejected_by_reviewer' : 'operator_error');
    credit(partition, String(payout.currency), Number(payout.amount));
  }
  return makeEvent(state, `payout.${next}`, payout) as MockWebhookEvent;
}
