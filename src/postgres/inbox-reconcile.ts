/**
 * `inbox.reconcile`: the payments of a window whose final event the inbox never recorded, each run
 * through the inbox's own delivery path as a made-up event, so that the merchant's handler runs in
 * the same kind of transaction as a delivery. The inbox's unique index on (payment, final event
 * type) keeps the made-up event and a late original from both running the handler.
 *
 * @module
 */
import { PaymentsError, setName } from '../core/errors.js';
import type { ReconcileFinding, ReconcileInbox, ReconcileWindow, ReconcileWithInbox } from '../core/reconcile.js';
import type { RequestOptions } from '../core/request-options.js';
import type { PaymentWebhookEvent, WebhookEvent } from '../webhooks/events.js';
import type { WebhookInbox, WebhookInboxContext } from '../webhooks/inbox.js';

/** A payment event made up by `inbox.reconcile`: the payment as the service lists it now, `reconciled: true`. */
export type ReconciledPaymentEvent = (PaymentWebhookEvent<'payment.succeeded'> | PaymentWebhookEvent<'payment.failed'>) & {
  reconciled: true;
};

/** What `inbox.reconcile` needs of the client: `client.payments.reconcile`, as a `PaymentsClient` has it. */
export interface ReconcileClient {
  payments: {
    /** `client.payments.reconcile`: the findings of a window, read against the inbox. */
    reconcile(options: ReconcileWithInbox, requestOptions?: RequestOptions): AsyncIterable<ReconcileFinding>;
  };
}

/** Options of `inbox.reconcile(client, options)`. */
export interface InboxReconcileOptions extends ReconcileWindow {
  /**
   * Runs for each payment whose final event the inbox never recorded, with a made-up event
   * (`reconciled: true`) and the inbox's transaction as `{ tx }`, exactly as a delivery runs
   * `onEvent`: your webhook handler's `onEvent` fits as it is. Throw to roll that payment back and
   * stop the run (see {@link InboxReconcileError}).
   */
  onEvent: (event: ReconciledPaymentEvent, context: WebhookInboxContext) => unknown;
}

/** What `inbox.reconcile` did. */
export interface InboxReconcileResult {
  /** Payments whose made-up event ran `onEvent` and was recorded by this run. */
  handled: number;
  /** Payments still `pending` or `processing` past `stalePendingAfter`: counted, nothing run. */
  stale: number;
}

/**
 * `inbox.reconcile` stopped: `onEvent` threw for a payment, or the database failed or did not answer
 * in time. That payment's transaction rolled back; the payments before it are handled and recorded
 * (`handled`), and it and the rest are found again by the next run. `cause` is the error itself.
 */
export class InboxReconcileError extends PaymentsError {
  /** Payments handled and recorded before the run stopped. */
  readonly handled: number;
  /** Stale payments counted before the run stopped. */
  readonly stale: number;
  /** The `uuid` of the payment whose transaction failed. */
  readonly paymentUuid: string;
  /** The made-up event's type. */
  readonly eventType: ReconciledPaymentEvent['type'];

  constructor(init: {
    handled: number;
    stale: number;
    paymentUuid: string;
    eventType: ReconciledPaymentEvent['type'];
    cause: unknown;
    why: string;
  }) {
    super(
      `inbox.reconcile stopped at payment ${init.paymentUuid} (${init.eventType}): ${init.why}. ${init.handled} missed payment(s) were handled before it; it and the rest are left for the next run.`,
      { cause: init.cause },
    );
    this.handled = init.handled;
    this.stale = init.stale;
    this.paymentUuid = init.paymentUuid;
    this.eventType = init.eventType;
  }
}
setName(InboxReconcileError, 'InboxReconcileError');

/** Runs a reconciliation through `inbox` (its `handledPayments` and `deliver`). @internal */
export async function reconcileThroughInbox(
  inbox: ReconcileInbox & WebhookInbox<WebhookInboxContext>,
  client: ReconcileClient,
  options: InboxReconcileOptions,
): Promise<InboxReconcileResult> {
  if (typeof client?.payments?.reconcile !== 'function') {
    throw new PaymentsError('inbox.reconcile: client must be a PaymentsClient (it needs client.payments.reconcile).');
  }
  const { onEvent, ...window } = options ?? ({} as InboxReconcileOptions);
  if (typeof onEvent !== 'function') throw new PaymentsError('inbox.reconcile: onEvent must be a function.');
  const counts: InboxReconcileResult = { handled: 0, stale: 0 };
  // `payments.reconcile` checks the window and names every bad option before any request.
  for await (const finding of client.payments.reconcile({ ...window, inbox })) {
    if (finding.kind === 'stale') {
      counts.stale += 1;
      continue;
    }
    const type = finding.expectedEvent;
    const event = {
      id: `reconciled:${finding.payment.uuid}:${type}`,
      type,
      data: finding.payment,
      reconciled: true,
    } as ReconciledPaymentEvent;
    const result = await inbox.deliver(event as WebhookEvent, (context) => onEvent(event, context));
    if (result.status === 200) {
      // A duplicate: the original (or another run) recorded it since the page was read.
      if (result.outcome === 'handled') counts.handled += 1;
      continue;
    }
    throw new InboxReconcileError({
      ...counts,
      paymentUuid: finding.payment.uuid,
      eventType: type,
      cause: result.error,
      why: result.status === 500 ? 'onEvent threw' : 'the database failed or did not answer in time',
    });
  }
  return counts;
}
