/**
 * `payments-sdk/opentelemetry`: traces and metrics of the SDK's calls, HTTP attempts, webhook
 * deliveries, bulk payouts and reconciliations, through `@opentelemetry/api` (an optional peer
 * dependency: only this entry imports it).
 *
 * ```ts
 * import { PaymentsClient } from 'payments-sdk';
 * import { openTelemetry } from 'payments-sdk/opentelemetry';
 *
 * const client = new PaymentsClient({ telemetry: openTelemetry() });
 * ```
 * See docs/telemetry.md for each span and metric.
 * @packageDocumentation
 */
import {
  type Attributes,
  type Context,
  type Counter,
  context,
  type Histogram,
  type MeterProvider,
  metrics,
  type Span,
  SpanKind,
  SpanStatusCode,
  type Tracer,
  type TracerProvider,
  trace,
} from '@opentelemetry/api';
import type {
  AttemptObserver,
  BulkObserver,
  CallObserver,
  ReconcileObserver,
  Telemetry,
  TelemetryCallInfo,
  WebhookObserver,
} from '../core/telemetry.js';
import { VERSION } from '../version.js';

export type {
  AttemptObserver,
  BulkObserver,
  CallObserver,
  ReconcileObserver,
  StoreObserver,
  Telemetry,
  TelemetryAttemptInfo,
  TelemetryAttemptResult,
  TelemetryBulkInfo,
  TelemetryBulkResult,
  TelemetryCallInfo,
  TelemetryCallResult,
  TelemetryReconcileInfo,
  TelemetryReconcileResult,
  TelemetryWebhookResult,
  WebhookObserver,
  WebhookOutcome,
} from '../core/telemetry.js';

/** Options of {@link openTelemetry}. */
export interface OpenTelemetryOptions {
  /** Where spans go. Default: the global tracer provider (the one `NodeSDK.start()` registers). */
  tracerProvider?: TracerProvider;
  /** Where metrics go. Default: the global meter provider, read at the first measurement. */
  meterProvider?: MeterProvider;
}

/** The instrumentation scope every span and metric is reported under. */
export const INSTRUMENTATION_SCOPE = 'payments-sdk';

// The bucket boundaries the HTTP conventions advise for `http.client.request.duration`, in seconds.
const DURATION_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.25, 0.5, 0.75, 1, 2.5, 5, 7.5, 10];

/** The span attribute that carries the id of each kind of record. */
const RECORD_ATTRIBUTES: Readonly<Record<string, string>> = {
  payment: 'payments.payment.uuid',
  checkout_session: 'payments.checkout_session.reference',
  payout: 'payments.payout.id',
  payment_link: 'payments.payment_link.id',
};

/**
 * The event types a metric names as themselves: the service's payment events and the payout
 * events it sends. Any other type is counted as `other`, so that a sender of made-up types cannot
 * grow the number of series without bound.
 */
const KNOWN_EVENT_TYPES: ReadonlySet<string> = new Set([
  'payment.succeeded',
  'payment.failed',
  'payout.approved',
  'payout.processing',
  'payout.completed',
  'payout.failed',
  'payout.rejected',
]);

/** The instruments, made at the first measurement (a global meter provider may be set after `openTelemetry()`). */
interface Instruments {
  duration: Histogram;
  webhookDuration: Histogram;
  retries: Counter;
  deliveries: Counter;
  bulkRows: Counter;
  findings: Counter;
}

/**
 * The SDK's {@link Telemetry} through OpenTelemetry: a span per SDK call in the caller's active
 * context, a CLIENT span per HTTP attempt under it (the HTTP client conventions), a span per webhook
 * delivery, bulk run and reconciliation, and the `http.client.request.duration` histogram with the
 * SDK's counters. No attribute holds the API key, a webhook secret, a body, a query or an error
 * message: see docs/telemetry.md.
 *
 * ```ts
 * import { PaymentsClient } from 'payments-sdk';
 * import { openTelemetry } from 'payments-sdk/opentelemetry';
 * const client = new PaymentsClient({ telemetry: openTelemetry() });
 * ```
 */
export function openTelemetry(options: OpenTelemetryOptions = {}): Telemetry {
  // A global tracer is a proxy that follows a provider registered later; a global meter is not.
  const tracer: Tracer = (options.tracerProvider ?? trace.getTracerProvider()).getTracer(INSTRUMENTATION_SCOPE, VERSION);
  let instruments: Instruments | undefined;
  const measure = (): Instruments => {
    if (instruments) return instruments;
    const meter = (options.meterProvider ?? metrics.getMeterProvider()).getMeter(INSTRUMENTATION_SCOPE, VERSION);
    instruments = {
      duration: meter.createHistogram('http.client.request.duration', {
        unit: 's',
        description: 'Duration of HTTP client requests.',
        advice: { explicitBucketBoundaries: DURATION_BUCKETS },
      }),
      webhookDuration: meter.createHistogram('payments.webhook.duration', {
        unit: 's',
        description: 'Time from a webhook delivery received to its answer, by outcome.',
        advice: { explicitBucketBoundaries: DURATION_BUCKETS },
      }),
      retries: meter.createCounter('payments.client.retries', { unit: '{retry}', description: 'HTTP attempts that retried an SDK call.' }),
      deliveries: meter.createCounter('payments.webhook.deliveries', {
        unit: '{delivery}',
        description: 'Webhook deliveries answered, by outcome.',
      }),
      bulkRows: meter.createCounter('payments.bulk.rows', { unit: '{row}', description: 'Bulk payout rows with a result, by status.' }),
      findings: meter.createCounter('payments.reconcile.findings', {
        unit: '{finding}',
        description: 'Discrepancies found by reconciliation, by kind.',
      }),
    };
    return instruments;
  };

  /** A span under the active context, and the context to run its children in. */
  const begin = (name: string, attributes: Attributes, kind = SpanKind.INTERNAL): { span: Span; within: Context } => {
    const parent = context.active();
    const span = tracer.startSpan(name, { kind, attributes }, parent);
    return { span, within: trace.setSpan(parent, span) };
  };

  const fail = (span: Span, errorType: string | undefined) => {
    if (errorType === undefined) return;
    span.setAttribute('error.type', errorType);
    // The class name only: a message may quote what the service answered.
    span.setStatus({ code: SpanStatusCode.ERROR, message: errorType });
  };

  return {
    onCall(info: TelemetryCallInfo): CallObserver {
      const attributes: Attributes = {
        'payments.operation': info.operation,
        'payments.mode': info.mode,
        'http.request.method': info.method,
        'server.address': info.serverAddress,
        'server.port': info.serverPort,
      };
      if (info.urlTemplate !== undefined) attributes['url.template'] = info.urlTemplate;
      if (info.idempotencyKey !== undefined) attributes['payments.idempotency_key'] = info.idempotencyKey;
      const { span: callSpan, within } = begin(info.operation, attributes);
      // What every attempt of the call shares: the HTTP conventions' attributes, low in cardinality.
      const http: Attributes = {
        'http.request.method': info.method,
        'server.address': info.serverAddress,
        'server.port': info.serverPort,
      };
      if (info.urlTemplate !== undefined) http['url.template'] = info.urlTemplate;
      // `{method} {url.template}`, or the method alone without a template (HTTP semantic conventions).
      const attemptName = info.urlTemplate === undefined ? info.method : `${info.method} ${info.urlTemplate}`;
      return {
        onAttempt({ resendCount }): AttemptObserver {
          const attemptAttributes: Attributes = { ...http };
          if (resendCount > 0) {
            attemptAttributes['http.request.resend_count'] = resendCount;
            measure().retries.add(1, { 'payments.operation': info.operation, ...http });
          }
          const span = tracer.startSpan(attemptName, { kind: SpanKind.CLIENT, attributes: attemptAttributes }, within);
          const started = performance.now();
          return {
            end({ status, errorType }) {
              const recorded: Attributes = { ...http };
              if (status !== undefined) {
                span.setAttribute('http.response.status_code', status);
                recorded['http.response.status_code'] = status;
              }
              if (errorType !== undefined) recorded['error.type'] = errorType;
              fail(span, errorType);
              span.end();
              measure().duration.record((performance.now() - started) / 1000, recorded);
            },
          };
        },
        end({ errorType, status, replayed, record }) {
          if (status !== undefined) callSpan.setAttribute('http.response.status_code', status);
          const recordAttribute = record && RECORD_ATTRIBUTES[record.type];
          if (recordAttribute !== undefined && record) callSpan.setAttribute(recordAttribute, record.id);
          if (replayed !== undefined && info.idempotencyKey !== undefined) callSpan.setAttribute('payments.replayed', replayed);
          fail(callSpan, errorType);
          callSpan.end();
        },
      };
    },

    onWebhook(): WebhookObserver {
      const { span, within } = begin('payments.webhook', {});
      const started = performance.now();
      return {
        run: (work) => context.with(within, work),
        onStore(kind) {
          // A child of the delivery's span: the store's transaction, the merchant's onEvent inside it.
          const store = tracer.startSpan('payments.store', { attributes: { 'payments.store.kind': kind } }, within);
          const inside = trace.setSpan(within, store);
          return {
            run: (work) => context.with(inside, work),
            end({ errorType }) {
              fail(store, errorType);
              store.end();
            },
          };
        },
        end({ outcome, status, eventType, eventId, reason, errorType, record }) {
          const attributes: Attributes = { 'payments.webhook.outcome': outcome, 'http.response.status_code': status };
          if (eventType !== undefined) attributes['payments.event.type'] = eventType;
          if (eventId !== undefined) attributes['payments.event.id'] = eventId;
          if (reason !== undefined) attributes['payments.webhook.refusal_reason'] = reason;
          const recordAttribute = record && RECORD_ATTRIBUTES[record.type];
          if (recordAttribute !== undefined && record) attributes[recordAttribute] = record.id;
          span.setAttributes(attributes);
          if (outcome === 'failed') fail(span, errorType ?? String(status));
          span.end();
          // Ids stay on the span: on a metric they would make one series per delivery. The event
          // type is counted as itself only when known.
          const counted: Attributes = { 'payments.webhook.outcome': outcome };
          if (eventType !== undefined) counted['payments.event.type'] = KNOWN_EVENT_TYPES.has(eventType) ? eventType : 'other';
          if (reason !== undefined) counted['payments.webhook.refusal_reason'] = reason;
          const instruments = measure();
          instruments.deliveries.add(1, counted);
          instruments.webhookDuration.record((performance.now() - started) / 1000, { 'payments.webhook.outcome': outcome });
        },
      };
    },

    onBulk({ batchId }): BulkObserver {
      const { span, within } = begin('payments.bulk', { 'payments.bulk.batch_id': batchId });
      return {
        run: (work) => context.with(within, work),
        onRow(status) {
          measure().bulkRows.add(1, { 'payments.bulk.row.status': status });
        },
        end({ rows, aborted, errorType }) {
          let total = 0;
          for (const [status, count] of Object.entries(rows)) {
            span.setAttribute(`payments.bulk.rows.${status}`, count);
            total += count;
          }
          span.setAttribute('payments.bulk.rows', total);
          if (aborted !== undefined) span.setAttribute('payments.bulk.aborted', aborted);
          fail(span, errorType);
          span.end();
        },
      };
    },

    onReconcile({ from, to }): ReconcileObserver {
      const attributes: Attributes = {};
      if (from !== undefined) attributes['payments.reconcile.from'] = from;
      if (to !== undefined) attributes['payments.reconcile.to'] = to;
      const { span, within } = begin('payments.reconcile', attributes);
      const found: Record<string, number> = {};
      return {
        run: (work) => context.with(within, work),
        onFinding(kind) {
          found[kind] = (found[kind] ?? 0) + 1;
          measure().findings.add(1, { 'payments.reconcile.finding.kind': kind });
        },
        end({ checked, errorType }) {
          if (checked !== undefined) span.setAttribute('payments.reconcile.checked', checked);
          for (const [kind, count] of Object.entries(found)) span.setAttribute(`payments.reconcile.findings.${kind}`, count);
          fail(span, errorType);
          span.end();
        },
      };
    },
  };
}
