/**
 * What each entry exports, pinned: the main entry keeps what a merchant codes against for calls,
 * webhook names live in `payments-sdk/webhooks`, stores in `payments-sdk/stores`, telemetry types in
 * `payments-sdk/opentelemetry`, the zod schemas in `payments-sdk/schemas`, and each public name comes
 * from exactly one of them. The request machinery of the client stays out of its published type:
 * `npm run test:consumer` checks that on the built `.d.ts`.
 */
import { fileURLToPath } from 'node:url';
import * as main from 'payments-sdk';
import * as opentelemetry from 'payments-sdk/opentelemetry';
import * as schemas from 'payments-sdk/schemas';
import * as stores from 'payments-sdk/stores';
import * as testing from 'payments-sdk/testing';
import * as webhooks from 'payments-sdk/webhooks';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import * as z from 'zod/mini';

/**
 * Every name each entry offers, values and types. Each public name comes from exactly one entry: a
 * name added, moved or dropped is a decision, made here.
 */
const ENTRIES = {
  'payments-sdk': {
    file: '../src/index.ts',
    names: [
      'APIConnectionError',
      'APIError',
      'APIPromise',
      'APIRequest',
      'APITimeoutError',
      'APIUserAbortError',
      'AuthenticationError',
      'BadRequestError',
      'BulkCounts',
      'BulkInvalidRow',
      'BulkProgress',
      'BulkResult',
      'BulkRows',
      'BulkRowsChangedError',
      'BulkStatus',
      'BulkSummary',
      'CHECKOUT_SESSION_STATUSES',
      'CheckoutSession',
      'CheckoutSessionCreateParams',
      'CheckoutSessionListParams',
      'CheckoutSessionStatus',
      'CheckoutSessions',
      'ClientDefaults',
      'ClientMode',
      'ClientOptions',
      'ClientVerifyWebhookInput',
      'CreateManyOptions',
      'CurrencyCode',
      'HttpMethod',
      'IdempotencyConflictError',
      'InternalServerError',
      'InvalidParamsError',
      'KnownCurrencyCode',
      'LogLevel',
      'Logger',
      'MissedPaymentFinding',
      'NotFoundError',
      'PAYMENT_STATUSES',
      'Page',
      'PageLinks',
      'PageMeta',
      'PagePromise',
      'Payment',
      'PaymentCreateParams',
      'PaymentFinalEventType',
      'PaymentLink',
      'PaymentLinkCreateParams',
      'PaymentLinkListParams',
      'PaymentLinks',
      'PaymentListParams',
      'PaymentStatus',
      'Payments',
      'PaymentsClient',
      'PaymentsError',
      'Payout',
      'PayoutBatch',
      'PayoutCreateParams',
      'PayoutDestination',
      'PayoutListParams',
      'Payouts',
      'PermissionDeniedError',
      'RateLimitError',
      'ReconcileFinding',
      'ReconcileOptions',
      'ReconcileProgress',
      'ReconcileWindow',
      'ReconcileWithCheck',
      'ReconcileWithStore',
      'ReconciledPaymentEvent',
      'RequestOptions',
      'ResponseValidationError',
      'RetryBackoff',
      'StalePaymentFinding',
      'ToArrayOptions',
      'UnprocessableEntityError',
      'VERSION',
      'ValidationIssue',
      'WaitForCompletionOptions',
      'Wallet',
      'Wallets',
      'Webhooks',
      'WithResponse',
      'bulkIdempotencyKey',
      'currencyExponent',
      'formatAmount',
      'fromMinorUnits',
      'isKnownCurrency',
      'readField',
      'toMinorUnits',
    ],
  },
  'payments-sdk/webhooks': {
    file: '../src/webhooks/index.ts',
    names: [
      'KnownWebhookEventType',
      'NodeWebhookRequest',
      'NodeWebhookResponse',
      'PaymentEventType',
      'PaymentWebhookEvent',
      'PayoutEventType',
      'PayoutWebhookEvent',
      'RawPayload',
      'UnknownWebhookEvent',
      'VerifyWebhookInput',
      'WebhookErrorInfo',
      'WebhookEvent',
      'WebhookEventHandlers',
      'WebhookEventOf',
      'WebhookHandlerCommonOptions',
      'WebhookHandlerOptions',
      'WebhookHeaders',
      'WebhookVerificationError',
      'WebhookVerificationReason',
      'expressWebhook',
      'signWebhookPayload',
      'verifyWebhook',
      'webhookHandler',
    ],
  },
  'payments-sdk/stores': {
    file: '../src/stores/index.ts',
    names: [
      'D1Store',
      'D1StoreOptions',
      'FileStore',
      'FileStoreOptions',
      'MemoryStoreOptions',
      'PostgresStore',
      'PostgresStoreOptions',
      'RedisStoreOptions',
      'Store',
      'StoreClaim',
      'StoreClaimRequest',
      'StoreFullError',
      'StoreJson',
      'StoreJsonObject',
      'StoreRecord',
      'StoreTimeoutError',
      'StoreTransactResult',
      'StoreTransaction',
      'StoreUnavailableError',
      'd1Store',
      'fileStore',
      'memoryStore',
      'postgresStore',
      'redisStore',
    ],
  },
  'payments-sdk/testing': {
    file: '../src/testing/index.ts',
    names: [
      'DEFAULT_COUNTRIES',
      'DEFAULT_RATES',
      'DeliverOptions',
      'KeyMode',
      'ListenOptions',
      'MockChargeInput',
      'MockClockOption',
      'MockCountry',
      'MockDelivery',
      'MockDeliveryAttempt',
      'MockFault',
      'MockFeeInput',
      'MockFeeRule',
      'MockFees',
      'MockHttpServer',
      'MockKeyInfo',
      'MockKeyOptions',
      'MockKycStatus',
      'MockMerchantOptions',
      'MockPayerOptions',
      'MockPaymentLinkStatus',
      'MockPayoutStatus',
      'MockRecord',
      'MockRecords',
      'MockRequestLog',
      'MockSeed',
      'MockService',
      'MockServiceError',
      'MockServiceOptions',
      'MockWebhooksOptions',
      'PayPaymentLinkOptions',
      'PaySessionOptions',
      'PaymentEvent',
      'PayoutEvent',
      'WebhookDelivery',
      'WebhookDeliveryHeaders',
      'WebhookTarget',
      'createMockService',
    ],
  },
  'payments-sdk/schemas': {
    file: '../src/schemas/index.ts',
    names: [
      'CheckoutSessionCreateParamsSchema',
      'CheckoutSessionListParamsSchema',
      'CheckoutSessionSchema',
      'DateFilter',
      'ListEnvelope',
      'ListParamsBase',
      'OpenEnum',
      'PageLinksSchema',
      'PageMetaSchema',
      'PaymentCreateParamsSchema',
      'PaymentLinkCreateParamsSchema',
      'PaymentLinkListParamsSchema',
      'PaymentLinkSchema',
      'PaymentListParamsSchema',
      'PaymentSchema',
      'PayoutCreateParamsSchema',
      'PayoutListParamsSchema',
      'PayoutSchema',
      'WalletListSchema',
      'WalletSchema',
      'listEnvelope',
    ],
  },
  'payments-sdk/opentelemetry': {
    file: '../src/opentelemetry/index.ts',
    names: [
      'AttemptObserver',
      'BulkObserver',
      'CallObserver',
      'INSTRUMENTATION_SCOPE',
      'OpenTelemetryOptions',
      'ReconcileObserver',
      'StoreObserver',
      'Telemetry',
      'TelemetryAttemptInfo',
      'TelemetryAttemptResult',
      'TelemetryBulkInfo',
      'TelemetryBulkResult',
      'TelemetryCallInfo',
      'TelemetryCallResult',
      'TelemetryReconcileInfo',
      'TelemetryReconcileResult',
      'TelemetryWebhookResult',
      'WebhookObserver',
      'WebhookOutcome',
      'openTelemetry',
    ],
  },
} as const;

/** The names a module exports, types included, as the compiler sees them. */
function exportedNames(file: string): string[] {
  const program = ts.createProgram([file], {
    module: ts.ModuleKind.ESNext,
    moduleResolution: ts.ModuleResolutionKind.Bundler,
    target: ts.ScriptTarget.ES2022,
    strict: true,
    skipLibCheck: true,
    noEmit: true,
    types: [],
  });
  const checker = program.getTypeChecker();
  const source = program.getSourceFile(file);
  const module = source && checker.getSymbolAtLocation(source);
  if (!module) throw new Error(`cannot read ${file}`);
  return checker
    .getExportsOfModule(module)
    .map((symbol) => symbol.name)
    .sort();
}

describe('entries', () => {
  for (const [entry, { file, names }] of Object.entries(ENTRIES)) {
    it(`${entry} exports exactly its pinned names`, () => {
      expect(exportedNames(fileURLToPath(new URL(file, import.meta.url)))).toEqual([...names].sort());
    }, 30_000);
  }

  it('each public name comes from exactly one entry', () => {
    const owners = new Map<string, string[]>();
    for (const [entry, { names }] of Object.entries(ENTRIES))
      for (const name of names) owners.set(name, [...(owners.get(name) ?? []), entry]);
    expect([...owners].filter(([, entries]) => entries.length > 1)).toEqual([]);
  });

  it('the values among them are what each module holds at run time, and no internals', () => {
    const modules = {
      'payments-sdk': main,
      'payments-sdk/webhooks': webhooks,
      'payments-sdk/stores': stores,
      'payments-sdk/testing': testing,
      'payments-sdk/schemas': schemas,
      'payments-sdk/opentelemetry': opentelemetry,
    };
    for (const [entry, module] of Object.entries(modules)) {
      const pinned: readonly string[] = ENTRIES[entry as keyof typeof ENTRIES].names;
      expect(
        Object.keys(module).filter((name) => !pinned.includes(name)),
        entry,
      ).toEqual([]);
    }
    const everything = Object.values(ENTRIES).flatMap((e) => [...e.names]);
    for (const internal of [
      'BULK_KEY_PREFIX',
      'APIErrorInit',
      'storeKey',
      'ListEnvelopeSchema',
      'MOCK_DELIVERY_RETRY_DELAYS_MS',
      'IDEMPOTENCY_TTL_MS',
      'defaultRefusal',
      'FieldErrors',
      'Telemetry',
    ])
      expect(everything.filter((name) => name === internal).length, internal).toBeLessThanOrEqual(internal === 'Telemetry' ? 1 : 0);
    // No driver shapes: the stores take the merchant's own client, whatever its type.
    expect(
      everything.filter((name) => /^(Pg|PostgresJs|PostgresDatabase|D1(?!Store)|Redis(?!Store)|IORedis|NodeRedis)/.test(name)),
    ).toEqual([]);
    // No telemetry type outside payments-sdk/opentelemetry, no webhook name outside payments-sdk/webhooks.
    expect(ENTRIES['payments-sdk'].names.filter((name) => /^(Telemetry|.*Observer$|Webhook(?!s$))/.test(name))).toEqual([]);
  });

  it('payments-sdk/schemas holds the schemas, which validate a stored payload', () => {
    const page = { data: [{ id: 1, amount: 100 }], links: { next: null }, meta: { current_page: 1, last_page: 1, per_page: 20, total: 1 } };
    expect(z.parse(schemas.listEnvelope(schemas.PayoutSchema), page).data[0]).toMatchObject({ id: 1 });
    expect(z.safeParse(schemas.PaymentSchema, { uuid: 'x' }).success).toBe(false);
    expect(Object.keys(main).filter((name) => name.endsWith('Schema') || name === 'listEnvelope')).toEqual([]);
  });
});
