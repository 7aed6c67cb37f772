/**
 * What each entry exports: the main entry keeps what a merchant codes against (its exact list, types
 * included, is pinned below: a name added or dropped is a decision, made here), and the zod schemas
 * are in `payments-sdk/schemas` ("validate a payload you stored"). The request machinery of the
 * client stays out of its published type: `npm run test:consumer` checks that on the built `.d.ts`.
 */
import { fileURLToPath } from 'node:url';
import * as main from 'payments-sdk';
import * as postgres from 'payments-sdk/postgres';
import * as schemas from 'payments-sdk/schemas';
import * as webhooks from 'payments-sdk/webhooks';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import * as z from 'zod/mini';

/** Every name `import {} from 'payments-sdk'` offers, values and types. */
const MAIN_EXPORTS = [
  'APIConnectionError',
  'APIError',
  'APIPromise',
  'APIRequest',
  'APITimeoutError',
  'APIUserAbortError',
  'AttemptObserver',
  'AuthenticationError',
  'BadRequestError',
  'BulkCounts',
  'BulkErrorInfo',
  'BulkInvalidRow',
  'BulkJournal',
  'BulkJournalRecord',
  'BulkObserver',
  'BulkOutcome',
  'BulkOutcomeStatus',
  'BulkProgress',
  'BulkResult',
  'BulkRows',
  'BulkRowsChangedError',
  'BulkStatus',
  'BulkSummary',
  'CHECKOUT_SESSION_STATUSES',
  'CallObserver',
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
  'D1DedupeStoreOptions',
  'DedupeStoreFullError',
  'HttpMethod',
  'IdempotencyConflictError',
  'InternalServerError',
  'InvalidParamsError',
  'KnownCurrencyCode',
  'KnownWebhookEventType',
  'LogLevel',
  'Logger',
  'MemoryDedupeStoreOptions',
  'MissedPaymentFinding',
  'NodeWebhookRequest',
  'NodeWebhookResponse',
  'NotFoundError',
  'PAYMENT_STATUSES',
  'Page',
  'PageLinks',
  'PageMeta',
  'PagePromise',
  'Payment',
  'PaymentCreateParams',
  'PaymentEventType',
  'PaymentFinalEventType',
  'PaymentLink',
  'PaymentLinkCreateParams',
  'PaymentLinkListParams',
  'PaymentLinks',
  'PaymentListParams',
  'PaymentStatus',
  'PaymentWebhookEvent',
  'Payments',
  'PaymentsClient',
  'PaymentsError',
  'Payout',
  'PayoutBatch',
  'PayoutCreateParams',
  'PayoutDestination',
  'PayoutEventType',
  'PayoutListParams',
  'PayoutWebhookEvent',
  'Payouts',
  'PermissionDeniedError',
  'RateLimitError',
  'RawPayload',
  'ReconcileFinding',
  'ReconcileInbox',
  'ReconcileObserver',
  'ReconcileOptions',
  'ReconcileProgress',
  'ReconcileWindow',
  'ReconcileWithCheck',
  'ReconcileWithInbox',
  'RedisDedupeStoreOptions',
  'RedisJournalOptions',
  'RequestOptions',
  'ResponseValidationError',
  'RetryBackoff',
  'StalePaymentFinding',
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
  'ToArrayOptions',
  'UnknownWebhookEvent',
  'UnprocessableEntityError',
  'VERSION',
  'ValidationIssue',
  'VerifyWebhookInput',
  'WaitForCompletionOptions',
  'Wallet',
  'Wallets',
  'WebhookDedupeStore',
  'WebhookErrorInfo',
  'WebhookEvent',
  'WebhookEventHandlers',
  'WebhookEventOf',
  'WebhookHandlerOptions',
  'WebhookHeaders',
  'WebhookObserver',
  'WebhookOutcome',
  'WebhookVerificationError',
  'Webhooks',
  'WithResponse',
  'bulkIdempotencyKey',
  'currencyExponent',
  'd1DedupeStore',
  'expressWebhook',
  'fileJournal',
  'formatAmount',
  'fromMinorUnits',
  'isKnownCurrency',
  'memoryDedupeStore',
  'memoryJournal',
  'readField',
  'redisDedupeStore',
  'redisJournal',
  'signWebhookPayload',
  'toMinorUnits',
  'verifyWebhook',
  'webhookHandler',
];

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

const SCHEMAS = [
  'CheckoutSessionCreateParamsSchema',
  'CheckoutSessionListParamsSchema',
  'CheckoutSessionSchema',
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
];

describe('entries', () => {
  it('the main entry exports exactly what a merchant codes against, and no internals', () => {
    const names = exportedNames(fileURLToPath(new URL('../src/index.ts', import.meta.url)));
    expect(names).toEqual([...MAIN_EXPORTS].sort());
    // The values among them are what the module holds at run time.
    expect(Object.keys(main).every((name) => MAIN_EXPORTS.includes(name))).toBe(true);
    for (const internal of ['BULK_KEY_PREFIX', 'APIErrorInit', 'IORedisCommandClient', 'BulkClaimRequest', 'ListEnvelope', 'OpenEnum'])
      expect(names).not.toContain(internal);
  }, 30_000);

  it('the main entry exports no zod schema and no listEnvelope', () => {
    const names = Object.keys(main);
    expect(names.filter((name) => name.endsWith('Schema') || name === 'listEnvelope')).toEqual([]);
    expect(names).toEqual(
      expect.arrayContaining(['PaymentsClient', 'InvalidParamsError', 'toMinorUnits', 'isKnownCurrency', 'verifyWebhook']),
    );
  });

  it('payments-sdk/schemas exports the 16 schemas and listEnvelope, which validate a stored payload', () => {
    const names = Object.keys(schemas).filter((name) => name.endsWith('Schema'));
    expect(names.sort()).toEqual(SCHEMAS);
    const page = { data: [{ id: 1, amount: 100 }], links: { next: null }, meta: { current_page: 1, last_page: 1, per_page: 20, total: 1 } };
    expect(z.parse(schemas.listEnvelope(schemas.PayoutSchema), page).data[0]).toMatchObject({ id: 1 });
    expect(z.safeParse(schemas.PaymentSchema, { uuid: 'x' }).success).toBe(false);
  });

  it('payments-sdk/postgres exports the inbox, its timeout error and its reconciliation error; the main and webhooks entries do not', () => {
    expect(Object.keys(postgres).sort()).toEqual(['DatabaseTimeoutError', 'InboxReconcileError', 'postgresInbox', 'postgresJournal']);
    for (const entry of [main, webhooks]) expect(Object.keys(entry).filter((name) => name in postgres)).toEqual([]);
  });
});
