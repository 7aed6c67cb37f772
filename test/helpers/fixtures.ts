/** Realistic bodies, shaped as the service shows them (docs/service.md "Money and records"). Override any field per test. */
import type { CheckoutSession, Payment } from '../../src/index.js';

export const API_KEY = 'sk_test_51FixtureKeyThatMustNeverLeak';
export const LIVE_KEY = 'sk_live_51FixtureKeyThatMustNeverLeak';
/**
 * The loopback origin msw answers at in the HTTP-core, resource and pagination tests; nothing listens
 * there. Port 4010: fetch refuses "bad ports" such as 9 before msw sees the request.
 */
export const ORIGIN = 'http://127.0.0.1:4010';
export const API_URL = `${ORIGIN}/api/v1`;

/** Valid `payments.create` params: a direct charge in Senegal (docs/service.md "Endpoints"). */
export const chargeParams = { amount: 5000, currency: 'XOF', country: 'SEN', provider: 'orange', phone: '221771234567' };

/** Valid `checkoutSessions.create` params (docs/service.md "Endpoints"). */
export const sessionParams = { amount: 5000, currency: 'XOF', description: 'Order #1042' };

/** A record as the service sends it: the fields the SDK types, and any others it adds. */
export type ServiceRecord<T> = T & Record<string, unknown>;

export function payment(overrides: Partial<ServiceRecord<Payment>> = {}): ServiceRecord<Payment> {
  return {
    uuid: '9b2f8a1e-3c4d-4e5f-8a9b-0c1d2e3f4a5b',
    checkout_session: null,
    gross_amount: 5000,
    psp_fee_amount: 75,
    platform_fee_amount: 25,
    net_amount_to_merchant: 4900,
    currency: 'XOF',
    payment_method: 'mobile_money',
    mobile_money_country: 'SEN',
    mobile_money_provider: 'orange',
    psp_reference: '1f2e3d4c-5b6a-4978-8695-a4b3c2d1e0f9',
    status: 'pending',
    failure_reason: null,
    created_at: '2026-11-20T10:15:00+00:00',
    ...overrides,
  };
}

export function checkoutSession(overrides: Partial<ServiceRecord<CheckoutSession>> = {}): ServiceRecord<CheckoutSession> {
  return {
    reference: '01JD3Z8Q4X5Y6Z7A8B9C0D1E2F',
    amount: 5000,
    currency: 'XOF',
    description: 'Order #1042',
    payer_name: null,
    payer_email: null,
    payer_phone: null,
    success_url: 'https://shop.example/success',
    cancel_url: 'https://shop.example/cancel',
    status: 'created',
    metadata: { order_id: '1042' },
    checkout_url: 'https://checkout.example/c/01JD3Z8Q4X5Y6Z7A8B9C0D1E2F',
    expires_at: '2026-11-20T11:15:00+00:00',
    created_at: '2026-11-20T10:15:00+00:00',
    ...overrides,
  };
}

/** A list envelope with absolute links, as Laravel writes them (docs/service.md "Endpoints", lists). */
export function envelope<T>(
  data: T[],
  opts: { page?: number; lastPage?: number; perPage?: number; total?: number; origin?: string; path?: string } = {},
) {
  const page = opts.page ?? 1;
  const lastPage = opts.lastPage ?? 1;
  const origin = opts.origin ?? 'http://127.0.0.1:4010';
  const path = opts.path ?? '/api/v1/payments';
  const link = (p: number) => `${origin}${path}?page=${p}`;
  return {
    data,
    links: { first: link(1), last: link(lastPage), prev: page > 1 ? link(page - 1) : null, next: page < lastPage ? link(page + 1) : null },
    meta: { current_page: page, last_page: lastPage, per_page: opts.perPage ?? 20, total: opts.total ?? data.length },
  };
}
