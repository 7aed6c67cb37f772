/**
 * Reconciliation: walks the service's own lists of a window of payments and reports each payment
 * whose final status the merchant never handled, and each payment still unsettled long after it
 * started. A payment that went on after `succeeded` (refunded, disputed, or a status the service
 * adds later) was announced by `payment.succeeded` first: unhandled, it is missed like a succeeded
 * one. It reads only the statuses it needs, through the list's `status`, `from` and `to` filters,
 * each page once, one page ahead at most: memory stays flat however large the window.
 */

import { readAhead } from '../internal/read-ahead.js';
import { isSendableDate } from '../schemas/list-params.js';
import { PAYMENT_STATUSES, type Payment, type PaymentListParams } from '../schemas/payment.js';
import { handleOnce, paymentKey, storeCall } from '../stores/handle-once.js';
import type { Store } from '../stores/store.js';
import { InvalidParamsError, type ValidationIssue } from './errors.js';
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
const UNSETTLED_STATUSES = ['pending', 'processing'] as const;
/** Statuses that are never reported: the payment ended without being paid, and no event announces it. */
const UNREPORTED_STATUSES = ['canceled', 'expired'] as const;
const KNOWN_STATUSES: ReadonlySet<string> = new Set(PAYMENT_STATUSES);
const DAY = /^\d{4}-\d{2}-\d{2}$/;

/** A bound of the window as the service's filter (its UTC date) and, for a `Date`, the exact instant. */
interface Bound {
  filter: string;
  instant?: number;
}

function readBound(value: unknown, name: 'from' | 'to', issues: ValidationIssue[]): Bound | undefined {
  if (isSendableDate(value)) return { filter: value.toISOString().slice(0, 10), instant: value.getTime() };
  // `2026-02-30` has the shape of a date but is none: its instant reads back as another day.
  if (typeof value === 'string' && DAY.test(value) && new Date(Date.parse(value) || 0).toISOString().startsWith(value))
    return { filter: value };
  issues.push({ path: [name], message: `must be a "YYYY-MM-DD" date or a valid Date, got ${String(value)}` });
  return undefined;
}

/** The checked options, or one {@link InvalidParamsError} naming every bad one. */
function checkOptions(options: ReconcileOptions<unknown, unknown>) {
  const issues: ValidationIssue[] = [];
  const { store, isHandled, onEvent, onProgress, stalePendingAfter: stale = DEFAULT_STALE_PENDING_AFTER_MS } = options ?? {};
  const from = readBound(options?.from, 'from', issues);
  const to = options?.to === undefined ? undefined : readBound(options.to, 'to', issues);
  if (from && to && (to.instant ?? Date.parse(`${to.filter}T23:59:59.999Z`)) < (from.instant ?? Date.parse(from.filter)))
    issues.push({ path: ['to'], message: 'must not be before from' });
  if (!(stale >= 0 && stale < Number.POSITIVE_INFINITY))
    issues.push({ path: ['stalePendingAfter'], message: `must be milliseconds ≥ 0, got ${String(stale)}` });
  if (store && isHandled) issues.push({ path: ['store'], message: 'give store or isHandled, not both' });
  else if (store ? typeof store.read !== 'function' || typeof store.claim !== 'function' : typeof isHandled !== 'function')
    issues.push({
      path: [store ? 'store' : 'isHandled'],
      message: store ? 'must be a Store from payments-sdk/stores' : 'must be a function, or give a store',
    });
  if (onEvent !== undefined && typeof onEvent !== 'function') issues.push({ path: ['onEvent'], message: 'must be a function' });
  if (issues.length > 0 || !from) throw new InvalidParamsError(issues, 'reconcile options');
  return { from, to, stale, store, isHandled, onEvent, onProgress };
}

/** Whether a payment's `created_at` lies inside the bounds given as instants (a date bound is the service's to apply). */
function inWindow(payment: Payment, from: Bound, to: Bound | undefined): boolean {
  if (from.instant === undefined && to?.instant === undefined) return true;
  const created = Date.parse(payment.created_at);
  // A timestamp that cannot be read is kept: better reported than silently left out.
  if (Number.isNaN(created)) return true;
  return (from.instant === undefined || created >= from.instant) && (to?.instant === undefined || created <= to.instant);
}

/** The uuids of `payments` that `isHandled` answers true for; the payments of a page are asked together. */
async function handledByCheck(payments: readonly Payment[], isHandled: ReconcileWithCheck['isHandled']): Promise<ReadonlySet<string>> {
  const answers = await Promise.all(payments.map((payment) => isHandled(payment)));
  return new Set(payments.filter((_, i) => answers[i] === true).map((payment) => payment.uuid));
}

/** The uuids of `payments` whose final event `type` the store recorded: one read per page. */
async function handledInStore(
  payments: readonly Payment[],
  type: PaymentFinalEventType,
  store: Store<unknown, unknown>,
): Promise<ReadonlySet<string>> {
  const records = await storeCall(store, 'read', () => store.read(payments.map((payment) => paymentKey(payment.uuid, type))));
  return new Set(payments.filter((_, i) => records[i]?.settled === true).map((payment) => payment.uuid));
}

/** Handles one missed payment through the store with its made-up event; never throws. */
async function handleMissed(
  finding: MissedPaymentFinding,
  store: Store<unknown, unknown>,
  onEvent: NonNullable<ReconcileWithStore<unknown, unknown>['onEvent']>,
): Promise<MissedPaymentFinding> {
  const { payment, expectedEvent: type } = finding;
  const event: ReconciledPaymentEvent = { id: `reconciled:${payment.uuid}:${type}`, type, data: payment, reconciled: true };
  const key = paymentKey(payment.uuid, type);
  const result = await handleOnce(store, { key }, (context) => onEvent(event, context), {
    event_id: event.id,
    type,
    at: new Date().toISOString(),
    reconciled: true,
  });
  // 409: a delivery of the same payment is being handled right now; the next run finds it recorded.
  if (result.status === 200) return { ...finding, handled: true };
  return { ...finding, handled: false, error: result.error };
}

/**
 * Reconciles a window of payments (see {@link ReconcileOptions}): yields a `missed` finding for each
 * `succeeded`, `refunded`, `disputed` or `failed` payment whose final event was never handled, then a
 * `stale` finding for each payment still `pending` or `processing` past `stalePendingAfter`, then a
 * `missed` finding (`payment.succeeded`) for each unhandled payment in a status this SDK does not know. The options are checked at once: an
 * {@link InvalidParamsError} names every bad one before any request.
 * @internal Used by `client.payments.reconcile`.
 */
export function reconcilePayments(
  list: ListPayments,
  options: ReconcileOptions<unknown, unknown>,
  requestOptions?: RequestOptions,
  telemetry?: Telemetry,
): AsyncGenerator<ReconcileFinding, void, undefined> {
  const checked = checkOptions(options);
  return telemetry?.onReconcile
    ? observed(list, checked, requestOptions, telemetry.onReconcile.bind(telemetry))
    : walk(list, checked, requestOptions);
}

// --- telemetry wiring: one observed run, its reads inside it, one report per finding ---

/** {@link walk}, reported as one reconciliation run: each page read inside it, each finding by kind, the payments read. */
async function* observed(
  list: ListPayments,
  checked: ReturnType<typeof checkOptions>,
  requestOptions: RequestOptions | undefined,
  onReconcile: NonNullable<Telemetry['onReconcile']>,
): AsyncGenerator<ReconcileFinding, void, undefined> {
  const { from, to } = checked;
  const observer = onReconcile(to === undefined ? { from: boundText(from) } : { from: boundText(from), to: boundText(to) });
  const progress: ReconcileProgress = { read: 0, total: 0, missed: 0, stale: 0 };
  let errorType: string | undefined;
  try {
    for await (const finding of walk(list, checked, requestOptions, observer, progress)) {
      observer.onFinding(finding.kind);
      yield finding;
    }
  } catch (error) {
    errorType = errorTypeOf(error);
    throw error;
  } finally {
    observer.end(errorType === undefined ? { checked: progress.read } : { checked: progress.read, errorType });
  }
}

/** A bound as the merchant gave it: the date, or the instant in ISO 8601. */
function boundText(bound: Bound): string {
  return bound.instant === undefined ? bound.filter : new Date(bound.instant).toISOString();
}

/** `pages`, each page asked for inside `run`, so that its call is part of the observed run. */
function pagesWithin<T>(pages: AsyncIterable<T>, run: ReconcileObserver['run']): AsyncIterable<T> {
  return {
    [Symbol.asyncIterator]() {
      const iterator = run(() => pages[Symbol.asyncIterator]());
      return {
        next: () => run(() => iterator.next()),
        return: () => run(() => iterator.return?.() ?? Promise.resolve({ done: true as const, value: undefined })),
      };
    },
  };
}

// --- end telemetry wiring ---

async function* walk(
  list: ListPayments,
  checked: ReturnType<typeof checkOptions>,
  requestOptions: RequestOptions | undefined,
  observer?: ReconcileObserver,
  progress: ReconcileProgress = { read: 0, total: 0, missed: 0, stale: 0 },
): AsyncGenerator<ReconcileFinding, void, undefined> {
  const { from, to, stale, store, isHandled, onEvent, onProgress } = checked;
  const params = (status: string | undefined, perPage = PER_PAGE): PaymentListParams => ({
    ...(status === undefined ? {} : { status }),
    from: from.filter,
    ...(to ? { to: to.filter } : {}),
    per_page: perPage,
  });
  const within = <T>(work: () => T): T => (observer ? observer.run(work) : work());
  /** Payments of the window in each status listed so far, as the service counts them (`meta.total`). */
  let listed = 0;
  // Each status's list (`undefined`: every status), page by page, the next page asked for while this
  // one is checked and its findings handed out.
  async function* pagesOf(status: string | undefined, keep: (payment: Payment) => boolean = (payment) => payment.status === status) {
    let first = true;
    const pages = observer
      ? pagesWithin(observer.run(() => list(params(status), requestOptions)).pages(), observer.run.bind(observer))
      : list(params(status), requestOptions).pages();
    for await (const page of readAhead(pages)) {
      if (first && status !== undefined) {
        progress.total += page.meta.total;
        listed += page.meta.total;
      }
      first = false;
      // Only what the filter asked for: a service that ignored it must not make every payment a finding.
      const kept = page.data.filter((payment) => keep(payment) && inWindow(payment, from, to));
      progress.read += status === undefined ? kept.length : page.data.length;
      yield kept;
    }
  }
  async function* missed(status: string | undefined, expectedEvent: PaymentFinalEventType, keep?: (payment: Payment) => boolean) {
    for await (const payments of pagesOf(status, keep)) {
      if (payments.length > 0) {
        const handled = store
          ? await handledInStore(payments, expectedEvent, store)
          : await handledByCheck(payments, isHandled as ReconcileWithCheck['isHandled']);
        for (const payment of payments) {
          if (handled.has(payment.uuid)) continue;
          progress.missed += 1;
          const finding: MissedPaymentFinding = { kind: 'missed', payment, expectedEvent };
          yield store && onEvent ? await handleMissed(finding, store, onEvent) : finding;
        }
      }
      onProgress?.({ ...progress });
    }
  }

  for (const [status, expectedEvent] of FINAL_STATUSES) yield* missed(status, expectedEvent);
  for (const status of UNSETTLED_STATUSES) {
    for await (const payments of pagesOf(status)) {
      const cutoff = Date.now() - stale;
      for (const payment of payments) {
        const created = Date.parse(payment.created_at);
        // Younger than the threshold: the customer may still be confirming. Unreadable: reported.
        if (created > cutoff) continue;
        progress.stale += 1;
        yield { kind: 'stale', payment };
      }
      onProgress?.({ ...progress });
    }
  }
  // A status this SDK does not know cannot be asked for by name. The window's count of every status
  // against those of the known ones says whether there is any: only then is the window read whole,
  // for the payments in such a status, each announced by `payment.succeeded` before it moved on.
  const count = async (status?: string) => (await within(() => list(params(status, 1), requestOptions))).meta.total;
  for (const status of UNREPORTED_STATUSES) listed += await count(status);
  const unknown = (await count()) - listed;
  if (unknown > 0) {
    progress.total += unknown;
    yield* missed(undefined, 'payment.succeeded', (payment) => !KNOWN_STATUSES.has(payment.status));
  }
}
