/**
 * The dashboard's live feed: server-sent events to every open page. A page that connects gets the
 * whole picture (`hello`); afterwards it gets each new request (`request`), and, whenever something
 * may have changed (a request, an action, a delivery attempt, and once a second while a page is
 * open, for what time does on its own), only the deliveries and records that did change
 * (`deliveries`, `records`) and the clock and delivery status (`status`). What is sent is bounded:
 * the last {@link DELIVERY_HISTORY} deliveries, the newest {@link RECORDS_PER_KIND} records of each
 * kind, the request history of {@link RequestLog}.
 */
import type { MockService } from '../../testing/mock-service.js';
import type { MockDelivery } from '../../testing/webhook-schedule.js';
import { type LoggedRequest, RequestLog } from './request-log.js';

/** How many deliveries (the newest) the page is sent. */
export const DELIVERY_HISTORY = 500;
/** How many records of each kind (the newest) the page is sent. */
export const RECORDS_PER_KIND = 100;
/** Delay that gathers the changes of a burst into one message. */
const DEBOUNCE_MS = 50;
/** While a page is open: how often the feed looks for changes made by time alone. */
const TICK_MS = 1000;
/** Messages a page may leave unread before it is cut off. */
const MAX_QUEUED_MESSAGES = 1000;
/** A comment line every this many ticks keeps idle connections open through proxies and sleep. */
const PING_TICKS = 15;

/** A delivery as the page shows it. */
export interface DeliveryView {
  id: string;
  type: string;
  dropped: boolean;
  delivered: boolean;
  nextAttemptAt: string | null;
  attempts: Array<{ number: number; at: string; status: number | null; ok: boolean; lost: boolean; error: string | null; ms: number }>;
  event: unknown;
}

/** A record as the page shows it: its kind, its id (`key`), the mode of the keys that see it, and its data. */
export interface RecordView {
  kind: 'payments' | 'checkoutSessions' | 'payouts' | 'paymentLinks';
  key: string;
  mode: string;
  data: Record<string, unknown>;
}

/** The clock and delivery state the page's controls show. */
export interface StatusView {
  now: string;
  webhooks: boolean;
  droppingNext: number;
  nextAttemptAt: string | null;
}

/** Which field identifies a record of each kind. */
const KEY_OF: Record<RecordView['kind'], string> = { payments: 'uuid', checkoutSessions: 'reference', payouts: 'id', paymentLinks: 'uuid' };

/** One open page's stream. */
type Client = ReadableStreamDefaultController<Uint8Array>;

const encoder = new TextEncoder();

/** An SSE message: one `event:` line and one `data:` line of JSON (which never holds a newline). */
function message(event: string, data: unknown): Uint8Array {
  return encoder.encode(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
}

/** The live feed of one running mock. */
export class DashboardFeed {
  /** The request history the page shows. */
  readonly requests: RequestLog;
  readonly #mock: MockService;
  readonly #webhooks: boolean;
  readonly #clients = new Set<Client>();
  /** What the pages were last sent, by delivery id and by record kind + key, as JSON text. */
  #sentDeliveries = new Map<string, string>();
  #sentRecords = new Map<string, string>();
  #sentStatus = '';
  #debounce: ReturnType<typeof setTimeout> | undefined;
  #ticker: ReturnType<typeof setInterval> | undefined;
  #ticks = 0;

  /** `webhooks` says whether the mock delivers to an endpoint (`--forward-to`): the delivery actions need one. */
  constructor(mock: MockService, webhooks: boolean) {
    this.#mock = mock;
    this.#webhooks = webhooks;
    this.requests = new RequestLog({ sandboxKey: mock.apiKey, liveKey: mock.liveApiKey, webhookSecret: mock.webhookSecret });
  }

  /** Adds a request to the history and sends it to the open pages at once. */
  async recordRequest(request: Request, response: Response, startedMs: number): Promise<LoggedRequest> {
    const entry = await this.requests.record(request, response, startedMs);
    this.#send(message('request', entry));
    this.changed();
    return entry;
  }

  /** Something may have changed: the open pages get what did, shortly (a burst of changes is one message). */
  changed(): void {
    if (this.#clients.size === 0 || this.#debounce !== undefined) return;
    this.#debounce = setTimeout(() => {
      this.#debounce = undefined;
      this.#flush();
    }, DEBOUNCE_MS);
  }

  /** The `text/event-stream` answer of one page: `hello` with everything, then the changes. */
  stream(): Response {
    let client: Client | undefined;
    const body = new ReadableStream<Uint8Array>({
      start: (controller) => {
        client = controller;
        // Pages already open get what changed first, so that every page then diffs from the same state.
        this.#flush();
        this.#clients.add(controller);
        controller.enqueue(encoder.encode('retry: 1000\n\n'));
        controller.enqueue(
          message('hello', {
            requests: this.requests.entries,
            deliveries: this.#deliveries(),
            records: this.#records(),
            status: this.#status(),
          }),
        );
        this.#arm();
      },
      cancel: () => {
        if (client) this.#clients.delete(client);
        this.#arm();
      },
    });
    return new Response(body, {
      headers: { 'Content-Type': 'text/event-stream; charset=utf-8', 'Cache-Control': 'no-store', 'X-Content-Type-Options': 'nosniff' },
    });
  }

  /** Ends every stream and stops the timers (the mock is stopping). */
  close(): void {
    for (const client of this.#clients) {
      try {
        client.close();
      } catch {
        // Already closed by the page.
      }
    }
    this.#clients.clear();
    this.#arm();
    clearTimeout(this.#debounce);
    this.#debounce = undefined;
  }

  /** Sends the deliveries, records and status that changed since the last message. */
  #flush(): void {
    const deliveries = this.#changed(this.#deliveries(), (d) => d.id, this.#sentDeliveries);
    this.#sentDeliveries = deliveries.sent;
    const records = this.#changed(this.#records(), (r) => `${r.kind} ${r.key}`, this.#sentRecords);
    this.#sentRecords = records.sent;
    if (deliveries.changed.length > 0) this.#send(message('deliveries', deliveries.changed));
    if (records.changed.length > 0) this.#send(message('records', records.changed));
    const status = this.#status();
    const text = JSON.stringify(status);
    if (text !== this.#sentStatus) {
      this.#sentStatus = text;
      this.#send(message('status', status));
    }
  }

  /** The items that differ from what was sent, and the new map of what was sent (only the current items: bounded). */
  #changed<T>(items: T[], keyOf: (item: T) => string, before: Map<string, string>): { changed: T[]; sent: Map<string, string> } {
    const sent = new Map<string, string>();
    const changed: T[] = [];
    for (const item of items) {
      const key = keyOf(item);
      const text = JSON.stringify(item);
      sent.set(key, text);
      if (before.get(key) !== text) changed.push(item);
    }
    return { changed, sent };
  }

  #send(bytes: Uint8Array): void {
    for (const client of this.#clients) {
      try {
        // A page that stopped reading (a frozen tab) would pile messages up: its stream is ended
        // with what it queued dropped, and its EventSource reconnects to a fresh `hello` when it wakes.
        if ((client.desiredSize ?? 0) < -MAX_QUEUED_MESSAGES) {
          this.#clients.delete(client);
          client.error(new Error('the page stopped reading the event stream'));
          continue;
        }
        client.enqueue(bytes);
      } catch {
        this.#clients.delete(client);
      }
    }
    this.#arm();
  }

  /** A timer that looks for changes once a second while a page is open, and pings now and then; none otherwise. */
  #arm(): void {
    if (this.#clients.size > 0 && this.#ticker === undefined) {
      this.#ticker = setInterval(() => {
        this.#ticks += 1;
        if (this.#ticks % PING_TICKS === 0) this.#send(encoder.encode(': ping\n\n'));
        this.#flush();
      }, TICK_MS);
      this.#ticker.unref();
    } else if (this.#clients.size === 0 && this.#ticker !== undefined) {
      clearInterval(this.#ticker);
      this.#ticker = undefined;
    }
  }

  /** The newest deliveries, newest first. */
  #deliveries(): DeliveryView[] {
    return this.#mock.deliveries.slice(-DELIVERY_HISTORY).reverse().map(deliveryView);
  }

  /** The newest records of each kind, newest first. */
  #records(): RecordView[] {
    const all = this.#mock.records({ limit: RECORDS_PER_KIND });
    const views: RecordView[] = [];
    for (const kind of Object.keys(KEY_OF) as Array<RecordView['kind']>) {
      for (const record of all[kind]) {
        const data = record.data as unknown as Record<string, unknown>;
        views.push({ kind, key: String(data[KEY_OF[kind]]), mode: record.mode, data });
      }
    }
    return views;
  }

  #status(): StatusView {
    let next: number | undefined;
    for (const d of this.#mock.deliveries) {
      const at = d.nextAttemptAt?.getTime();
      if (at !== undefined && (next === undefined || at < next)) next = at;
    }
    return {
      now: this.#mock.now().toISOString(),
      webhooks: this.#webhooks,
      droppingNext: this.#mock.droppingNext,
      nextAttemptAt: next === undefined ? null : new Date(next).toISOString(),
    };
  }
}

function deliveryView(delivery: MockDelivery): DeliveryView {
  const event = delivery.event as { id?: unknown; type?: unknown };
  return {
    id: String(event.id),
    type: String(event.type),
    dropped: delivery.dropped,
    delivered: delivery.delivered,
    nextAttemptAt: delivery.nextAttemptAt?.toISOString() ?? null,
    attempts: delivery.attempts.map((a) => ({
      number: a.number,
      at: a.at.toISOString(),
      status: a.status,
      ok: a.ok,
      lost: a.lost,
      error: a.error ?? null,
      ms: Math.round(a.durationMs),
    })),
    event: delivery.event,
  };
}
