/**
 * Deliveries the way the service makes them, given a `webhooks.endpoint`: each event is posted at
 * once, then retried on the mock's clock until the endpoint answers 2xx within the time limit,
 * {@link MOCK_DELIVERY_MAX_ATTEMPTS} attempts at most, spaced by {@link MOCK_DELIVERY_RETRY_DELAYS_MS},
 * with the same event (same `id`, same signed body) on every attempt. A share of the events
 * (`dropRate`) is lost on purpose, every attempt of them, drawn from a seeded generator so a test
 * sees the same events lost on every run. `mock.advance(ms)` runs the attempts that fall due; when
 * the mock runs on real time, a timer runs them too as they fall due.
 */
import { MAX_TIMER_MS } from '../internal/durations.js';
import { deliverWebhook, loopbackUrl, type WebhookDelivery, type WebhookTarget } from './delivery.js';
import { MockServiceError } from './mock-errors.js';
import { mulberry32 } from './seeded-random.js';

/** Attempts per event, the first included, before the mock gives up on it. */
export const MOCK_DELIVERY_MAX_ATTEMPTS = 5;

/**
 * The wait before each retry, after the attempt before it fell due: 1 minute, 10 minutes,
 * 30 minutes, 2 hours (the service spaces its retries from one minute to two hours). The fifth and
 * last attempt falls due 2 h 41 min after the first.
 */
export const MOCK_DELIVERY_RETRY_DELAYS_MS: readonly number[] = Object.freeze([60_000, 600_000, 1_800_000, 7_200_000]);

/** What one delivery attempt gave. */
export interface MockDeliveryAttempt {
  /** 1 for the first attempt, up to {@link MOCK_DELIVERY_MAX_ATTEMPTS}, and one more for each resend (`mock.resendDelivery()`). */
  readonly number: number;
  /** When it was made, on the mock's clock. */
  readonly at: Date;
  /** The endpoint's HTTP status; `null` when there was no answer (lost, timed out, connection failed, handler threw). */
  readonly status: number | null;
  /** `true` for a 2xx within the time limit: the event is delivered and not retried. */
  readonly ok: boolean;
  /** `true` when the attempt was lost on purpose (`dropRate`): nothing was sent. */
  readonly lost: boolean;
  /** Why it failed, when it failed without a status: `'lost'`, `'timeout'`, or the error's message. */
  readonly error?: string;
  /** Real milliseconds the endpoint took to answer (0 for a lost attempt). */
  readonly durationMs: number;
}

/** A delivery in `mock.deliveries`: the signed event, and what the mock's attempts to post it gave. */
export interface MockDelivery<E = { id: string; type: string; data: unknown }> extends WebhookDelivery<E> {
  /** Every attempt so far, oldest first. Empty when the mock has no `webhooks.endpoint`. */
  readonly attempts: readonly MockDeliveryAttempt[];
  /** `true` when the event was picked to be lost (`dropRate`): every attempt of it is lost. */
  readonly dropped: boolean;
  /** `true` once an attempt got a 2xx in time. */
  readonly delivered: boolean;
  /** When the next attempt falls due on the mock's clock; `null` when delivered, given up, or not delivered by the mock. */
  readonly nextAttemptAt: Date | null;
}

/** The `webhooks` option of `createMockService()`: deliver every event to an endpoint, like the service. */
export interface MockWebhooksOptions {
  /** Where to post each delivery: a fetch-style handler (`webhookHandler(...)`, an app's `fetch`) or a URL on 127.0.0.1 / localhost / [::1]. */
  endpoint: WebhookTarget;
  /** For a handler endpoint: the path or URL of the `Request` it receives. Default `http://localhost/webhooks`. */
  url?: string;
  /** Share of events (0–1) whose every attempt is lost, to test reconciliation. Default 0. */
  dropRate?: number;
  /** Seed of the draw that picks the lost events: the same seed loses the same events (by order). Default 1. */
  seed?: number;
  /** Real milliseconds an attempt waits for the endpoint's answer before it counts as failed. Default 10 000, as the service. */
  timeoutMs?: number;
  /** Called after every attempt (a log line, a counter). What it throws is ignored. */
  onAttempt?: (delivery: MockDelivery, attempt: MockDeliveryAttempt) => void;
}

/** One event being delivered: its public view and what the schedule keeps about it. */
interface Entry {
  readonly view: MockDelivery;
  readonly attempts: MockDeliveryAttempt[];
  readonly dropped: boolean;
  delivered: boolean;
  /** When the next attempt falls due (mock clock, ms); `undefined` when none will be made. */
  dueAt: number | undefined;
  running: boolean;
  /** The schedule's generation it belongs to: after `clear()`, an attempt under way is not retried. */
  generation: number;
}

/** The plain view of a delivery (no endpoint): no attempts, never dropped. */
export function undeliveredView<E>(delivery: WebhookDelivery<E>): MockDelivery<E> {
  return Object.freeze({ ...delivery, attempts: Object.freeze([]), dropped: false, delivered: false, nextAttemptAt: null });
}

/** Checks the `webhooks` option at once: a bad one is a {@link MockServiceError} naming each problem. */
function checkOptions(options: MockWebhooksOptions): void {
  const problems: string[] = [];
  const { endpoint, dropRate, seed, timeoutMs } = options;
  if (typeof endpoint === 'string' || endpoint instanceof URL) {
    try {
      loopbackUrl(endpoint, 'webhooks.endpoint');
    } catch (error) {
      problems.push((error as Error).message);
    }
  } else if (typeof endpoint !== 'function') {
    problems.push('webhooks.endpoint must be a fetch-style handler or a loopback URL');
  }
  if (dropRate !== undefined && (typeof dropRate !== 'number' || !(dropRate >= 0 && dropRate <= 1)))
    problems.push(`webhooks.dropRate must be a number from 0 to 1, got ${String(dropRate)}`);
  if (seed !== undefined && !Number.isSafeInteger(seed)) problems.push(`webhooks.seed must be an integer, got ${String(seed)}`);
  if (timeoutMs !== undefined && (typeof timeoutMs !== 'number' || !(timeoutMs > 0 && timeoutMs <= MAX_TIMER_MS)))
    problems.push(`webhooks.timeoutMs must be a number of milliseconds > 0, got ${String(timeoutMs)}`);
  if (problems.length > 0) throw new MockServiceError(`${problems.join('; ')}.`);
}

/** The deliveries of one mock service to its endpoint, on its clock. */
export class DeliverySchedule {
  readonly #options: MockWebhooksOptions;
  readonly #now: () => number;
  readonly #realTime: boolean;
  readonly #random: () => number;
  readonly #timeoutMs: number;
  #waiting: Entry[] = [];
  readonly #inFlight = new Set<Promise<void>>();
  #timer: ReturnType<typeof setTimeout> | undefined;
  #generation = 0;
  /** Events still to be lost on purpose by {@link dropNext}, beside the `dropRate` draw. */
  #dropNext = 0;
  /** Every entry by its view, so that a delivery handed out can be resent. */
  readonly #entries = new WeakMap<MockDelivery, Entry>();

  /** `now` reads the mock's clock; `realTime` says it follows the wall clock, so a timer may run what falls due. */
  constructor(options: MockWebhooksOptions, now: () => number, realTime: boolean) {
    checkOptions(options);
    this.#options = options;
    this.#now = now;
    this.#realTime = realTime;
    this.#random = mulberry32(options.seed ?? 1);
    this.#timeoutMs = options.timeoutMs ?? 10_000;
  }

  /** Starts delivering `delivery`: its first attempt is made at once; resolves when that attempt has its outcome. */
  add<E>(delivery: WebhookDelivery<E>): { view: MockDelivery<E>; first: Promise<void> } {
    const dropRate = this.#options.dropRate ?? 0;
    // Drawn for every event, whatever the rate, so the same seed picks the same events at any rate.
    const drawn = this.#random() < dropRate;
    const dropped = drawn || this.#dropNext > 0;
    if (this.#dropNext > 0) this.#dropNext -= 1;
    const attempts: MockDeliveryAttempt[] = [];
    const entry = { attempts, dropped, delivered: false, dueAt: this.#now(), running: false, generation: this.#generation } as Entry;
    const view: MockDelivery = Object.freeze({
      ...(delivery as WebhookDelivery),
      attempts,
      dropped,
      get delivered() {
        return entry.delivered;
      },
      get nextAttemptAt() {
        return entry.dueAt === undefined ? null : new Date(entry.dueAt);
      },
    });
    (entry as { view: MockDelivery }).view = view;
    this.#entries.set(view, entry);
    return { view: view as MockDelivery<E>, first: this.#start(entry) };
  }

  /** Starts every attempt that has fallen due on the mock's clock. */
  runDue(): void {
    const now = this.#now();
    const due = this.#waiting.filter((entry) => !entry.running && entry.dueAt !== undefined && entry.dueAt <= now);
    for (const entry of due) void this.#start(entry);
    this.#arm();
  }

  /** Loses every attempt of the next `count` events, on top of the `dropRate` draw. */
  dropNext(count: number): void {
    this.#dropNext += count;
  }

  /** How many of the next events {@link dropNext} still loses. */
  get dropping(): number {
    return this.#dropNext;
  }

  /** When the earliest waiting attempt falls due (mock clock, ms); `undefined` when none waits. */
  nextDueAt(): number | undefined {
    let next: number | undefined;
    for (const entry of this.#waiting) if (entry.dueAt !== undefined && (next === undefined || entry.dueAt < next)) next = entry.dueAt;
    return next;
  }

  /**
   * Posts a delivery once more, at once and for real (even one picked to be lost): the same event
   * and signed body. The attempt joins the delivery's `attempts`; a 2xx marks it delivered and ends
   * its retries, anything else leaves its schedule as it was. `undefined` for a delivery this
   * schedule did not make.
   */
  async resend(view: MockDelivery): Promise<MockDeliveryAttempt | undefined> {
    const entry = this.#entries.get(view);
    if (!entry) return undefined;
    const run = this.#post(view, entry.attempts.length + 1, new Date(this.#now()));
    const done = run.then(() => undefined);
    this.#inFlight.add(done);
    const posted = await run.finally(() => this.#inFlight.delete(done));
    // Numbered when it ends: a scheduled attempt may have ended meanwhile.
    const attempt = { ...posted, number: entry.attempts.length + 1 };
    this.#record(entry, attempt, entry.dueAt);
    if (attempt.ok) this.#waiting = this.#waiting.filter((waiting) => waiting !== entry);
    this.#arm();
    return attempt;
  }

  /** Resolves once no attempt is under way, including the attempts that fall due while waiting. */
  async settled(): Promise<void> {
    while (this.#inFlight.size > 0) await Promise.all([...this.#inFlight]);
  }

  /** Forgets every delivery still to be retried (`mock.reset()`); attempts under way finish unrecorded in the schedule. */
  clear(): void {
    this.#generation += 1;
    this.#waiting = [];
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = undefined;
  }

  #start(entry: Entry): Promise<void> {
    entry.running = true;
    this.#waiting = this.#waiting.filter((waiting) => waiting !== entry);
    const run = this.#attempt(entry).finally(() => {
      this.#inFlight.delete(run);
      entry.running = false;
      if (entry.dueAt !== undefined && entry.generation === this.#generation) this.#waiting.push(entry);
      // The next attempt may already be due (the clock jumped past it): it runs now.
      this.runDue();
    });
    this.#inFlight.add(run);
    return run;
  }

  async #attempt(entry: Entry): Promise<void> {
    const number = entry.attempts.length + 1;
    const at = new Date(this.#now());
    const scheduled = entry.dueAt ?? this.#now();
    const attempt = entry.dropped ? lostAttempt(number, at) : await this.#post(entry.view, number, at);
    const retry = number >= MOCK_DELIVERY_MAX_ATTEMPTS ? undefined : scheduled + (MOCK_DELIVERY_RETRY_DELAYS_MS[number - 1] as number);
    this.#record(entry, attempt, retry);
  }

  /** Adds an attempt to its delivery: delivered on a 2xx, else the next attempt falls due at `retryAt`. Tells `onAttempt`. */
  #record(entry: Entry, attempt: MockDeliveryAttempt, retryAt: number | undefined): void {
    entry.attempts.push(attempt);
    if (attempt.ok) entry.delivered = true;
    entry.dueAt = attempt.ok ? undefined : retryAt;
    try {
      this.#options.onAttempt?.(entry.view, attempt);
    } catch {
      // A reporting hook must not stop the deliveries.
    }
  }

  async #post(view: MockDelivery, number: number, at: Date): Promise<MockDeliveryAttempt> {
    const started = performance.now();
    const controller = new AbortController();
    let timedOut = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const deadline = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        timedOut = true;
        controller.abort();
        reject(new Error('timeout'));
      }, this.#timeoutMs);
    });
    try {
      const answer = deliverWebhook(view, this.#options.endpoint, { url: this.#options.url, signal: controller.signal });
      // Past the deadline its failure is no longer waited for: never unhandled.
      answer.catch(() => undefined);
      // A handler cannot be cut off: the race stops waiting for it at the deadline.
      const response = await Promise.race([answer, deadline]);
      await response.body?.cancel().catch(() => undefined);
      const ok = response.status >= 200 && response.status < 300;
      return { number, at, status: response.status, ok, lost: false, durationMs: performance.now() - started };
    } catch (error) {
      const reason = timedOut ? 'timeout' : error instanceof Error ? error.message : String(error);
      return { number, at, status: null, ok: false, lost: false, error: reason, durationMs: performance.now() - started };
    } finally {
      clearTimeout(timer);
    }
  }

  /** On real time, a timer for the next attempt to fall due; unref'd so it never holds a process open. */
  #arm(): void {
    if (!this.#realTime) return;
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = undefined;
    let next = Number.POSITIVE_INFINITY;
    for (const entry of this.#waiting) if (!entry.running && entry.dueAt !== undefined && entry.dueAt < next) next = entry.dueAt;
    if (next === Number.POSITIVE_INFINITY) return;
    const delay = Math.min(MAX_TIMER_MS, Math.max(0, next - this.#now()));
    const timer = setTimeout(() => {
      this.#timer = undefined;
      this.runDue();
    }, delay);
    (timer as { unref?: () => void }).unref?.();
    this.#timer = timer;
  }
}

function lostAttempt(number: number, at: Date): MockDeliveryAttempt {
  return { number, at, status: null, ok: false, lost: true, error: 'lost', durationMs: 0 };
}
