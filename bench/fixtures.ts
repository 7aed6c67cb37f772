/**
 * Bodies shared by the benchmark scripts (server.ts, run.ts, profile.ts), shaped as the service
 * shows them (docs/service.md "Money and records", "Webhooks").
 *
 * The scripts load this file with `await import(new URL('./fixtures.ts', import.meta.url).href)`:
 * Node runs TypeScript only with the `.ts` extension written out, and the repo's tsconfig refuses
 * `.ts` in a static import specifier; a computed specifier satisfies both (types come from
 * `typeof import('./fixtures.js')`).
 */

/** Pages of the list the pagination benchmark walks. */
export const PAGES = 100;
/** Items per page. */
export const PER_PAGE = 100;
/** How late the stub's slow listener answers, in ms. */
export const LATENCY_MS = 20;

/** The payment `GET /api/v1/payments/{uuid}` answers in the benchmarks: `benchPayment(1)`. */
export const UUID = '9b2f8a1e-3c4d-4e5f-8a9b-000000000001';

/** A payment as the service shows it (docs/service.md "Money and records"); `n` makes each one distinct. */
export function benchPayment(n: number) {
  const hex = n.toString(16).padStart(12, '0');
  const gross = 1_000 + (n % 9_000);
  return {
    uuid: `9b2f8a1e-3c4d-4e5f-8a9b-${hex}`,
    checkout_session: n % 3 === 0 ? `01JD3Z8Q4X5Y6Z7A8B9C${hex.slice(-6)}` : null,
    gross_amount: gross,
    psp_fee_amount: Math.floor(gross * 0.015),
    platform_fee_amount: Math.floor(gross * 0.005),
    net_amount_to_merchant: gross - Math.floor(gross * 0.015) - Math.floor(gross * 0.005),
    currency: 'XOF',
    payment_method: 'mobile_money',
    mobile_money_country: 'SEN',
    mobile_money_provider: 'orange',
    psp_reference: `1f2e3d4c-5b6a-4978-8695-${hex}`,
    status: n % 5 === 0 ? 'failed' : 'succeeded',
    failure_reason: n % 5 === 0 ? 'insufficient_funds' : null,
    created_at: '2026-11-20T10:15:00+00:00',
  };
}

/** A `payment.succeeded` delivery body of about `bytes` bytes (an unknown field pads it). */
export function webhookEventBody(bytes: number): string {
  const event = { id: 'evt_01JD3Z8Q4X5Y6Z7A8B9C0D1E2F', type: 'payment.succeeded', data: { ...benchPayment(1), x_padding: '' } };
  const bare = JSON.stringify(event).length;
  event.data.x_padding = 'x'.repeat(Math.max(0, bytes - bare));
  return JSON.stringify(event);
}
