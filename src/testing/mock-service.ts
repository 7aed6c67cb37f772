/**
 * `createMockService()`: the in-process model of the whole payments service.
 * Requests reach it through `mock.fetch` (for the client's `fetch` option: no global interception),
 * `mock.handlers` (msw), or `mock.listen()` (a real port on 127.0.0.1). Its actions move state the
 * way the service does on its own (a processor confirming a payment, a customer paying a hosted
 * page) and hand back the signed webhook delivery the service would send.
 */
import { normalizeBaseUrl } from '../internal/config.js';
import type { CheckoutSession } from '../schemas/checkout-session.js';
import type { Payment } from '../schemas/payment.js';
import type { PaymentLink } from '../schemas/payment-link.js';
import type { Payout } from '../schemas/payout.js';
import { type DeliverOptions, deliverWebhook, signDelivery, type WebhookDelivery, type WebhookTarget } from './delivery.js';
import type { KeyMode, MockKeyInfo, MockPayerOptions, MockPaymentLinkStatus, MockPayoutStatus } from './engine/model.js';
import { Engine } from './engine.js';
import { isoWithOffset, uuid } from './ids.js';
import { MockServiceError } from './mock-errors.js';
import { buildHandlers, type MswHandler, type MswModule, requireMsw } from './msw.js';
import type { ListenOptions, MockHttpServer } from './node-server.js';
import type { MockKycStatus, MockSeed, MockServiceOptions } from './options.js';
import { handleRequest } from './router.js';
import { DeliverySchedule, type MockDelivery, type MockDeliveryAttempt, undeliveredView } from './webhook-schedule.js';

/** A `payment.succeeded` / `payment.failed` event. */
export interface PaymentEvent {
  id: string;
  type: 'payment.succeeded' | 'payment.failed';
  data: Payment;
}

/** A `payout.*` event. The names are the mock's own (the service does not document them): `payout.approved`, `payout.rejected`, `payout.processing`, `payout.completed`, `payout.failed`. */
export interface PayoutEvent {
  id: string;
  type: `payout.${MockPayoutStatus}`;
  data: Payout;
}

/** Options of a checkout-session payment: who pays and how it ends. */
export interface PaySessionOptions extends MockPayerOptions {
  /** `'succeeded'` (default) completes the session; `'failed'` leaves it `pending_payment`. */
  outcome?: 'succeeded' | 'failed';
  /** For `outcome: 'failed'`. Default `'declined'`. */
  failure_reason?: string;
}

/** Options of a payment-link payment. */
export interface PayPaymentLinkOptions extends PaySessionOptions {
  /** The amount the customer chose (minor units). Required when the link has no fixed `amount`. */
  amount?: number;
}

/** A fault to inject into the next matching requests, to test retries and idempotent recovery. */
export interface MockFault {
  /** Answer with this status (default 503), unless `network`. */
  status?: number;
  /** Reject like a dropped connection (`TypeError: fetch failed`) instead of answering. */
  network?: boolean;
  /** How many matching requests it applies to. Default 1. */
  times?: number;
  /** Only requests with this method. */
  method?: string;
  /** Only requests whose path contains this string or matches this pattern. */
  path?: string | RegExp;
  /** Adds `Retry-After` (seconds) to the answer. */
  retryAfter?: number;
  /**
   * The service does the work, then the answer is lost. With a creation, the resource exists; a
   * retry with the same `Idempotency-Key` gets the original answer (200) instead of a second one.
   */
  afterProcessing?: boolean;
}

/** One request the mock received (the `Authorization` header is never kept). */
export interface MockRequestLog {
  method: string;
  /** Path and query. */
  path: string;
  /** Status answered; 0 for an injected network failure. */
  status: number;
  idempotencyKey: string | null;
}

const LOG_LIMIT = 1000;

/** One resource in {@link MockRecords}: its data, and which merchant and key mode see it. */
export interface MockRecord<T> {
  /** `'sandbox'` or `'live'`: the mode of the keys that see it. */
  readonly mode: KeyMode;
  /** The merchant it belongs to (`merchant_1` by default). */
  readonly merchant: string;
  /** A copy of the resource as the API returns it now. */
  readonly data: T;
}

/** The newest resources of every merchant and mode, each kind newest first: what `mock.records()` gives. */
export interface MockRecords {
  payments: MockRecord<Payment>[];
  checkoutSessions: MockRecord<CheckoutSession>[];
  payouts: MockRecord<Payout>[];
  paymentLinks: MockRecord<PaymentLink>[];
}

/** The mock service. Make one with {@link createMockService}. */
export class MockService {
  /** The service root to give the client as `baseUrl`. Never contacted over the network. */
  readonly baseUrl: string;
  /**
   * A `fetch` answered by the mock, for the client's `fetch` option:
   * `new PaymentsClient({ apiKey: mock.apiKey, baseUrl: mock.baseUrl, fetch: mock.fetch })`.
   * Only what is passed to it reaches the mock: nothing global is intercepted.
   */
  readonly fetch: typeof globalThis.fetch;
  readonly #engine: Engine;
  #handlers: MswHandler[] | undefined;
  #deliveries: MockDelivery[] = [];
  readonly #schedule: DeliverySchedule | undefined;
  #requests: MockRequestLog[] = [];
  #faults: Array<MockFault & { left: number }> = [];
  readonly #limiter: RateLimiter | undefined;
  #throttled = 0;

  /** @internal Use {@link createMockService}. */
  constructor(options: MockServiceOptions = {}) {
    this.baseUrl = normalizeBaseUrl(options.baseUrl ?? 'https://mock.payments.test');
    this.#engine = new Engine(this.baseUrl, options);
    this.#limiter = options.rateLimit === undefined ? undefined : new RateLimiter(options.rateLimit);
    const engine = this.#engine;
    this.#schedule =
      options.webhooks === undefined ? undefined : new DeliverySchedule(options.webhooks, () => engine.now(), options.now === undefined);
    this.fetch = async (input, init) => {
      const request = new Request(input, init);
      const response = await this.#answer(request);
      // A real fetch's Response knows its URL (a constructed one has ''): code under test may read it.
      if (response.url === '') Object.defineProperty(response, 'url', { value: request.url });
      return response;
    };
  }

  /**
   * msw handlers answering every request under {@link baseUrl}:
   * `setupServer(...mock.handlers)`. Needs msw (an optional peer dependency), loaded on first read;
   * if it cannot be loaded synchronously here, use {@link createHandlers}.
   */
  get handlers(): MswHandler[] {
    this.#handlers ??= this.createHandlers(requireMsw());
    return this.#handlers;
  }

  /**
   * The same handlers as {@link handlers}, from an msw module you loaded:
   * `mock.createHandlers(await import('msw'))`. Typed with msw's own handler type.
   */
  createHandlers<H>(msw: MswModule<H>): H[] {
    return buildHandlers(msw, this.baseUrl, (request) => this.#answer(request));
  }

  /** The first merchant's sandbox key (or its first key). */
  get apiKey(): string {
    const first = this.#engine.keys[0] as MockKeyInfo;
    return (this.#engine.keys.find((k) => k.merchant === first.merchant && k.mode === 'sandbox') ?? first).key;
  }

  /**
   * The first merchant's live key, if it has one: payouts need one. Its wallets start empty, and a
   * payout above the balance is refused (422 on `amount`), so give it a balance first:
   * `mock.seed({ wallets: [{ currency: 'XOF', balance: 1_000_000 }] }, { apiKey: mock.liveApiKey })`.
   */
  get liveApiKey(): string | undefined {
    const first = this.#engine.keys[0] as MockKeyInfo;
    return this.#engine.keys.find((k) => k.merchant === first.merchant && k.mode === 'live')?.key;
  }

  /** Every configured key with its mode and merchant. */
  get keys(): readonly MockKeyInfo[] {
    return this.#engine.keys;
  }

  /** The secret that signs deliveries: give it to `verifyWebhook` / `webhookHandler` as `secret`. */
  get webhookSecret(): string {
    return this.#engine.webhookSecret;
  }

  /**
   * Every delivery the actions produced, oldest first (the last 1000). With a `webhooks.endpoint`,
   * each says what happened to it: `attempts` (status, time on the mock's clock), `dropped`,
   * `delivered` and `nextAttemptAt`.
   */
  get deliveries(): readonly MockDelivery[] {
    return this.#deliveries;
  }

  /** Requests answered 429 by the `rateLimit` option since the mock was made (or reset). */
  get throttledCount(): number {
    return this.#throttled;
  }

  /** Every request received, oldest first (the last 1000), without the `Authorization` header. */
  get requests(): readonly MockRequestLog[] {
    return this.#requests;
  }

  // ------------------------------------------------------------ clock

  /** The mock's current time. */
  now(): Date {
    return new Date(this.#engine.now());
  }

  /**
   * Moves the mock's clock forward by `ms` and applies what time does: checkout sessions past
   * `expires_at` become `expired`; idempotency keys older than 24 h are forgotten.
   */
  advance(ms: number): Date {
    this.#engine.advance(ms);
    this.#schedule?.runDue();
    return this.now();
  }

  /**
   * Moves the clock to the moment the next delivery attempt falls due, and starts the attempts due
   * then (`await mock.deliveriesSettled()` waits for their outcome). Resolves to the mock's new time,
   * or `null`, with the clock unmoved, when no attempt waits. Throws {@link MockServiceError} without
   * a `webhooks.endpoint`.
   */
  advanceToNextAttempt(): Date | null {
    const due = this.#needSchedule('advanceToNextAttempt()').nextDueAt();
    if (due === undefined) return null;
    return this.advance(Math.max(0, due - this.#engine.now()));
  }

  /**
   * Loses every attempt of the next `count` events the mock delivers (on top of `dropRate`): they
   * show `dropped: true`, and nothing of them reaches the endpoint, so that you can test what your
   * reconciliation does about them. Throws {@link MockServiceError} without a `webhooks.endpoint`.
   */
  dropNextDeliveries(count: number): void {
    const schedule = this.#needSchedule('dropNextDeliveries()');
    if (!Number.isSafeInteger(count) || count < 1)
      throw new MockServiceError(`dropNextDeliveries(count): count must be an integer ≥ 1, got ${String(count)}.`);
    schedule.dropNext(count);
  }

  /** How many of the next events {@link dropNextDeliveries} still loses (0 without a `webhooks.endpoint`). */
  get droppingNext(): number {
    return this.#schedule?.dropping ?? 0;
  }

  /**
   * Posts a delivery of {@link deliveries} (by its event `id`) to the `webhooks.endpoint` once more,
   * at once: the same event id and signed body, as a merchant's "resend" does. It goes out even when
   * the event was picked to be lost. The attempt joins the delivery's `attempts`; a 2xx marks it
   * delivered and ends its retries. Throws {@link MockServiceError} for an unknown event id or
   * without a `webhooks.endpoint`.
   */
  async resendDelivery(eventId: string): Promise<MockDeliveryAttempt> {
    const schedule = this.#needSchedule('resendDelivery()');
    const delivery = this.#deliveries.findLast((d) => (d.event as { id?: unknown } | null)?.id === eventId);
    const attempt = delivery && (await schedule.resend(delivery));
    if (!attempt) throw new MockServiceError(`resendDelivery(): no delivery of event ${JSON.stringify(eventId)} to resend.`);
    return attempt;
  }

  #needSchedule(method: string): DeliverySchedule {
    if (!this.#schedule) throw new MockServiceError(`${method} needs the webhooks option: the mock delivers only to a webhooks.endpoint.`);
    return this.#schedule;
  }

  /**
   * Resolves once no delivery attempt is under way: after `mock.advance(ms)`, the retries that fell
   * due have their outcome (and any retry that falls due meanwhile too). Resolves at once without a
   * `webhooks.endpoint`.
   */
  deliveriesSettled(): Promise<void> {
    return this.#schedule?.settled() ?? Promise.resolve();
  }

  // ------------------------------------------------------------ serving

  /**
   * Serves the mock on a real port of 127.0.0.1 (Node, Bun, Deno) for code that can take neither a
   * custom fetch nor msw. Use the returned `url` as `baseUrl`; `await server.close()` in `afterAll`.
   * Checkout sessions created while it runs have their `checkout_url` on this server.
   */
  async listen(options?: ListenOptions): Promise<MockHttpServer> {
    // Dynamic: `node:http` stays out of the graph of createMockService() (edge runtimes, browsers).
    const { startServer } = await import('./node-server.js');
    const server = await startServer((request) => this.#answer(request), options);
    // Sessions created while it runs get a `checkout_url` on this server, an address that resolves.
    const engine = this.#engine;
    if (!engine.hostedOriginFixed) engine.hostedOrigin = server.url;
    return {
      url: server.url,
      port: server.port,
      close: async () => {
        if (engine.hostedOrigin === server.url) engine.hostedOrigin = engine.baseUrl;
        await server.close();
      },
    };
  }

  /** Injects a fault into the next matching requests (see {@link MockFault}). */
  injectFault(fault: MockFault = {}): void {
    const times = fault.times ?? 1;
    if (!Number.isInteger(times) || times < 1) throw new MockServiceError('injectFault: times must be an integer ≥ 1.');
    this.#faults.push({ ...fault, left: times });
  }

  async #answer(request: Request): Promise<Response> {
    if (request.signal?.aborted) throw request.signal.reason ?? new DOMException('The operation was aborted.', 'AbortError');
    const url = new URL(request.url);
    const entry: MockRequestLog = {
      method: request.method,
      path: `${url.pathname}${url.search}`,
      status: 0,
      idempotencyKey: request.headers.get('idempotency-key'),
    };
    this.#log(this.#requests, entry);
    const wait = this.#limiter?.take();
    if (wait !== undefined) {
      this.#throttled += 1;
      entry.status = 429;
      const headers = { 'Content-Type': 'application/json', 'Retry-After': String(Math.max(1, Math.ceil(wait / 1000))) };
      return new Response(JSON.stringify({ message: 'Trop de requêtes.' }), { status: 429, headers });
    }
    const fault = this.#takeFault(request, url);
    if (fault && !fault.afterProcessing) return this.#faultAnswer(fault, entry);
    const response = await handleRequest(this.#engine, request);
    if (fault) return this.#faultAnswer(fault, entry);
    entry.status = response.status;
    return response;
  }

  #takeFault(request: Request, url: URL): (MockFault & { left: number }) | undefined {
    const fault = this.#faults.find(
      (f) =>
        (!f.method || f.method.toUpperCase() === request.method.toUpperCase()) &&
        (!f.path || (typeof f.path === 'string' ? url.pathname.includes(f.path) : f.path.test(url.pathname))),
    );
    if (!fault) return undefined;
    fault.left -= 1;
    if (fault.left <= 0) this.#faults = this.#faults.filter((f) => f !== fault);
    return fault;
  }

  #faultAnswer(fault: MockFault, entry: MockRequestLog): Response {
    if (fault.network) {
      // Exactly what undici throws on a reset, so clients classify it as a network error.
      const cause = Object.assign(new Error('read ECONNRESET (injected by the mock service)'), { code: 'ECONNRESET' });
      throw new TypeError('fetch failed', { cause });
    }
    const status = fault.status ?? 503;
    entry.status = status;
    const headers: Record<string, string> = { 'Content-Type': 'application/json' };
    if (fault.retryAfter !== undefined) headers['Retry-After'] = String(fault.retryAfter);
    return new Response(JSON.stringify({ message: `Erreur ${status} injectée par le service simulé.` }), { status, headers });
  }

  #log<T>(list: T[], item: T): void {
    list.push(item);
    if (list.length > LOG_LIMIT) list.splice(0, list.length - LOG_LIMIT);
  }

  /**
   * Signs an action's event and logs it. With a `webhooks.endpoint` its first attempt is made at
   * once, and the action resolves when that attempt has its outcome; retries follow on the clock.
   */
  async #deliver<E extends { type: string }>(event: E, options: { schedule?: boolean } = {}): Promise<MockDelivery<E>> {
    const signed = await signDelivery(event, this.#engine.webhookSecret);
    if (!this.#schedule || options.schedule === false) {
      const view = undeliveredView(signed);
      this.#log(this.#deliveries as MockDelivery<unknown>[], view);
      return view;
    }
    const { view, first } = this.#schedule.add(signed);
    this.#log(this.#deliveries as MockDelivery<unknown>[], view);
    await first;
    return view;
  }

  // ------------------------------------------------------------ actions

  /** The processor confirms a pending payment: `succeeded`, net credited to the wallet, its checkout session `completed`. Delivery `payment.succeeded`. */
  async settlePayment(uuid: string): Promise<MockDelivery<PaymentEvent>> {
    return this.#deliver(this.#engine.decidePayment(uuid, 'succeeded') as PaymentEvent);
  }

  /** The processor reports a failure: `failed` with `failure_reason` (default `'declined'`). Delivery `payment.failed`. */
  async failPayment(uuid: string, failureReason?: string): Promise<MockDelivery<PaymentEvent>> {
    return this.#deliver(this.#engine.decidePayment(uuid, 'failed', failureReason) as PaymentEvent);
  }

  /**
   * The customer pays a checkout session on the hosted page: its payment is created with
   * `checkout_session` = the reference and decided at once. Delivery
   * `payment.succeeded` (session `completed`) or `payment.failed` (session stays `pending_payment`).
   */
  async paySession(reference: string, options: PaySessionOptions = {}): Promise<MockDelivery<PaymentEvent>> {
    return this.#deliver(
      this.#engine.paySession(reference, options.outcome ?? 'succeeded', options, options.failure_reason) as PaymentEvent,
    );
  }

  /**
   * The customer starts paying but the processor has not answered yet: a `pending` payment with
   * `checkout_session` = reference, session `pending_payment`. No event; decide it later with
   * {@link settlePayment} or {@link failPayment}.
   */
  startSessionPayment(reference: string, payer?: MockPayerOptions): Payment {
    return this.#engine.startSessionPayment(reference, payer);
  }

  /**
   * Expires a session now (as reaching `expires_at` does). The service documents no event for
   * sessions, so there is no delivery: resolves to `null`. Read the session
   * through the API to see `expired`.
   */
  async expireSession(reference: string): Promise<null> {
    this.#engine.closeSession(reference, 'expired');
    return null;
  }

  /** The customer cancels on the hosted page: session `cancelled`. No documented event: resolves to `null`. */
  async cancelSession(reference: string): Promise<null> {
    this.#engine.closeSession(reference, 'cancelled');
    return null;
  }

  /**
   * A customer pays a payment link (by `uuid`, slug or `url`): a checkout session of the link is
   * made and paid, so the payment appears in `GET /payments` with that session's reference.
   * Throws {@link MockServiceError} with the service's sentence for a
   * deactivated, expired or unknown link, and with `errors.amount` below `minimum_amount`.
   */
  async payPaymentLink(id: string, options: PayPaymentLinkOptions = {}): Promise<MockDelivery<PaymentEvent>> {
    return this.#deliver(this.#engine.payPaymentLink(id, { ...options, outcome: options.outcome ?? 'succeeded' }) as PaymentEvent);
  }

  /** Activates, deactivates or expires a link, as the merchant dashboard does (the service has no API for it). */
  setPaymentLinkStatus(id: string, status: MockPaymentLinkStatus): PaymentLink {
    return this.#engine.setPaymentLinkStatus(id, status);
  }

  /**
   * Moves a payout one step: by default `pending_approval` → `approved` → `processing` →
   * `completed`; or `{ to: 'rejected' }` (from `pending_approval`) / `{ to: 'failed' }` (later),
   * which give the amount back to the wallet. States and `payout.*` event names are the mock's own:
   * the service does not document them.
   */
  async advancePayout(id: string, options: { to?: MockPayoutStatus; failure_reason?: string } = {}): Promise<MockDelivery<PayoutEvent>> {
    return this.#deliver(this.#engine.movePayout(id, options.to, options.failure_reason) as PayoutEvent);
  }

  /**
   * Runs a payout through every remaining step to `completed` and resolves to the last delivery,
   * `payout.completed`, like every other action. Each step's delivery (`payout.approved`,
   * `payout.processing`) is in {@link deliveries} too. Throws {@link MockServiceError} when the
   * payout is already in a final state.
   */
  async completePayout(id: string): Promise<MockDelivery<PayoutEvent>> {
    let last = await this.advancePayout(id);
    // At most two more steps exist (pending_approval → approved → processing → completed).
    while (this.getPayout(id)?.status !== 'completed') last = await this.advancePayout(id);
    return last;
  }

  /**
   * Signs any event with the mock's secret, e.g. a type your code does not know yet. `id` defaults
   * to a fresh `evt_…`. For `payment.*` events, the fields of a payment that `data` leaves out are
   * filled (a 5000 XOF mobile-money payment, `status` from the type), so the delivery verifies:
   * `mock.createDelivery({ type: 'payment.succeeded', data: { uuid: 'pay_1' } })`.
   * It is never posted on its own, even with a `webhooks.endpoint`: deliver it with {@link deliver}.
   */
  async createDelivery<T extends string, D>(event: {
    type: T;
    data: D;
    id?: string;
  }): Promise<MockDelivery<{ id: string; type: T; data: D }>> {
    const data =
      event.type.startsWith('payment.') && isPlainRecord(event.data) ? this.#paymentDefaults(event.type, event.data) : event.data;
    const made = this.#engine.event(event.type, data) as { id: string; type: T; data: D };
    if (event.id !== undefined) made.id = event.id;
    // A made-up event is the test's to deliver (`mock.deliver`): the endpoint does not get it on its own.
    return this.#deliver(made, { schedule: false });
  }

  /** A whole payment record around the fields given, as the verifier expects one. */
  #paymentDefaults(type: string, given: Record<string, unknown>): Record<string, unknown> {
    const gross = typeof given.gross_amount === 'number' ? given.gross_amount : 5000;
    const psp = typeof given.psp_fee_amount === 'number' ? given.psp_fee_amount : 0;
    const platform = typeof given.platform_fee_amount === 'number' ? given.platform_fee_amount : 0;
    const failed = type === 'payment.failed';
    return {
      uuid: uuid(),
      checkout_session: null,
      gross_amount: gross,
      psp_fee_amount: psp,
      platform_fee_amount: platform,
      net_amount_to_merchant: gross - psp - platform,
      currency: 'XOF',
      payment_method: 'mobile_money',
      mobile_money_country: 'SEN',
      mobile_money_provider: 'orange',
      psp_reference: uuid(),
      status: failed ? 'failed' : type === 'payment.succeeded' ? 'succeeded' : 'pending',
      failure_reason: failed ? 'declined' : null,
      created_at: isoWithOffset(this.#engine.now()),
      ...given,
    };
  }

  /**
   * POSTs a delivery to your webhook endpoint: a fetch-style handler `(request) => Response`
   * (what `webhookHandler()` returns, a Hono app's `fetch`…) or a URL on 127.0.0.1 / localhost / [::1].
   * Any other host is refused. Returns your endpoint's response.
   *
   * A handler is given a `Request` for `http://localhost/webhooks`: when your app routes the
   * endpoint elsewhere, say where with `url` (a path or a whole URL), or the app answers 404:
   * `mock.deliver(delivery, app.fetch, { url: '/webhooks/payments' })`.
   */
  deliver(delivery: WebhookDelivery<unknown>, target: WebhookTarget, options?: DeliverOptions): Promise<Response> {
    return deliverWebhook(delivery, target, options);
  }

  // ------------------------------------------------------------ state

  /** Changes a merchant's KYC state or suspension (a live key needs `kyc: 'approved'`; a suspended merchant gets 403). */
  setMerchant(id: string, changes: { kyc?: MockKycStatus; suspended?: boolean }): void {
    this.#engine.setMerchant(id, changes);
  }

  /** Adds resources to the partition of `apiKey` (default {@link apiKey}). */
  seed(data: MockSeed, options: { apiKey?: string } = {}): void {
    this.#engine.seed(data, options.apiKey ?? this.apiKey);
  }

  /** Forgets every resource, idempotency key, delivery, request and fault; re-applies the `seed` option. */
  reset(): void {
    this.#engine.reset();
    this.#deliveries = [];
    this.#schedule?.clear();
    this.#requests = [];
    this.#faults = [];
    this.#throttled = 0;
  }

  /**
   * The newest resources of every merchant and mode (at most `limit` of each kind, default 100),
   * newest first, as copies: what a dashboard lists.
   */
  records(options: { limit?: number } = {}): MockRecords {
    const limit = options.limit ?? 100;
    if (!Number.isSafeInteger(limit) || limit < 0)
      throw new MockServiceError(`records(): limit must be an integer ≥ 0, got ${String(limit)}.`);
    this.#engine.sweep();
    const engine = this.#engine;
    return {
      payments: engine.newestRecords('payments', limit) as MockRecord<Payment>[],
      checkoutSessions: engine.newestRecords('checkout-sessions', limit) as MockRecord<CheckoutSession>[],
      payouts: engine.newestRecords('payouts', limit) as MockRecord<Payout>[],
      paymentLinks: engine.newestRecords('payment-links', limit) as MockRecord<PaymentLink>[],
    };
  }

  /** A payment as the mock holds it now (any merchant), or `undefined`. */
  getPayment(uuid: string): Payment | undefined {
    const found = this.#engine.findPayment(uuid);
    return found && structuredClone(found.stored.data);
  }

  /** A checkout session as the mock holds it now, or `undefined`. */
  getCheckoutSession(reference: string): CheckoutSession | undefined {
    this.#engine.sweep();
    const found = this.#engine.findSession(reference);
    return found && structuredClone(found.stored.data);
  }

  /** A payout as the mock holds it now, or `undefined`. */
  getPayout(id: string): Payout | undefined {
    const found = this.#engine.findPayout(id);
    return found && structuredClone(found.stored.data);
  }

  /** A payment link (by `uuid`, slug or `url`) as the mock holds it now, or `undefined`. */
  getPaymentLink(id: string): PaymentLink | undefined {
    const found = this.#engine.findLink(id);
    return found && structuredClone(found.stored.data);
  }

  /** Keys and the webhook secret stay out of `JSON.stringify(mock)`. */
  toJSON(): { baseUrl: string } {
    return { baseUrl: this.baseUrl };
  }

  /** Keys and the webhook secret stay out of `util.inspect(mock)` / `console.log(mock)`. */
  [Symbol.for('nodejs.util.inspect.custom')](): string {
    return `MockService ${JSON.stringify({ baseUrl: this.baseUrl, keys: this.#engine.keys.length })}`;
  }
}

/**
 * Creates an in-process mock of the whole payments service.
 *
 * ```ts
 * import { PaymentsClient } from 'payments-sdk';
 * import { createMockService } from 'payments-sdk/testing';
 *
 * const mock = createMockService();
 * const client = new PaymentsClient({ apiKey: mock.apiKey, baseUrl: mock.baseUrl, fetch: mock.fetch });
 * const payment = await client.payments.create({ amount: 5000, currency: 'XOF', country: 'SEN', provider: 'orange', phone: '221771234567' });
 * const delivery = await mock.settlePayment(payment.uuid); // { headers, body }, signed with mock.webhookSecret
 * ```
 */
export function createMockService(options?: MockServiceOptions): MockService {
  return new MockService(options);
}

/** The token bucket of the `rateLimit` option, on real time (the mock's clock may be frozen). */
class RateLimiter {
  readonly #capacity: number;
  readonly #perMs: number;
  #tokens: number;
  #at = performance.now();

  constructor(option: { requests: number; perMs?: number }) {
    const perMs = option.perMs ?? 1000;
    if (!Number.isInteger(option.requests) || option.requests < 1 || !Number.isFinite(perMs) || perMs <= 0) {
      throw new MockServiceError('rateLimit: requests must be an integer ≥ 1 and perMs a number of milliseconds > 0.');
    }
    this.#capacity = option.requests;
    this.#perMs = perMs;
    this.#tokens = option.requests;
  }

  /** Takes a token: `undefined` when allowed, else the milliseconds until one is available. */
  take(): number | undefined {
    const now = performance.now();
    this.#tokens = Math.min(this.#capacity, this.#tokens + ((now - this.#at) * this.#capacity) / this.#perMs);
    this.#at = now;
    if (this.#tokens >= 1) {
      this.#tokens -= 1;
      return undefined;
    }
    return ((1 - this.#tokens) * this.#perMs) / this.#capacity;
  }
}

/** An object that is not an array: `data` that can take a payment's missing fields. */
function isPlainRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
