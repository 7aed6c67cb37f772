/**
 * The response fast path (src/schemas/response-objects.ts `fastParse`, built on src/schemas/field-check.ts)
 * must never disagree with zod: for any input, when it accepts, zod accepts too and returns an
 * equal value (same keys in the same order, nested objects and arrays copied as zod copies them);
 * when it declines, `parseResponse` returns zod's own result, issues included.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type * as z from 'zod/mini';
import { listEnvelope, PageLinksSchema, PageMetaSchema } from '../../src/schemas/list-envelope.js';
import { PaymentSchema } from '../../src/schemas/payment.js';
import { PayoutSchema } from '../../src/schemas/payout.js';
import { fastParse, parseResponse } from '../../src/schemas/response-objects.js';
import { payment } from '../helpers/fixtures.js';

/** Keys, in order, and values, all the way down: `toStrictEqual` ignores key order, JSON output does not. */
function layout(value: unknown): unknown {
  if (Array.isArray(value)) return { array: value.map(layout) };
  if (typeof value === 'object' && value !== null)
    return Object.keys(value).map((key) => [key, layout((value as Record<string, unknown>)[key])]);
  return Object.is(value, -0) ? '-0' : value;
}

/** Values that sit on the edges of the field rules. */
const edge = fc.constantFrom<unknown>(
  0,
  -0,
  1.5,
  2 ** 53,
  -(2 ** 53),
  2 ** 53 - 1,
  Number.NaN,
  Number.POSITIVE_INFINITY,
  '12',
  '',
  null,
  undefined,
  true,
  [],
  {},
  [1],
  { type: 'mobile_money' },
  { type: 7 },
  { type: 'bank', extra: [1, { a: null }] },
  { type: undefined },
);
const anyValue = fc.oneof(edge, fc.anything({ maxDepth: 2 }), fc.jsonValue({ maxDepth: 2 }));
const extraKey = fc.oneof(fc.string({ maxLength: 8 }), fc.constantFrom('__proto__', 'toString', 'constructor', '0', '10', 'data'));

/** A valid object with some fields replaced by edge or arbitrary values, some removed, and some added. */
function mutated(base: Record<string, unknown>, values: fc.Arbitrary<unknown> = anyValue) {
  const keys = Object.keys(base);
  return fc
    .tuple(
      fc.dictionary(fc.constantFrom(...keys), values, { maxKeys: 3 }),
      fc.subarray(keys, { maxLength: Math.min(2, keys.length) }),
      fc.dictionary(extraKey, fc.jsonValue({ maxDepth: 2 }), { maxKeys: 3 }),
      fc.boolean(),
    )
    .map(([replaced, removed, extra, extraFirst]) => {
      const out: Record<string, unknown> = extraFirst ? { ...extra, ...base, ...replaced } : { ...base, ...replaced, ...extra };
      for (const key of removed) delete out[key];
      // JSON.parse makes "__proto__" an own key; a spread above would have dropped it.
      const proto = Object.getOwnPropertyDescriptor(extra, '__proto__');
      if (proto) Object.defineProperty(out, '__proto__', { ...proto, enumerable: true });
      return out;
    });
}

const PAYMENT = payment() as unknown as Record<string, unknown>;
const PAYOUT = { id: 7, amount: 1000, currency: 'XOF', status: 'pending', destination: { type: 'mobile_money', msisdn: '221771234567' } };
const LINKS = { first: 'https://h/p?page=1', last: 'https://h/p?page=3', prev: null, next: 'https://h/p?page=2' };
const META = { current_page: 1, last_page: 3, per_page: 2, total: 6 };

/** Mostly valid: a rare broken field, so that both verdicts are common. */
const mostlyValid = (base: Record<string, unknown>) =>
  fc.oneof({ arbitrary: fc.constant(base), weight: 3 }, { arbitrary: mutated(base), weight: 1 });
const loose = (base: Record<string, unknown>) => mutated(base, fc.oneof(edge, fc.string({ maxLength: 3 }), fc.integer()));
const payout = fc.oneof(
  mostlyValid(PAYOUT),
  mutated(PAYOUT).chain((record) => mutated({ type: 'wallet' }).map((destination) => ({ ...record, destination }))),
);

function page(item: fc.Arbitrary<unknown>) {
  return fc
    .tuple(
      fc.array(item, { maxLength: 4 }),
      mostlyValid(LINKS),
      mostlyValid(META),
      fc.dictionary(extraKey, fc.jsonValue({ maxDepth: 1 }), { maxKeys: 2 }),
    )
    .chain(([data, links, meta, extra]) =>
      mutated({ data, links, meta, ...extra }, fc.oneof(edge, fc.constant([PAYMENT]))).map((envelope) => ({
        envelope,
        plain: { data, links, meta, ...extra },
      })),
    )
    .chain(({ envelope, plain }) => fc.constantFrom<unknown>(envelope, plain));
}

const cases: [string, z.ZodMiniType<unknown>, fc.Arbitrary<unknown>][] = [
  ['Payment', PaymentSchema, fc.oneof(mostlyValid(PAYMENT), loose(PAYMENT), anyValue)],
  ['Payout', PayoutSchema, fc.oneof(payout, loose(PAYOUT), anyValue)],
  ['PageLinks', PageLinksSchema, fc.oneof(mostlyValid(LINKS), loose(LINKS))],
  ['PageMeta', PageMetaSchema, fc.oneof(mostlyValid(META), loose(META))],
  ['page of payments', listEnvelope(PaymentSchema), page(mostlyValid(PAYMENT))],
  ['page of payouts', listEnvelope(PayoutSchema), page(payout)],
];

describe('the response fast path accepts only what zod accepts, and returns what zod returns', () => {
  it.each(cases)('%s', (_name, schema, input) => {
    let accepted = 0;
    let declined = 0;
    fc.assert(
      fc.property(input, (value) => {
        const reference = schema.safeParse(value);
        const fast = fastParse(schema, value);
        if (fast === undefined) {
          declined++;
        } else {
          accepted++;
          expect(reference.success).toBe(true);
          expect(fast).toStrictEqual(reference.data);
          expect(layout(fast)).toEqual(layout(reference.data));
          // zod returns a new object, never the input: so does the fast path.
          expect(fast).not.toBe(value);
        }
        // What the client uses: zod's own verdict and issues whenever the fast path declines.
        const result = parseResponse(schema, value);
        expect(result.success).toBe(reference.success);
        if (!result.success) expect(result.error.issues).toEqual(reference.success ? undefined : reference.error.issues);
      }),
      { numRuns: 400 },
    );
    // Both branches were exercised: a property that never reaches the fast path proves nothing.
    expect(accepted).toBeGreaterThan(10);
    expect(declined).toBeGreaterThan(10);
  });

  it('copies nested records as zod does: a changed result never reaches the input', () => {
    const input = { data: [{ ...PAYOUT, destination: { type: 'bank' } }], links: LINKS, meta: META };
    const out = fastParse(listEnvelope(PayoutSchema), input) as typeof input;
    const parsed = listEnvelope(PayoutSchema).parse(input) as typeof input;
    expect(out).toStrictEqual(parsed);
    expect(out.data).not.toBe(input.data);
    expect(out.data[0]?.destination).not.toBe(input.data[0]?.destination);
    expect(out.links).not.toBe(input.links);
    expect(parsed.data[0]?.destination).not.toBe(input.data[0]?.destination);
  });
});
