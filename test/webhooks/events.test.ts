/**
 * The webhook entry checks an event's `data` with PaymentSchema and PayoutSchema, the schemas the
 * client reads responses with: these properties show an event is accepted exactly when its `data`
 * passes the schema, on any input, and that the error names every bad field.
 */
import fc from 'fast-check';
import { PaymentSchema, PayoutSchema } from 'payments-sdk/schemas';
import { describe, expect, it } from 'vitest';
import { toWebhookEvent } from '../../src/webhooks/events.js';
import { payment } from '../helpers/fixtures.js';

/** Odd values a field may hold: wrong types, floats, unsafe integers, null, nested things. */
const oddValue = fc.oneof(
  fc.constantFrom(
    undefined,
    null,
    '',
    'x',
    0,
    -1,
    1.5,
    Number.MAX_SAFE_INTEGER,
    Number.MAX_SAFE_INTEGER + 2,
    1e300,
    true,
    [],
    {},
    { type: 'mobile_money' },
    { type: 3 },
  ),
  fc.jsonValue(),
  fc.integer(),
  fc.double({ noNaN: true }),
);

/** A valid object with a few fields replaced by odd values, removed, or added. */
function mutated(base: Record<string, unknown>, fieldNames: string[]) {
  return fc
    .array(fc.tuple(fc.oneof(fc.constantFrom(...fieldNames), fc.string()), oddValue, fc.boolean()), { maxLength: 4 })
    .map((changes) => {
      const out: Record<string, unknown> = { ...base };
      for (const [name, value, remove] of changes) {
        if (remove) delete out[name];
        else out[name] = value;
      }
      return out;
    });
}

function accepted(type: string, data: unknown): boolean {
  try {
    toWebhookEvent({ id: 'evt_1', type, data });
    return true;
  } catch (error) {
    expect(error).toMatchObject({ reason: 'invalid_payload' });
    return false;
  }
}

const REMOVED = Symbol('removed');
/** One probe of each kind a field rule can tell apart. */
const PROBES: unknown[] = [
  REMOVED,
  undefined,
  null,
  '',
  'x',
  0,
  -7,
  1.5,
  Number.MAX_SAFE_INTEGER + 2,
  true,
  [],
  {},
  { type: 'mobile_money' },
  { type: 3 },
  { other: 1 },
];

/** Every field of `base` set to every probe in turn (the other fields valid): each rule is pinned. */
function exhaustive(base: Record<string, unknown>, check: (data: Record<string, unknown>) => void) {
  let cases = 0;
  for (const name of Object.keys(base)) {
    for (const probe of PROBES) {
      const data = { ...base };
      if (probe === REMOVED) delete data[name];
      else data[name] = probe;
      check(data);
      cases++;
    }
  }
  return cases;
}

describe('event data is checked with the zod schemas of the records', () => {
  const paymentBase = payment() as unknown as Record<string, unknown>;
  const payoutBase = {
    id: 'po_1',
    amount: 5000,
    currency: 'XOF',
    status: 'pending',
    destination: { type: 'mobile_money', phone: '221771234567' },
  };

  it('field by field, every kind of value', () => {
    const paymentCases = exhaustive(paymentBase, (data) =>
      expect(accepted('payment.succeeded', data), JSON.stringify(data)).toBe(PaymentSchema.safeParse(data).success),
    );
    const payoutCases = exhaustive(payoutBase, (data) =>
      expect(accepted('payout.paid', data), JSON.stringify(data)).toBe(PayoutSchema.safeParse(data).success),
    );
    expect(paymentCases + payoutCases).toBe((14 + 5) * PROBES.length);
  });

  it('Payment: accepted exactly when PaymentSchema accepts', () => {
    fc.assert(
      fc.property(fc.oneof(mutated(paymentBase, Object.keys(paymentBase)), oddValue), (data) => {
        const zod = PaymentSchema.safeParse(data).success;
        expect(accepted('payment.succeeded', data)).toBe(zod);
        expect(accepted('payment.failed', data)).toBe(zod);
      }),
      { numRuns: 1000 },
    );
  });

  it('Payout: accepted exactly when PayoutSchema accepts', () => {
    fc.assert(
      fc.property(fc.oneof(mutated(payoutBase, Object.keys(payoutBase)), oddValue), (data) => {
        expect(accepted('payout.completed', data)).toBe(PayoutSchema.safeParse(data).success);
      }),
      { numRuns: 1000 },
    );
  });

  it('a payout id of Infinity, NaN or beyond 2^53 is refused, as PayoutSchema refuses it (a fast-check counterexample)', () => {
    for (const id of [Number.POSITIVE_INFINITY, Number.NaN, 2 ** 53, 1.5]) {
      const data = { ...payoutBase, id };
      expect(PayoutSchema.safeParse(data).success).toBe(false);
      expect(accepted('payout.completed', data)).toBe(false);
    }
    expect(() => toWebhookEvent({ id: 'e', type: 'payout.paid', data: { ...payoutBase, id: Number.NaN } })).toThrow(
      'data.id: must be a string or a safe integer, got NaN',
    );
  });

  it('keeps unknown fields of the event and of its data', () => {
    const event = toWebhookEvent({ id: 7, type: 'payment.succeeded', data: { ...paymentBase, risk: { score: 3 } }, attempt: 2 });
    expect(event).toEqual({ id: '7', type: 'payment.succeeded', data: { ...paymentBase, risk: { score: 3 } }, attempt: 2 });
  });

  it('drops a reconciled field from a delivered body: only events made up by reconciliation carry the flag', () => {
    for (const reconciled of [true, 'yes', false]) {
      const event = toWebhookEvent({ id: 'evt_1', type: 'payment.succeeded', data: paymentBase, reconciled });
      expect(event).toEqual({ id: 'evt_1', type: 'payment.succeeded', data: paymentBase });
      expect('reconciled' in event).toBe(false);
    }
  });

  it('names every bad field in one message', () => {
    const data = { ...paymentBase, gross_amount: 12.5, uuid: undefined, status: 7, checkout_session: null, mobile_money_country: 3 };
    expect(() => toWebhookEvent({ id: 'e', type: 'payment.succeeded', data })).toThrow(
      'data of a payment.succeeded event must be a Payment: data.uuid: is required; data.gross_amount: must be an integer, got 12.5; data.mobile_money_country: must be a string, got number; data.status: must be a string, got number.',
    );
    expect(() => toWebhookEvent({ id: 'e', type: 'payout.x', data: { destination: {} } })).toThrow('data.destination.type: is required');
  });
});
