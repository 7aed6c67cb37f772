/** Reading resources: one by id, the wallets, and the paginated, filtered lists. */

import { CHECKOUT_SESSION_STATUSES } from '../../schemas/checkout-session.js';
import { PAYMENT_STATUSES } from '../../schemas/payment.js';
import { addError, type FieldErrors, isEmpty, validationBody } from '../field-rules.js';
import { utcDate } from '../ids.js';
import { HttpAnswer } from '../mock-errors.js';
import { allPartitions } from './merchants.js';
import {
  type Envelope,
  type ListKind,
  MOCK_PAYMENT_LINK_STATUSES,
  MOCK_PAYOUT_STATUSES,
  type Partition,
  type Stored,
  type WalletRecord,
} from './model.js';
import type { EngineState } from './state.js';

/** The statuses a list's `status` filter accepts. */
const STATUSES: Record<ListKind, readonly string[]> = {
  payments: PAYMENT_STATUSES,
  'checkout-sessions': CHECKOUT_SESSION_STATUSES,
  payouts: MOCK_PAYOUT_STATUSES,
  'payment-links': MOCK_PAYMENT_LINK_STATUSES,
};

/** The service's 404 sentence for each kind ("payment not found", "checkout session not found", …). */
const NOT_FOUND: Record<ListKind, string> = {
  payments: 'Paiement introuvable.',
  'checkout-sessions': 'Session de paiement introuvable.',
  payouts: 'Versement introuvable.',
  'payment-links': 'Lien de paiement introuvable.',
};

/** `GET /…/{id}`: the resource, or 404 for an unknown one or another merchant's. */
export function retrieve(partition: Partition, kind: ListKind, id: string): unknown {
  const stored = mapOf(partition, kind).get(id);
  if (!stored) throw new HttpAnswer(404, { message: NOT_FOUND[kind] });
  return structuredClone(stored.data);
}

/** `GET /api/v1/wallets`: balances, not paginated. */
export function wallets(partition: Partition): WalletRecord[] {
  return [...partition.wallets.values()].map((w) => structuredClone(w));
}

/**
 * A list: filters, most recent first, the envelope with absolute links. `url` is the request's:
 * links point back to where the request went, keeping its filters, as Laravel's paginator does with
 * `withQueryString()`.
 */
export function list(state: EngineState, partition: Partition, kind: ListKind, url: URL): Envelope<unknown> {
  const q = url.searchParams;
  const errors: FieldErrors = {};
  const status = q.get('status');
  if (status !== null && !STATUSES[kind].includes(status)) addError(errors, 'status', 'La valeur sélectionnée pour status est invalide.');
  const from = readDate(q.get('from'), 'from', errors);
  const to = readDate(q.get('to'), 'to', errors);
  if (from && to && to < from) addError(errors, 'to', 'Le champ to doit être une date postérieure ou égale à from.');
  // Default 20, maximum 100. Above the maximum the service's validation refuses (422).
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

  const sorted = newestFirst(state, mapOf(partition, kind));
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

/** A map's resources newest first (ties by insertion), cached until the next creation. */
function newestFirst(state: EngineState, map: Map<string, Stored<unknown>>): Stored<unknown>[] {
  const cached = state.sorted.get(map);
  if (cached && cached.seq === state.seq && cached.size === map.size) return cached.items;
  const items = [...map.values()].sort((a, b) => b.createdMs - a.createdMs || b.seq - a.seq);
  state.sorted.set(map, { seq: state.seq, size: map.size, items });
  return items;
}

function mapOf(partition: Partition, kind: ListKind): Map<string, Stored<unknown>> {
  if (kind === 'payments') return partition.payments;
  if (kind === 'checkout-sessions') return partition.sessions;
  if (kind === 'payouts') return partition.payouts;
  return partition.links;
}

/** A `Y-m-d` query date, or a validation error on `field`. */
function readDate(value: string | null, field: string, errors: FieldErrors): string | undefined {
  if (value === null) return undefined;
  const parsed = /^\d{4}-\d{2}-\d{2}$/.test(value) ? new Date(`${value}T00:00:00Z`) : undefined;
  if (!parsed || Number.isNaN(parsed.getTime()) || !parsed.toISOString().startsWith(value)) {
    addError(errors, field, `Le champ ${field} ne correspond pas au format Y-m-d.`);
    return undefined;
  }
  return value;
}

/** Both bounds inclusive, compared on the UTC calendar date (the mock's time zone is UTC). */
function inRange(date: string, from: string | undefined, to: string | undefined): boolean {
  return (from === undefined || date >= from) && (to === undefined || date <= to);
}

/** One resource of some merchant, with the mode of the key that sees it. */
export interface RecordOf<T> {
  readonly mode: Partition['mode'];
  readonly merchant: string;
  readonly data: T;
}

/** The `limit` newest resources of `kind` across every merchant and mode, newest first, as copies. */
export function newestRecords(state: EngineState, kind: ListKind, limit: number): Array<RecordOf<unknown>> {
  const all: Array<{ partition: Partition; stored: Stored<unknown> }> = [];
  for (const partition of allPartitions(state.merchants)) {
    for (const stored of newestFirst(state, mapOf(partition, kind)).slice(0, limit)) all.push({ partition, stored });
  }
  all.sort((a, b) => b.stored.createdMs - a.stored.createdMs || b.stored.seq - a.stored.seq);
  return all.slice(0, limit).map(({ partition, stored }) => ({
    mode: partition.mode,
    merchant: partition.merchant.id,
    data: structuredClone(stored.data),
  }));
}
