/**
 * What each entry exports: the main entry keeps what a merchant codes against, and the zod schemas
 * are in `payments-sdk/schemas` ("validate a payload you stored"). The request machinery of the
 * client stays out of its published type: `npm run test:consumer` checks that on the built `.d.ts`.
 */
import * as main from 'payments-sdk';
import * as postgres from 'payments-sdk/postgres';
import * as schemas from 'payments-sdk/schemas';
import * as webhooks from 'payments-sdk/webhooks';
import { describe, expect, it } from 'vitest';
import * as z from 'zod/mini';

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

  it('payments-sdk/postgres exports the inbox and its timeout error; the main and webhooks entries do not', () => {
    expect(Object.keys(postgres).sort()).toEqual(['DatabaseTimeoutError', 'postgresInbox']);
    for (const entry of [main, webhooks]) expect(Object.keys(entry).filter((name) => name in postgres)).toEqual([]);
  });
});
