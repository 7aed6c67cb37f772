/**
 * The dashboard of `payments-sdk mock` over HTTP, against the built bin on 127.0.0.1: the page and
 * its headers (a strict CSP, no key whole), the event stream, the action routes (same-origin JSON
 * POSTs only, clear errors on bad input) and their effect at a real webhook endpoint; and `--seed`,
 * which keeps the keys and webhook secret across restarts.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PaymentsClient } from 'payments-sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CliProcess, runCli, WebhookEndpoint } from './support.js';

const dir = mkdtempSync(join(tmpdir(), 'cli-dashboard-'));
const CHARGE = { amount: 5000, currency: 'XOF', country: 'SEN', provider: 'orange', phone: '221771234567' } as const;

/** The server-sent events of the dashboard's stream, read as they come; `next` waits (10 s at most) for one that passes `test`. */
async function openEvents(baseUrl: string) {
  const controller = new AbortController();
  const response = await fetch(`${baseUrl}/_mock/dashboard/events`, { signal: controller.signal });
  const events: Array<{ event: string; data: unknown }> = [];
  let text = '';
  const reading = (async () => {
    const decoder = new TextDecoder();
    for await (const chunk of response.body as AsyncIterable<Uint8Array>) {
      text += decoder.decode(chunk, { stream: true });
      for (let end = text.indexOf('\n\n'); end >= 0; end = text.indexOf('\n\n')) {
        const block = text.slice(0, end);
        text = text.slice(end + 2);
        const event = /^event: (.+)$/m.exec(block)?.[1];
        const data = /^data: (.+)$/m.exec(block)?.[1];
        if (event && data) events.push({ event, data: JSON.parse(data) });
      }
    }
  })().catch(() => undefined);
  return {
    response,
    events,
    /** Every event so far, as text. */
    raw: () => events.map((e) => JSON.stringify(e)).join('\n'),
    async next<T>(test: (event: string, data: T) => boolean, what: string): Promise<T> {
      const deadline = Date.now() + 10_000;
      for (;;) {
        const found = events.find((e) => test(e.event, e.data as T));
        if (found) return found.data as T;
        if (Date.now() > deadline)
          throw new Error(`no ${what} on the event stream within 10 s; got ${events.map((e) => e.event).join(', ')}`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    },
    async close() {
      controller.abort();
      await reading;
    },
  };
}

type Delivery = {
  id: string;
  type: string;
  dropped: boolean;
  delivered: boolean;
  attempts: Array<{ number: number; status: number | null; lost: boolean }>;
};
type Request = {
  method: string;
  path: string;
  status: number;
  idempotencyKey: string | null;
  replayed: boolean;
  error: unknown;
  curl: string;
};
type RecordView = { kind: string; key: string; data: { status?: string } };

describe('payments-sdk mock dashboard over HTTP', () => {
  const endpoint = new WebhookEndpoint();
  let mock: CliProcess;
  let ready: Record<string, string>;
  let base: string;
  let client: PaymentsClient;
  const secrets = () => [ready.sandboxKey, ready.liveKey, ready.webhookSecret] as string[];

  /** POSTs an action as the page does (same origin, JSON). */
  const act = (name: string, body: unknown, headers: Record<string, string> = {}) =>
    fetch(`${base}/_mock/dashboard/actions/${name}`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Origin: base, 'Sec-Fetch-Site': 'same-origin', ...headers },
      body: typeof body === 'string' ? body : JSON.stringify(body),
    });

  beforeAll(async () => {
    const url = await endpoint.listen();
    mock = new CliProcess(['mock', '--port', '0', '--settle-after', '3600000', '--forward-to', url, '--json']);
    ready = JSON.parse(await mock.waitForLine((l) => l.includes('"ready"'), 'ready line')) as Record<string, string>;
    endpoint.secret = ready.webhookSecret as string;
    base = ready.baseUrl as string;
    client = new PaymentsClient({ apiKey: ready.sandboxKey as string, baseUrl: base, maxRetries: 0 });
  });

  afterAll(async () => {
    await mock?.interrupt();
    await endpoint.close();
  });

  it('serves the page at the root under a strict CSP, its script and style sheet as files, and no key whole', async () => {
    const page = await fetch(`${base}/`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
    const csp = page.headers.get('content-security-policy') ?? '';
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("script-src 'self'");
    expect(csp).not.toContain('unsafe-inline');
    expect(csp).toContain("frame-ancestors 'none'");
    expect(page.headers.get('x-content-type-options')).toBe('nosniff');
    const html = await page.text();
    expect(html).toContain('<script src="/_mock/dashboard/app.js" defer></script>');
    // No inline script: the only <script> is the one loading app.js.
    expect(html.match(/<script/g)).toHaveLength(1);
    expect(html).toContain(`sk_test_mock_…${ready.sandboxKey?.slice(-4)}`);
    const script = await fetch(`${base}/_mock/dashboard/app.js`);
    expect(script.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    const js = await script.text();
    expect(js).not.toContain('innerHTML');
    const css = await fetch(`${base}/_mock/dashboard/app.css`);
    expect(css.headers.get('content-type')).toBe('text/css; charset=utf-8');
    // A few KB, served from the package.
    expect(html.length + js.length + (await css.text()).length).toBeLessThan(24_000);
    for (const text of [html, js]) for (const secret of secrets()) expect(text).not.toContain(secret);
    expect((await fetch(`${base}/`, { method: 'POST' })).status).toBe(405);
    expect((await fetch(`${base}/_mock/dashboard/nothing`)).status).toBe(404);
  });

  it('answers only under a loopback Host', async () => {
    const { request } = await import('node:http');
    const status = await new Promise<number>((resolve, reject) => {
      const req = request(`${base}/`, { headers: { Host: 'attacker.example:80' } }, (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      });
      req.on('error', reject);
      req.end();
    });
    expect(status).toBe(421);
  });

  it('streams requests (idempotency key, replay, refusal body, curl without the key) and records as they change', async () => {
    const events = await openEvents(base);
    try {
      expect(events.response.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
      await events.next((event) => event === 'hello', 'hello');
      const made = await client.payments.create(CHARGE, { idempotencyKey: 'order-1' });
      await client.payments.create(CHARGE, { idempotencyKey: 'order-1' });
      await expect(client.payments.retrieve('no-such-payment')).rejects.toThrow();
      const first = await events.next<Request>((e, r) => e === 'request' && r.idempotencyKey === 'order-1', 'the creation');
      expect(first).toMatchObject({ method: 'POST', path: '/api/v1/payments', status: 201, replayed: false, error: null });
      expect(first.curl).toContain(`-H 'Idempotency-Key: order-1'`);
      expect(first.curl).toContain('"Authorization: Bearer $PAYMENTS_API_KEY"');
      const replay = await events.next<Request>((e, r) => e === 'request' && r.replayed, 'the replay');
      expect(replay).toMatchObject({ status: 200, idempotencyKey: 'order-1' });
      const refused = await events.next<Request>((e, r) => e === 'request' && r.status === 404, 'the refusal');
      expect(refused).toMatchObject({ method: 'GET', path: '/api/v1/payments/no-such-payment', error: { message: expect.any(String) } });
      const records = await events.next<RecordView[]>((e, r) => e === 'records' && r.some((v) => v.key === made.uuid), 'the payment');
      expect(records.find((v) => v.key === made.uuid)).toMatchObject({ kind: 'payments', data: { status: 'pending' } });
      for (const secret of secrets()) expect(events.raw()).not.toContain(secret);
    } finally {
      await events.close();
    }
  });

  it('keeps the last 500 requests: older ones drop out of the history', async () => {
    const headers = { Authorization: `Bearer ${ready.sandboxKey}` };
    for (let batch = 0; batch < 11; batch += 1) {
      await Promise.all(Array.from({ length: 50 }, () => fetch(`${base}/api/v1/wallets`, { headers }).then((r) => r.arrayBuffer())));
    }
    const events = await openEvents(base);
    try {
      const hello = await events.next<{ requests: Array<{ id: number }> }>((event) => event === 'hello', 'hello');
      expect(hello.requests).toHaveLength(500);
      const ids = hello.requests.map((r) => r.id);
      expect(ids[0]).toBeGreaterThan(50);
      expect(ids.at(-1)).toBe((ids[0] as number) + 499);
    } finally {
      await events.close();
    }
  });

  it('refuses actions from another origin or site, other methods, other content types, and bad input, with a clear message', async () => {
    const made = await client.payments.create(CHARGE);
    const cases: Array<[Response, number, RegExp]> = [
      [await act('succeed', { uuid: made.uuid }, { Origin: 'http://evil.example' }), 403, /Cross-origin request refused/],
      [await act('succeed', { uuid: made.uuid }, { 'Sec-Fetch-Site': 'cross-site' }), 403, /Cross-site request refused/],
      [await fetch(`${base}/_mock/dashboard/actions/succeed`), 405, /POST/],
      [await act('succeed', `uuid=${made.uuid}`, { 'Content-Type': 'application/x-www-form-urlencoded' }), 415, /JSON/],
      [await act('succeed', '{ nope'), 400, /not JSON/],
      [await act('succeed', [made.uuid]), 400, /JSON object/],
      [await act('succeed', {}), 422, /uuid must be/],
      [await act('fail', { uuid: made.uuid, failure_reason: 'x'.repeat(101) }), 422, /failure_reason must be/],
      [await act('succeed', { uuid: 'no-such-payment' }), 409, /./],
      [await act('drop', { count: 0 }), 422, /count must be an integer from 1 to 1000/],
      [await act('resend', { id: 'evt_unknown' }), 409, /no delivery of event "evt_unknown"/],
      [await act('refund', {}), 404, /No action "refund"/],
    ];
    for (const [response, status, message] of cases) {
      expect(response.status).toBe(status);
      expect(((await response.json()) as { message: string }).message).toMatch(message);
    }
    expect(cases[2]?.[0].headers.get('allow')).toBe('POST');
    // None of them did anything.
    expect((await client.payments.retrieve(made.uuid)).status).toBe('pending');
  });

  it('fail, resend, drop and advance act on the mock and reach the endpoint; the stream shows each delivery', async () => {
    const events = await openEvents(base);
    try {
      const made = await client.payments.create(CHARGE);
      const failed = await act('fail', { uuid: made.uuid, failure_reason: 'insufficient_funds' });
      expect(failed.status).toBe(200);
      const { event } = (await failed.json()) as { event: string };
      const received = await endpoint.waitFor((r) => r.id === event, 'payment.failed');
      expect(received).toMatchObject({ type: 'payment.failed', data: { uuid: made.uuid, failure_reason: 'insufficient_funds' } });
      await events.next<Delivery[]>((e, d) => e === 'deliveries' && d.some((v) => v.id === event && v.delivered), 'the delivery');

      const resent = await act('resend', { id: event });
      expect(await resent.json()).toMatchObject({ attempt: { number: 2, status: 200, ok: true } });
      expect(endpoint.received.filter((r) => r.id === event)).toHaveLength(2);

      expect(await (await act('drop', { count: 1 })).json()).toMatchObject({ droppingNext: 1 });
      const other = await client.payments.create(CHARGE);
      const succeeded = (await (await act('succeed', { uuid: other.uuid })).json()) as { event: string };
      const dropped = await events.next<Delivery[]>(
        (e, d) => e === 'deliveries' && d.some((v) => v.id === succeeded.event),
        'the dropped delivery',
      );
      expect(dropped.find((v) => v.id === succeeded.event)).toMatchObject({
        dropped: true,
        attempts: [{ number: 1, status: null, lost: true }],
      });
      expect(endpoint.received.some((r) => r.id === succeeded.event)).toBe(false);

      // Advance: the clock jumps to the dropped event's retry, one minute on; that attempt is lost too.
      const advanced = (await (await act('advance', {})).json()) as { now: string };
      expect(Date.parse(advanced.now)).toBeGreaterThan(Date.now() + 50_000);
      const retried = await events.next<Delivery[]>(
        (e, d) => e === 'deliveries' && d.some((v) => v.id === succeeded.event && v.attempts.length === 2),
        'the second attempt',
      );
      expect(retried.find((v) => v.id === succeeded.event)?.attempts[1]).toMatchObject({ number: 2, lost: true });
    } finally {
      await events.close();
    }
  });
});

describe('payments-sdk mock --seed keeps the keys and webhook secret', () => {
  const exportLines = async (seed: string) => {
    const mock = new CliProcess(['mock', '--port', '0', '--seed', seed]);
    try {
      await mock.waitForLine((l) => l.startsWith('# Ctrl-C to stop.'), 'banner');
      return mock.lines.filter((l) => l.startsWith('export ') && !l.startsWith('export PAYMENTS_BASE_URL='));
    } finally {
      expect(await mock.interrupt()).toBe(0);
    }
  };

  it('a restart with the same seed file prints the same export lines, after the merchant edits its resources too', async () => {
    const seed = join(dir, 'seed.json');
    writeFileSync(seed, JSON.stringify({ payments: [{ gross_amount: 1000, status: 'succeeded' }] }));
    const first = await exportLines(seed);
    expect(first.map((l) => l.slice(0, l.indexOf('=')))).toEqual([
      'export PAYMENTS_API_KEY',
      'export PAYMENTS_LIVE_API_KEY',
      'export PAYMENTS_WEBHOOK_SECRET',
    ]);
    const written = JSON.parse(readFileSync(seed, 'utf8')) as { payments: unknown[]; credentials: Record<string, string> };
    expect(written.payments).toEqual([{ gross_amount: 1000, status: 'succeeded' }]);
    expect(first).toContain(`export PAYMENTS_API_KEY=${written.credentials.apiKey}`);
    expect(await exportLines(seed)).toEqual(first);

    written.payments.push({ gross_amount: 2500, status: 'pending' });
    writeFileSync(seed, JSON.stringify(written));
    expect(await exportLines(seed)).toEqual(first);
  });

  it('uses the credentials a seed file gives, and refuses malformed ones without printing them', async () => {
    const seed = join(dir, 'given.json');
    const credentials = { apiKey: 'sk_test_team_1', liveApiKey: 'sk_live_team_1', webhookSecret: 'whsec_team_1' };
    writeFileSync(seed, JSON.stringify({ credentials }));
    expect(await exportLines(seed)).toEqual([
      'export PAYMENTS_API_KEY=sk_test_team_1',
      'export PAYMENTS_LIVE_API_KEY=sk_live_team_1',
      'export PAYMENTS_WEBHOOK_SECRET=whsec_team_1',
    ]);
    // Complete already: the file is left as it was.
    expect(readFileSync(seed, 'utf8')).toBe(JSON.stringify({ credentials }));

    writeFileSync(seed, JSON.stringify({ credentials: { apiKey: 'sk_live_oops_secret' } }));
    const bad = await runCli(['mock', '--port', '0', '--seed', seed]);
    expect(bad.code).toBe(3);
    expect(bad.stderr).toMatch(/credentials\.apiKey must look like sk_test_…/);
    expect(bad.stderr).not.toContain('oops');
  });
});
