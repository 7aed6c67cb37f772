/**
 * PaymentSchema and PayoutSchema are generated from the field tables of src/schemas/fields.ts. They
 * must decide exactly as a hand-written zod/mini `z.looseObject` of the record does (the oracle
 * below, written from the service's description of a payment and a payout), for any input: same
 * verdict, same value, same issues.
 */
import fc from 'fast-check';
import { PaymentSchema, PayoutSchema } from 'payments-sdk/schemas';
import { afterEach, describe, expect, it } from 'vitest';
import * as z from 'zod/mini';
import { payment } from '../helpers/fixtures.js';

afterEach(() => {
  z.config({ jitless: false });
});

const text = z.string();
const nullableText = z.nullable(z.string());
const PAYMENT_ORACLE = z.looseObject({
  uuid: text,
  checkout_session: nullableText,
  gross_amount: z.int(),
  psp_fee_amount: z.int(),
  platform_fee_amount: z.int(),
  net_amount_to_merchant: z.int(),
  currency: text,
  payment_method: text,
  mobile_money_country: nullableText,
  mobile_money_provider: nullableText,
  psp_reference: text,
  status: text,
  failure_reason: nullableText,
  created_at: text,
});
const PAYOUT_ORACLE = z.looseObject({
  id: z.optional(
    z.custom<string | number>((v) => typeof v === 'string' || Number.isSafeInteger(v), { error: 'must be a string or a safe integer' }),
  ),
  amount: z.optional(z.int()),
  currency: z.optional(text),
  status: z.optional(text),
  destination: z.optional(z.looseObject({ type: text })),
});
const outcome = (result: { success: boolean; data?: unknown; error?: { issues: unknown[] } }) =>
  result.success ? { ok: true, data: result.data } : { ok: false, issues: result.error?.issues.map((i) => JSON.stringify(i)) };

/** A valid object with some fields replaced by arbitrary values, some removed, and some added. */
function mutated(base: Record<string, unknown>) {
  const keys = Object.keys(base);
  return fc
    .tuple(
      fc.dictionary(fc.constantFrom(...keys), fc.anything({ maxDepth: 2 }), { maxKeys: 4 }),
      fc.subarray(keys, { maxLength: 3 }),
      fc.dictionary(fc.string({ maxLength: 8 }), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 3 }),
    )
    .map(([replaced, removed, extra]) => {
      const out: Record<string, unknown> = { ...extra, ...base, ...replaced };
      for (const key of removed) delete out[key];
      return out;
    });
}

describe('schemas generated from the field tables decide as hand-written z.looseObject', () => {
  const cases = [
    ['Payment', PaymentSchema, PAYMENT_ORACLE, payment() as unknown as Record<string, unknown>],
    [
      'Payout',
      PayoutSchema,
      PAYOUT_ORACLE,
      { id: 7, amount: 1000, currency: 'XOF', status: 'pending', destination: { type: 'mobile_money' } },
    ],
  ] as const;

  it.each(cases)('%s: same result for valid, broken and arbitrary inputs', (_name, schema, reference, base) => {
    fc.assert(
      fc.property(fc.oneof(mutated(base), fc.anything({ maxDepth: 2 })), (input) => {
        expect(outcome(schema.safeParse(input))).toEqual(outcome(reference.safeParse(input)));
      }),
      { numRuns: 300 },
    );
  });

  it("keeps unknown keys and reports every bad field, with or without zod's jitless mode", () => {
    const input = { ...payment(), gross_amount: 12.5, currency: 7, refunded: 0 };
    for (const jitless of [false, true]) {
      z.config({ jitless });
      const result = PaymentSchema.safeParse(input);
      expect(result.success).toBe(false);
      expect(result.error?.issues.map((i) => i.path.join('.')).sort()).toEqual(['currency', 'gross_amount']);
      expect(PaymentSchema.parse({ ...payment(), refunded: 0 })).toMatchObject({ refunded: 0 });
    }
  });
});
