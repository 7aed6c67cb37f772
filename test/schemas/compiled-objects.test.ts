/**
 * Response schemas are built with `responseObject` (src/schemas/shared.ts): zod's compiled object
 * parser (`$ZodObjectJIT`) inside a zod/mini type. It must decide exactly as zod/mini's interpreted
 * `z.looseObject` of the same shape does, for any input: same verdict, same value, same issues.
 */
import fc from 'fast-check';
import { CheckoutSessionSchema, PaymentSchema, PayoutSchema } from 'payments-sdk/schemas';
import { afterEach, describe, expect, it } from 'vitest';
import * as z from 'zod/mini';
import { checkoutSession, payment } from '../helpers/fixtures.js';

afterEach(() => {
  z.config({ jitless: false });
});

type Shaped = { _zod: { def: { shape: z.core.$ZodLooseShape } } };
const interpreted = (schema: unknown) => z.looseObject((schema as Shaped)._zod.def.shape);
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

describe('responseObject decides as z.looseObject does', () => {
  const cases = [
    ['Payment', PaymentSchema, payment() as unknown as Record<string, unknown>],
    ['CheckoutSession', CheckoutSessionSchema, checkoutSession() as unknown as Record<string, unknown>],
    ['Payout', PayoutSchema, { id: 7, amount: 1000, currency: 'XOF', status: 'pending', destination: { type: 'mobile_money' } }],
  ] as const;

  it.each(cases)('%s is a compiled object (zod core $ZodObjectJIT) and still a zod/mini type', (_name, schema) => {
    const traits = (schema as unknown as { _zod: { traits: Set<string> } })._zod.traits;
    expect(traits.has('$ZodObjectJIT')).toBe(true);
    expect(traits.has('ZodMiniType')).toBe(true);
    expect(typeof schema.check).toBe('function');
  });

  it.each(cases)('%s: same result for valid, broken and arbitrary inputs', (_name, schema, base) => {
    const reference = interpreted(schema);
    fc.assert(
      fc.property(fc.oneof(mutated(base), fc.anything({ maxDepth: 2 })), (input) => {
        expect(outcome(schema.safeParse(input))).toEqual(outcome(reference.safeParse(input)));
      }),
      { numRuns: 300 },
    );
  });

  it('keeps unknown keys and reports every bad field, compiled or not (jitless)', () => {
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
