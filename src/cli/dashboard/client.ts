/**
 * The dashboard's script, run by the browser. It is served as the source of {@link dashboardScript}
 * (`app.js`), so it is type-checked and linted with the rest, and must stay self-contained: it may
 * use nothing from this module's scope (its imports are types only, gone from the served source).
 * Data from the mock only ever reaches the page through `textContent` (never as HTML), so a value
 * such as `<script>` shows as text.
 */

import type { DeliveryView as Delivery, RecordView, StatusView as Status } from './feed.js';
import type { LoggedRequest } from './request-log.js';

/** The page's behaviour: the live lists from the event stream, and the action buttons. */
export function dashboardScript(): void {
  const BASE = '/_mock/dashboard';
  const LIMITS: Record<string, number> = { requests: 500, deliveries: 500 };
  const RECORD_LIMIT = 100;

  const lists = new Map<string, Map<string, HTMLDetailsElement>>();

  function byId(id: string): HTMLElement {
    return document.getElementById(id) as HTMLElement;
  }

  function el(tag: string, className?: string, text?: unknown): HTMLElement {
    const node = document.createElement(tag);
    if (className) node.className = className;
    if (text !== undefined && text !== null) node.textContent = String(text);
    return node;
  }

  function time(iso: string | null | undefined): string {
    return iso ? new Date(iso).toLocaleTimeString() : '';
  }

  function pre(value: unknown): HTMLElement {
    return el('pre', '', typeof value === 'string' ? value : JSON.stringify(value, null, 2));
  }

  /** The line of `key` in list `id` (made, at the top, when new); older lines beyond `limit` drop off. */
  function line(id: string, key: string, limit: number): HTMLDetailsElement {
    let items = lists.get(id);
    if (!items) {
      items = new Map();
      lists.set(id, items);
    }
    let item = items.get(key);
    if (!item) {
      item = document.createElement('details');
      item.dataset.key = key;
      const list = byId(id);
      list.prepend(item);
      items.set(key, item);
      while (list.children.length > limit) {
        const last = list.lastElementChild as HTMLDetailsElement;
        items.delete(last.dataset.key ?? '');
        last.remove();
      }
    }
    return item;
  }

  function notice(text: string, error: boolean): void {
    const node = byId('notice');
    node.textContent = text;
    node.className = error ? 'error' : '';
  }

  async function act(name: string, body: Record<string, unknown>, button: HTMLButtonElement): Promise<void> {
    button.disabled = true;
    try {
      const response = await fetch(`${BASE}/actions/${name}`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify(body),
      });
      const answer = (await response.json().catch(() => ({}))) as { message?: string };
      notice(answer.message ?? `HTTP ${response.status}`, !response.ok);
    } catch (error) {
      notice(String(error), true);
    } finally {
      button.disabled = false;
    }
  }

  function button(label: string, name: string, body: Record<string, unknown>): HTMLButtonElement {
    const node = el('button', `action-${name}`, label) as HTMLButtonElement;
    node.type = 'button';
    node.addEventListener('click', (event) => {
      // A button in a summary must not open or close its line.
      event.preventDefault();
      void act(name, body, node);
    });
    return node;
  }

  function showRequest(entry: LoggedRequest): void {
    const item = line('requests', String(entry.id), LIMITS.requests as number);
    item.className = 'request';
    const summary = el('summary');
    const refused = entry.status >= 400 || entry.status === 0;
    summary.append(el('span', 'muted', time(entry.at)), el('span', 'method', entry.method), el('span', 'path', entry.path));
    summary.append(el('span', refused ? 'status err' : 'status ok', entry.status));
    if (entry.idempotencyKey !== null) summary.append(el('span', 'idempotency-key', `Idempotency-Key: ${entry.idempotencyKey}`));
    if (entry.replayed) summary.append(el('span', 'badge replayed', 'replayed'));
    if (entry.mode === 'live') summary.append(el('span', 'badge live', 'live'));
    const message = (entry.error as { message?: unknown } | null)?.message;
    if (refused && entry.error !== null)
      summary.append(el('span', 'error err', typeof message === 'string' ? message : JSON.stringify(entry.error)));
    const curl = pre(entry.curl);
    curl.className = 'curl';
    const copy = el('button', 'copy', 'Copy as curl') as HTMLButtonElement;
    copy.type = 'button';
    copy.addEventListener('click', () => {
      navigator.clipboard.writeText(entry.curl).then(
        () => notice('curl command copied.', false),
        () => {
          // No clipboard (an insecure context, a denied permission): select the text to copy by hand.
          getSelection()?.selectAllChildren(curl);
          notice('Press Ctrl-C to copy the selected command.', false);
        },
      );
    });
    item.replaceChildren(summary, pre(entry), copy, curl);
  }

  function showDelivery(delivery: Delivery): void {
    const item = line('deliveries', delivery.id, LIMITS.deliveries as number);
    item.className = 'delivery';
    const summary = el('summary');
    summary.append(
      el('span', 'muted', time(delivery.attempts[0]?.at)),
      el('span', 'type', delivery.type),
      el('span', 'event-id', delivery.id),
    );
    if (delivery.dropped) summary.append(el('span', 'badge dropped', 'dropped'));
    if (delivery.delivered) summary.append(el('span', 'badge delivered', 'delivered'));
    for (const a of delivery.attempts) {
      const outcome = a.lost ? 'lost' : a.status === null ? (a.error ?? 'no answer') : String(a.status);
      const node = el('span', a.ok ? 'attempt ok' : 'attempt err', `#${a.number} ${outcome} ${time(a.at)}`);
      node.dataset.status = a.status === null ? '' : String(a.status);
      summary.append(node);
    }
    if (delivery.nextAttemptAt) summary.append(el('span', 'next muted', `next attempt ${time(delivery.nextAttemptAt)}`));
    summary.append(button('Resend', 'resend', { id: delivery.id }));
    item.replaceChildren(summary, pre(delivery.event));
  }

  function money(data: Record<string, unknown>, field: string): string {
    const amount = data[field];
    return amount === undefined || amount === null ? '' : `${String(amount)} ${String(data.currency ?? '')}`;
  }

  function showRecord(record: RecordView): void {
    const item = line(record.kind, record.key, RECORD_LIMIT);
    item.className = `record ${record.kind}`;
    const data = record.data;
    const summary = el('summary');
    summary.append(el('span', 'muted', time(String(data.created_at ?? ''))), el('span', 'id', record.key));
    if (record.kind === 'payments') summary.append(el('span', 'amount', money(data, 'gross_amount')));
    else if (record.kind === 'checkoutSessions')
      summary.append(el('span', 'amount', money(data, 'amount')), el('span', 'description', data.description));
    else if (record.kind === 'payouts') summary.append(el('span', 'amount', money(data, 'amount')));
    else summary.append(el('span', 'title', data.title), el('span', 'amount', money(data, 'amount')));
    summary.append(el('span', 'status badge', data.status));
    if (data.failure_reason) summary.append(el('span', 'failure-reason err', data.failure_reason));
    if (record.mode === 'live') summary.append(el('span', 'badge live', 'live'));
    if (record.kind === 'payments' && data.status === 'pending') {
      summary.append(button('Succeed', 'succeed', { uuid: record.key }), button('Fail', 'fail', { uuid: record.key }));
    }
    item.replaceChildren(summary, pre(data));
  }

  function showStatus(status: Status): void {
    byId('clock').textContent = new Date(status.now).toLocaleString();
    byId('next-attempt').textContent = status.nextAttemptAt ? new Date(status.nextAttemptAt).toLocaleString() : 'none';
    byId('dropping').textContent = status.droppingNext > 0 ? `${status.droppingNext} to be lost` : '';
    (byId('drop') as HTMLButtonElement).disabled = !status.webhooks;
    (byId('advance') as HTMLButtonElement).disabled = !status.webhooks || status.nextAttemptAt === null;
  }

  byId('drop').addEventListener('click', () => {
    const count = Number((byId('drop-count') as HTMLInputElement).value);
    void act('drop', { count }, byId('drop') as HTMLButtonElement);
  });
  byId('advance').addEventListener('click', () => void act('advance', {}, byId('advance') as HTMLButtonElement));

  const source = new EventSource(`${BASE}/events`);
  const read = <T>(event: Event) => JSON.parse((event as MessageEvent<string>).data) as T;
  source.addEventListener('open', () => {
    byId('live').textContent = 'live';
  });
  source.addEventListener('error', () => {
    byId('live').textContent = 'reconnecting…';
  });
  source.addEventListener('hello', (event) => {
    const hello = read<{ requests: LoggedRequest[]; deliveries: Delivery[]; records: RecordView[]; status: Status }>(event);
    // A reconnection starts from the whole picture again.
    for (const [id, items] of lists) {
      byId(id).replaceChildren();
      items.clear();
    }
    for (const entry of hello.requests) showRequest(entry);
    for (const delivery of [...hello.deliveries].reverse()) showDelivery(delivery);
    for (const record of [...hello.records].reverse()) showRecord(record);
    showStatus(hello.status);
  });
  source.addEventListener('request', (event) => showRequest(read<LoggedRequest>(event)));
  source.addEventListener('deliveries', (event) => {
    for (const delivery of read<Delivery[]>(event).reverse()) showDelivery(delivery);
  });
  source.addEventListener('records', (event) => {
    for (const record of read<RecordView[]>(event).reverse()) showRecord(record);
  });
  source.addEventListener('status', (event) => showStatus(read<Status>(event)));
}
