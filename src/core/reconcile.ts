/**
 * Reconciliation: walks the service's own lists of a window of payments and reports each payment
 * whose final status the merchant never handled, and each payment still unsettled long after it
 * started. A payment that went on after `succeeded` (refunded, disputed, or a status the service
 * adds later) was announced by `payment.succeeded` first: unhandled, it is missed like a succeeded
 * one. It reads only the statuses it needs, through the list's `status`, `from` and `to` filters,
 * each page once, one page ahead at most: memory stays flat however large the window.
 */

import * as z from 'zod/mini';
import { DAY_MS } from '../internal/durations.js';
import { readAhead } from '../internal/read-ahead.js';
import { checkParams } from '../internal/validation.js';
import { type DateFilter, isCalendarDate, listParamsShape } from '../schemas/list-params.js';
import { PAYMENT_STATUSES, type Payment, type PaymentListParams } from '../schemas/payment.js';
import { handleOnce, paymentKey, storeCall } from '../stores/handle-once.js';
import type { Store } from '../stores/store.js';
import type { ValidationIssue } from './errors.js';
import type { PagePromise } from './pagination.js';
import type { RequestOptions } from './request-options.js';
import { errorTypeOf, type ReconcileObserver, type Telemetry } from './telemetry.js';

/** The event a payment's final status is announced with. */
export type PaymentFinalEventType = 'payment.succeeded' | 'payment.failed';

/**
 * A payment whose final status was never handled: its event was lost, or is still being retried.
 * A payment now `refunded`, `disputed` or in a status this SDK does not know yet went through
 * `succeeded` first: its `expectedEvent` is `payment.succeeded`.
 */
export interface MissedPaymentFinding {
  kind: 'missed';
  /** The payment as the service lists it now. */
  payment: Payment;
  /** The event that announces its status, which was expected and never handled. */
  expectedEvent: PaymentFinalEventType;
  /**
   * Given `onEvent`: `true` once it handled the payment through the store (now, or by a delivery that
   * arrived meanwhile), `false` when it threw or the store failed (`error` says which; the next run
   * tries again). Absent without `onEvent`.
   */
  handled?: boolean;
  /** Why `handled` is `false`. */
  error?: unknown;
}

/**
 * The made-up event `onEvent` receives for a missed payment: the payment as the service lists it now,
 * under the id `reconciled:<uuid>:<type>`. `reconciled: true` is set by the SDK only; a delivery that
 * carries it is an ordinary event.
 */
export interface ReconciledPaymentEvent {
  id: string;
  type: PaymentFinalEventType;
  data: Payment;
  reconciled: true;
}

/** A payment still `pending` (or `processing`) longer than `stalePendingAfter` after it was created. */
export interface StalePaymentFinding {
  kind: 'stale';
  /** The payment as the service lists it now. */
  payment: Payment;
  expectedEvent?: undefined;
}

/** One finding of `client.payments.reconcile()`: a missed final status, or a payment stuck unsettled. */
export type ReconcileFinding = MissedPaymentFinding | StalePaymentFinding;

/** How far a reconciliation has gone, after each page. */
export interface ReconcileProgress {
  /** Payments read so far. */
  read: number;
  /** Payments in the lists started so far (`meta.total`): it grows as each status's list starts. */
  total: number;
  /** Findings of kind `missed` so far. */
  missed: number;
  /** Findings of kind `stale` so far. */
  stale: number;
}

/** Options every reconciliation takes, whichever way "handled" is told. */
export interface ReconcileWindow {
  /**
   * Start of the window: a `'YYYY-MM-DD'` date (inclusive, a UTC calendar day like the service's
   * filters) or a `Date` (payments created at or after that instant).
   */
  from: string | Date;
  /** End of the window: a date (inclusive) or a `Date` (created at or before it). Default: no end. */
  to?: string | Date;
  /**
   * Milliseconds after its creation past which a payment still `pending` or `processing` is
   * reported as `stale`. Default 30 minutes; a payment unsettled for less is not reported.
   */
  stalePendingAfter?: number;
  /** Called after each page read, e.g. to draw a progress bar. */
  onProgress?: (progress: ReconcileProgress) => void;
}

/**
 * Reconciliation against the store the webhook endpoint records its deliveries in (the same
 * `store`): a payment is handled when its final event is recorded there, by a delivery or by an
 * earlier reconciliation.
 */
export interface ReconcileWithStore<Context = undefined, Effects = unknown> extends ReconcileWindow {
  /** The webhook endpoint's store (see `payments-sdk/stores`). */
  store: Store<Context, Effects>;
  /**
   * Handles each missed payment through the store exactly once, as the webhook endpoint would (in
   * the same transaction, with a transactional store), with a {@link ReconciledPaymentEvent}. A late
   * original delivery of the same payment then finds it handled, and the other way round.
   */
  onEvent?: (event: ReconciledPaymentEvent, context: NoInfer<Context>) => NoInfer<Effects> | Promise<NoInfer<Effects>>;
  isHandled?: undefined;
}

/** Reconciliation against the merchant's own records. */
export interface ReconcileWithCheck extends ReconcileWindow {
  /**
   * Whether the final status of `payment` was handled (the order marked paid or failed). May answer
   * at once or with a promise; the payments of a page are asked together.
   */
  isHandled: (payment: Payment) => boolean | Promise<boolean>;
  store?: undefined;
  onEvent?: undefined;
}

/** Options of `client.payments.reconcile()`: the window, and either `store` (and `onEvent`) or `isHandled`. */
export type ReconcileOptions<Context = undefined, Effects = unknown> = ReconcileWithStore<Context, Effects> | ReconcileWithCheck;

/** The list call reconciliation reads through (`client.payments.list`). @internal */
export type ListPayments = (params: PaymentListParams, options?: RequestOptions) => PagePromise<Payment>;

/** Default of {@link ReconcileWindow.stalePendingAfter}: 30 minutes. */
const DEFAULT_STALE_PENDING_AFTER_MS = 30 * 60_000;

// The largest page the service serves: the fewest requests per window.
const PER_PAGE = 100;
// A payment refunded or disputed was announced by `payment.succeeded` before it moved on.
const FINAL_STATUSES: ReadonlyArray<readonly [status: string, event: PaymentFinalEventType]> = [
  ['succeeded', 'payment.succeeded'],
  ['refunded', 'payment.succeeded'],
  ['disputed', 'payment.succeeded'],
  ['failed', 'payment.failed'],
];
/** Statuses of a payment not settled yet: a mobile-money payment stays pending until the customer confirms on their phone. */
export const UNSETTLED_STATUSES: readonly string[] = ['pending', 'processing'];
/** Statuses that are never reported: the payment ended without being paid, and no event announces it. */
const UNREPORTED_STATUSES = ['canceled', 'expired'] as const;
const KNOWN_STATUSES: ReadonlySet<string> = new Set(PAYMENT_STATUSES);

/** A function option, typed as the option it checks. */
const callback = <T>() => z.custom<T>((value) => typeof value === 'function', { error: 'must be a function' });

/**
 * The options as given: the window is checked as the list's own `from` and `to` filters are, and
 * sent to the list as given (a `Date` goes as its UTC date).
 */
const ReconcileOptionsSchema = z.object({
  // The list's own date filter, required here.
  from: listParamsShape.from.def.innerType,
  to: listParamsShape.to,
  stalePendingAfter: z.optional(z.number().check(z.minimum(0))),
  store: z.optional(
    z.custom<Store<unknown, unknown>>((store) => typeof store?.read === 'function' && typeof store.claim === 'function', {
      error: 'must be a Store from payments-sdk/stores',
    }),
  ),
  isHandled: z.optional(callback<ReconcileWithCheck['isHandled']>()),
  onEvent: z.optional(callback<NonNullable<ReconcileWithStore<unknown, unknown>['onEvent']>>()),
  onProgress: z.optional(callback<NonNullable<ReconcileWindow['onProgress']>>()),
});

/** The instant a bound stands for: a `Date`'s own, a date's first millisecond (its last, for `to`); NaN for neither. */
function instant(bound: unknown, to: boolean): number {
  if (bound instanceof Date) return bound.getTime();
  return typeof bound === 'string' && isCalendarDate(bound) ? Date.parse(bound) + (to ? DAY_MS - 1 : 0) : Number.NaN;
}

/** The checked options, or one `InvalidParamsError` naming every bad one. */
function checkOptions(options: ReconcileOptions<unknown, unknown>) {
  const { from, to, store, isHandled } = options ?? {};
  const start = instant(from, false);
  const end = instant(to, true);
  // What no single field says: a window that ends before it starts, how "handled" is told.
  const more: ValidationIssue[] = [];
  if (end < start) more.push({ path: ['to'], message: 'must not be before from' });
  if (store !== undefined && isHandled !== undefined) more.push({ path: ['store'], message: 'give store or isHandled, not both' });
  else if (store === undefined && isHandled === undefined)
    more.push({ path: ['isHandled'], message: 'must be a function, or give a store' });
  const checked = checkParams(ReconcileOptionsSchema, options, 'reconcile options', more);
  // Only a `Date` bound filters what the list answers: a date is the service's own filter, read in
  // a time zone the service does not document, so a payment it lists for that day is kept.
  return {
    ...checked,
    start: from instanceof Date ? start : Number.NaN,
    end: to instanceof Date ? end : Number.NaN,
    stale: checked.stalePendingAfter ?? DEFAULT_STALE_PENDING_AFTER_MS,
  };
}

type Checked = ReturnType<typeof checkOptions>;

/**
 * Whether a payment's `created_at` lies inside the window's `Date` bounds, instants the service's
 * date filter cannot express. A date bound is left to the service.
 */
function inWindow(payment: Payment, { start, end }: Checked): boolean {
  const created = Date.parse(payment.created_at);
  // A timestamp that cannot be read is kept (every comparison with NaN is false): better reported than
  // silently left out. So is every payment after `from` when there is no `to` (its end is NaN).
  return !(created < start || created > end);
}

/**
 * Whether each of `payments` was handled: its final event `type` recorded in the store (one read per
 * page), or `isHandled` answered true (the payments of a page are asked together).
 */
async function handledOf(payments: readonly Payment[], type: PaymentFinalEventType, { store, isHandled }: Checked): Promise<boolean[]> {
  if (!store)
    return (await Promise.all(payments.map((payment) => (isHandled as ReconcileWithCheck['isHandled'])(payment)))).map(
      (answer) => answer === true,
    );
  const records = await storeCall(store, 'read', () => store.read(payments.map((payment) => paymentKey(payment.uuid, type))));
  return payments.map((_, i) => records[i]?.settled === true);
}

/** Handles one missed payment through the store with its made-up event; never throws. */
async function handleMissed(
  finding: MissedPaymentFinding,
  store: Store<unknown, unknown>,
  onEvent: NonNullable<ReconcileWithStore<unknown, unknown>['onEvent']>,
): Promise<MissedPaymentFinding> {
  const { payment, expectedEvent: type } = finding;
  const event: ReconciledPaymentEvent = { id: `reconciled:${payment.uuid}:${type}`, type, data: payment, reconciled: true };
  const result = await handleOnce(store, { key: paymentKey(payment.uuid, type) }, (context) => onEvent(event, context), {
    event_id: event.id,
    type,
    at: new Date().toISOString(),
    reconciled: true,
  });
  // 409: a delivery of the same payment is being handled right now; the next run finds it recorded.
  return result.status === 200 ? { ...finding, handled: true } : { ...finding, handled: false, error: result.error };
}

/**
 * Reconciles a window of payments (see {@link ReconcileOptions}): yields a `missed` finding for each
 * `succeeded`, `refunded`, `disputed` or `failed` payment whose final event was never handled, then a
 * `stale` finding for each payment still `pending` or `processing` past `stalePendingAfter`, then a
 * `missed` finding (`payment.succeeded`) for each unhandled payment in a status this SDK does not know. The options are checked at once: an
 * `InvalidParamsError` names every bad one before any request.
 * @internal Used by `client.payments.reconcile`.
 */
export function reconcilePayments(
  list: ListPayments,
  options: ReconcileOptions<unknown, unknown>,
  requestOptions?: RequestOptions,
  telemetry?: Telemetry,
): AsyncGenerator<ReconcileFinding, void, undefined> {
  return walk(list, checkOptions(options), requestOptions, telemetry);
}

/** What observes a run without telemetry: its reads run as they are, nothing is reported. */
const UNOBSERVED: ReconcileObserver = { run: (work) => work(), onFinding() {}, end() {} };

/** A bound as the merchant gave it, for telemetry: the date, or the instant in ISO 8601. */
function boundText(bound: DateFilter): string {
  return bound instanceof Date ? bound.toISOString() : bound;
}

async function* walk(
  list: ListPayments,
  checked: Checked,
  requestOptions: RequestOptions | undefined,
  telemetry: Telemetry | undefined,
): AsyncGenerator<ReconcileFinding, void, undefined> {
  const { from, to, stale, store, onEvent, onProgress } = checked;
  // --- telemetry wiring: one observed run, its reads inside it, one report per finding ---
  const observer =
    telemetry?.onReconcile?.(to === undefined ? { from: boundText(from) } : { from: boundText(from), to: boundText(to) }) ?? UNOBSERVED;
  const run = observer.run.bind(observer);
  let errorType: string | undefined;
  // --- end telemetry wiring ---
  const progress: ReconcileProgress = { read: 0, total: 0, missed: 0, stale: 0 };
  const params = (status: string | undefined, perPage = PER_PAGE): PaymentListParams => ({ status, from, to, per_page: perPage });
  /** Payments of the window in each status listed so far, as the service counts them (`meta.total`). */
  let listed = 0;
  // Each status's list (`undefined`: every status), page by page, the next page asked for while this
  // one is checked and its findings handed out; progress is told once they all are.
  async function* pagesOf(status: string | undefined, keep: (payment: Payment) => boolean) {
    let first = true;
    for await (const page of readAhead(run(() => list(params(status), requestOptions)).pages(), run)) {
      if (first && status !== undefined) {
        progress.total += page.meta.total;
        listed += page.meta.total;
      }
      first = false;
      // Only what the filter asked for: a service that ignored it must not make every payment a finding.
      const kept = page.data.filter((payment) => keep(payment) && inWindow(payment, checked));
      progress.read += status === undefined ? kept.length : page.data.length;
      yield kept;
      onProgress?.({ ...progress });
    }
  }
  /** A finding, counted and reported. */
  const found = <F extends ReconcileFinding>(finding: F): F => {
    progress[finding.kind] += 1;
    observer.onFinding(finding.kind);
    return finding;
  };
  async function* missed(
    status: string | undefined,
    expectedEvent: PaymentFinalEventType,
    keep = (payment: Payment) => payment.status === status,
  ) {
    for await (const payments of pagesOf(status, keep)) {
      const handled = payments.length > 0 ? await handledOf(payments, expectedEvent, checked) : [];
      for (const [i, payment] of payments.entries()) {
        if (handled[i]) continue;
        const finding = found<MissedPaymentFinding>({ kind: 'missed', payment, expectedEvent });
        yield store && onEvent ? await handleMissed(finding, store, onEvent) : finding;
      }
    }
  }

  try {
    for (const [status, expectedEvent] of FINAL_STATUSES) yield* missed(status, expectedEvent);
    for (const status of UNSETTLED_STATUSES) {
      // Younger than the threshold: the customer may still be confirming. Unreadable: reported.
      const isStale = (payment: Payment) => payment.status === status && !(Date.parse(payment.created_at) > Date.now() - stale);
      for await (const payments of pagesOf(status, isStale)) for (const payment of payments) yield found({ kind: 'stale', payment });
    }
    // A status this SDK does not know cannot be asked for by name. The window's count of every status
    // against those of the known ones says whether there is any: only then is the window read whole,
    // for the payments in such a status, each announced by `payment.succeeded` before it moved on.
    const count = async (status?: string) => (await run(() => list(params(status, 1), requestOptions))).meta.total;
    for (const status of UNREPORTED_STATUSES) listed += await count(status);
    const unknown = (await count()) - listed;
    if (unknown > 0) {
      progress.total += unknown;
      yield* missed(undefined, 'payment.succeeded', (payment) => !KNOWN_STATUSES.has(payment.status));
    }
  } catch (error) {
    errorType = errorTypeOf(error);
    throw error;
  } finally {
    observer.end(errorType === undefined ? { checked: progress.read } : { checked: progress.read, errorType });
  }
}
