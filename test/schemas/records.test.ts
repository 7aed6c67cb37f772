/**
 * Exact types, open data. The record types list the fields the SDK knows, with no index signature,
 * so a misspelt field name does not compile (the `@ts-expect-error` lines below fail
 * `npm run typecheck` the day a typo compiles); the objects keep every field the service sent, and
 * `readField` reads one the SDK does not type yet.
 */
import { HttpResponse, http } from 'msw';
import { type CheckoutSession, type Page, type Payment, type PaymentStatus, type Payout, readField } from 'payments-sdk';
import { PaymentSchema } from 'payments-sdk/schemas';
import type { WebhookEvent } from 'payments-sdk/webhooks';
import { describe, expect, expectTypeOf, it } from 'vitest';
import * as z from 'zod/mini';
import { makeClient } from '../helpers/client.js';
import { API_URL, envelope, payment } from '../helpers/fixtures.js';
import { useMswServer } from '../helpers/msw.js';

const server = useMswServer();

/** Compile-time only: each `@ts-expect-error` must be needed, or typecheck fails. */
function typos(p: Payment, s: CheckoutSession, page: Page<Payment>, event: WebhookEvent): void {
  // @ts-expect-error a misspelt field of a payment does not compile
  p.staus;
  // @ts-expect-error a misspelt field of a payment does not compile
  p.gross_ammount;
  // @ts-expect-error a misspelt field of a checkout session does not compile
  s.checkout_uri;
  // @ts-expect-error a misspelt field of a page's counters does not compile
  page.meta.totl;
  // @ts-expect-error a misspelt field of a page's links does not compile
  page.links.nxt;
  // @ts-expect-error a misspelt field of an event does not compile
  event.dat;
  if (event.type === 'payment.succeeded') {
    // @ts-expect-error nor of an event's payment
    event.data.failure_reasn;
  }
}

describe('record types: exact for the documented records, open for the others', () => {
  it('readField gives a known field its type, any other field unknown', () => {
    expectTypeOf(readField<Payment, 'status'>).returns.toEqualTypeOf<PaymentStatus>();
    expectTypeOf(readField<Payment, 'channel'>).returns.toEqualTypeOf<unknown>();
    expectTypeOf(readField<CheckoutSession, 'checkout_url'>).returns.toEqualTypeOf<string>();
    // A partly documented record keeps its other fields readable as they are.
    expectTypeOf<Payout['fee']>().toEqualTypeOf<unknown>();
    expectTypeOf<Payout['amount']>().toEqualTypeOf<number | undefined>();
    expect(typos).toBeTypeOf('function');
  });

  it('an unknown field the service sends is kept, and readField reads it', async () => {
    const sent = { ...payment(), channel: 'ussd', risk: { score: 12 } };
    server.use(http.get(`${API_URL}/payments/:uuid`, () => HttpResponse.json({ data: sent })));
    const got = await makeClient().payments.retrieve(sent.uuid);
    expect(got).toEqual(sent);
    expect(readField(got, 'channel')).toBe('ussd');
    expect(readField(got, 'risk')).toEqual({ score: 12 });
    expect(readField(got, 'status')).toBe('pending');
    // Only the record's own fields: nothing from its prototype, nothing it lacks.
    expect(readField(got, 'toString')).toBeUndefined();
    expect(readField(got, 'absent')).toBeUndefined();
  });

  it("a page's counters and links keep unknown fields too", async () => {
    const body = envelope([payment()]);
    server.use(
      http.get(`${API_URL}/payments`, () =>
        HttpResponse.json({ ...body, meta: { ...body.meta, from: 1 }, links: { ...body.links, self: `${API_URL}/payments` } }),
      ),
    );
    const page = await makeClient().payments.list();
    expect(readField(page.meta, 'from')).toBe(1);
    expect(readField(page.links, 'self')).toBe(`${API_URL}/payments`);
  });

  it('the schema keeps unknown keys and reports every bad field', () => {
    const result = z.safeParse(PaymentSchema, { ...payment(), gross_amount: 12.5, currency: 7, refunded: 0 });
    expect(result.success).toBe(false);
    expect(result.error?.issues.map((issue) => issue.path.join('.')).sort()).toEqual(['currency', 'gross_amount']);
    expect(readField(z.parse(PaymentSchema, { ...payment(), refunded: 0 }), 'refunded')).toBe(0);
  });
});
