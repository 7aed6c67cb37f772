/**
 * `payments-sdk trigger <event>`, the built bin as a child process: each event reaches a real
 * endpoint on 127.0.0.1 that verifies it with the SDK; the exit code follows the endpoint's status;
 * the 10 s answer deadline and the answer cap; against a running `mock`, an event whose payment the
 * endpoint reads back; `--save` and `--replay` (as is, and `--tamper`ed); the secret never printed.
 */
import { once } from 'node:events';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PaymentsClient } from 'payments-sdk';
import { expressWebhook, verifyWebhook } from 'payments-sdk/webhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CliProcess, runCli, WebhookEndpoint } from './support.js';

const dir = mkdtempSync(join(tmpdir(), 'cli-trigger-'));

/** A `node:http` server on 127.0.0.1 with `handler`; resolves to its URL and a close function. */
async function serve(handler: (req: IncomingMessage, res: ServerResponse) => void): Promise<{ url: string; close: () => Promise<void> }> {
  const server: Server = createServer(handler);
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/webhooks`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

async function bodyOf(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

const SECRET = 'whsec_cli_trigger_test_secret_that_must_not_leak';

describe('payments-sdk trigger', () => {
  const endpoint = new WebhookEndpoint();
  let url: string;

  beforeAll(async () => {
    url = await endpoint.listen();
    endpoint.secret = SECRET;
  });
  afterAll(() => endpoint.close());

  it.each([
    ['payment.succeeded', { status: 'succeeded', failure_reason: null }],
    ['payment.failed', { status: 'failed', failure_reason: 'insufficient_funds' }],
    ['payout.completed', { status: 'completed' }],
    ['payout.rejected', { status: 'rejected' }],
  ])('sends a signed %s with realistic data; prints status and body; exit 0 on 2xx', async (event, expected) => {
    endpoint.status = 200;
    const result = await runCli(['trigger', event, '--forward-to', url], { PAYMENTS_WEBHOOK_SECRET: SECRET });
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const got = endpoint.received.at(-1);
    expect(got?.type).toBe(event);
    expect(got?.data).toMatchObject(expected);
    expect(got?.headers['x-service-event']).toBe(event);
    if (event.startsWith('payment.'))
      expect(got?.data).toMatchObject({ gross_amount: 15000, currency: 'XOF', mobile_money_country: 'SEN' });
    expect(result.stdout).toContain(`${event} ${got?.id} → 200 OK`);
    expect(result.stdout).toContain(`{"received":"${got?.id}"}`);
    expect(result.stdout + result.stderr).not.toContain(SECRET);
  });

  it('--json prints one object; a non-2xx answer exits 1', async () => {
    endpoint.status = 500;
    const result = await runCli(['trigger', 'payout.approved', '--forward-to', url, '--secret', SECRET, '--json']);
    expect(result.code).toBe(1);
    expect(JSON.parse(result.stdout)).toMatchObject({ event: 'payout.approved', status: 500, ok: false });
    endpoint.status = 200;
  });

  it('a wrong secret is refused by the endpoint (400): exit 1', async () => {
    const result = await runCli(['trigger', 'payment.succeeded', '--forward-to', url, '--secret', 'whsec_other']);
    expect(result.code).toBe(1);
    expect(result.stdout).toContain('→ 400');
  });

  it('usage errors are one line, exit 2: missing secret, unknown event, non-local URL; unreachable endpoint exits 4', async () => {
    const noSecret = await runCli(['trigger', 'payment.succeeded', '--forward-to', url]);
    expect(noSecret.code).toBe(2);
    expect(noSecret.stderr).toBe('error: missing the webhook signing secret: set PAYMENTS_WEBHOOK_SECRET or pass --secret.\n');
    const unknown = await runCli(['trigger', 'payment.refunded', '--forward-to', url, '--secret', SECRET]);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/^error: unknown event "payment.refunded": choose one of payment.succeeded, payment.failed, payout\./);
    const remote = await runCli(['trigger', 'payment.succeeded', '--forward-to', 'https://example.com/hook', '--secret', SECRET]);
    expect(remote.code).toBe(2);
    expect(remote.stderr.split('\n')).toHaveLength(2);
    const closed = await runCli(['trigger', 'payment.succeeded', '--forward-to', 'http://127.0.0.1:9/hook', '--secret', SECRET]);
    expect(closed.code).toBe(4);
    expect(closed.stderr).toMatch(/^error: could not reach http:\/\/127\.0\.0\.1:9\/hook/);
    expect(closed.stderr).not.toContain('    at ');
    const debug = await runCli(['trigger', 'payment.succeeded', '--forward-to', 'http://127.0.0.1:9/hook', '--secret', SECRET, '--debug']);
    expect(debug.stderr).toContain('    at ');
    expect(debug.stderr).not.toContain(SECRET);
  });

  it('--help works and lists the events', async () => {
    const result = await runCli(['trigger', '--help']);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('payout.completed');
    expect(result.stdout).toContain('Exit codes:');
  });
});

describe('payments-sdk trigger, as the service delivers', () => {
  it('an endpoint that never answers, and one that answers 200 after 12 s, fail at 10 s with a clear message (exit 1)', async () => {
    const silent = await serve(() => {});
    const slow = await serve((_req, res) => {
      setTimeout(() => res.writeHead(200).end('ok'), 12_000).unref();
    });
    try {
      const started = Date.now();
      const [never, late] = await Promise.all([
        runCli(['trigger', 'payment.succeeded', '--forward-to', silent.url, '--secret', SECRET]),
        runCli(['trigger', 'payment.succeeded', '--forward-to', slow.url, '--secret', SECRET]),
      ]);
      const elapsed = Date.now() - started;
      for (const result of [never, late]) {
        expect(result.code).toBe(1);
        expect(result.stderr).toMatch(
          /^error: http:\/\/127\.0\.0\.1:\d+\/webhooks did not answer within 10 s: the service counts such a delivery as failed/,
        );
        expect(result.stderr.split('\n')).toHaveLength(2);
      }
      expect(elapsed).toBeGreaterThanOrEqual(10_000);
      expect(elapsed).toBeLessThan(12_000);
    } finally {
      await Promise.all([silent.close(), slow.close()]);
    }
  }, 30_000);

  it('reads only the first 64 KB of an answer that never ends: a 200 is still a success', async () => {
    const endless = await serve((_req, res) => {
      res.writeHead(200, { 'Content-Type': 'text/plain' });
      const timer = setInterval(() => res.write('x'.repeat(16 * 1024)), 5);
      res.on('close', () => clearInterval(timer));
    });
    try {
      const started = Date.now();
      const result = await runCli(['trigger', 'payment.succeeded', '--forward-to', endless.url, '--secret', SECRET, '--json']);
      expect(result.code).toBe(0);
      expect(Date.now() - started).toBeLessThan(8_000);
      const line = JSON.parse(result.stdout) as { status: number; truncated: boolean; body: string };
      expect(line).toMatchObject({ status: 200, truncated: true });
      expect(line.body.length).toBe(64 * 1024);
    } finally {
      await endless.close();
    }
  }, 30_000);
});

describe('payments-sdk trigger against a running mock (--base-url)', () => {
  let mock: CliProcess;
  let ready: Record<string, string>;
  let merchant: { url: string; close: () => Promise<void> };
  const answered: Array<{ type: string; status: number }> = [];

  beforeAll(async () => {
    mock = new CliProcess(['mock', '--port', '0', '--json']);
    ready = JSON.parse(await mock.waitForLine((l) => l.includes('"ready"'), 'ready line')) as Record<string, string>;
    // A merchant endpoint as the README advises: verify, then read the object back before acting.
    merchant = await serve(async (req, res) => {
      const body = await bodyOf(req);
      let status = 500;
      try {
        const event = await verifyWebhook({ payload: body, headers: req.headers, secret: ready.webhookSecret as string });
        const data = event.data as { uuid?: string; id?: string | number; status?: string };
        if (event.type.startsWith('payment.')) {
          const client = new PaymentsClient({ apiKey: ready.sandboxKey as string, baseUrl: ready.baseUrl as string, maxRetries: 0 });
          const payment = await client.payments.retrieve(data.uuid as string);
          status = payment.status === data.status ? 200 : 409;
        } else {
          const client = new PaymentsClient({ apiKey: ready.liveKey as string, baseUrl: ready.baseUrl as string, maxRetries: 0 });
          const payout = await client.payouts.retrieve(String(data.id));
          status = payout.status === data.status ? 200 : 409;
        }
        answered.push({ type: event.type, status });
      } catch {
        status = 500;
      }
      res.writeHead(status).end(JSON.stringify({ status }));
    });
  });
  afterAll(async () => {
    await mock?.interrupt();
    await merchant?.close();
  });

  it.each(['payment.succeeded', 'payment.failed', 'payout.completed'])(
    '%s: the payment or payout exists on the mock, the endpoint reads it back and answers 200',
    async (event) => {
      const result = await runCli(['trigger', event, '--forward-to', merchant.url, '--base-url', ready.baseUrl as string], {
        PAYMENTS_API_KEY: ready.sandboxKey,
      });
      expect(result.stderr).toBe('');
      expect(result.code).toBe(0);
      expect(result.stdout).toMatch(new RegExp(`^${event.replace('.', '\\.')} evt_\\S+ → 200 OK`));
      expect(answered.at(-1)).toEqual({ type: event, status: 200 });
      expect(result.stdout + result.stderr).not.toContain(ready.sandboxKey as string);
    },
  );

  it('without --base-url the payment exists nowhere but in trigger: the same endpoint cannot read it back (exit 1)', async () => {
    const result = await runCli(['trigger', 'payment.succeeded', '--forward-to', merchant.url, '--secret', ready.webhookSecret as string]);
    expect(result.code).toBe(1);
    expect(result.stdout).toContain('→ 500');
  });

  it("refuses a key that is not the mock's, and a --base-url that is not a mock", async () => {
    const wrong = await runCli(['trigger', 'payment.succeeded', '--forward-to', merchant.url, '--base-url', ready.baseUrl as string], {
      PAYMENTS_API_KEY: 'sk_test_not_the_mocks',
    });
    expect(wrong.code).toBe(4);
    expect(wrong.stderr).toMatch(/^error: the mock refused to make payment\.succeeded: Unauthenticated/);
    expect(wrong.stderr).not.toContain('sk_test_not_the_mocks');
    const notMock = await serve((_req, res) => res.writeHead(404).end('{}'));
    try {
      const result = await runCli(
        ['trigger', 'payment.succeeded', '--forward-to', merchant.url, '--base-url', notMock.url.replace('/webhooks', '')],
        {
          PAYMENTS_API_KEY: ready.sandboxKey,
        },
      );
      expect(result.code).toBe(4);
      expect(result.stderr).toContain('is not a running `payments-sdk mock`');
    } finally {
      await notMock.close();
    }
  });
});

describe('payments-sdk trigger --save and --replay', () => {
  const handled: string[] = [];
  let guarded: { url: string; close: () => Promise<void> };
  let careless: { url: string; close: () => Promise<void> };
  const capture = join(dir, 'delivery.json');

  beforeAll(async () => {
    // An Express-style endpoint built with the SDK: verifies and deduplicates on the event id.
    const handler = expressWebhook({
      secret: SECRET,
      onEvent: async (event) => {
        handled.push(event.id);
      },
    });
    guarded = await serve((req, res) => handler(req, res));
    // One that verifies nothing.
    careless = await serve((req, res) => {
      req.resume();
      res.writeHead(200).end('ok');
    });
  });
  afterAll(async () => {
    await guarded?.close();
    await careless?.close();
  });

  it('--save writes the delivery sent (headers and raw body, no secret); --replay resends it as is: a duplicate, handled once', async () => {
    const first = await runCli(['trigger', 'payment.succeeded', '--forward-to', guarded.url, '--secret', SECRET, '--save', capture]);
    expect(first.code).toBe(0);
    const saved = JSON.parse(readFileSync(capture, 'utf8')) as { headers: Record<string, string>; body: string };
    expect(Object.keys(saved.headers).map((h) => h.toLowerCase())).toEqual(
      expect.arrayContaining(['x-service-signature', 'x-service-event', 'content-type']),
    );
    expect(readFileSync(capture, 'utf8')).not.toContain(SECRET);
    const id = (JSON.parse(saved.body) as { id: string }).id;
    expect(handled).toEqual([id]);

    // No secret is needed to replay: the captured signature goes as it is.
    const again = await runCli(['trigger', '--replay', capture, '--forward-to', guarded.url, '--json']);
    expect(again.code).toBe(0);
    expect(JSON.parse(again.stdout)).toMatchObject({ id, status: 200, replayed: capture });
    expect(handled).toEqual([id]);
  });

  it.each(['body', 'signature', 'event'])('--tamper %s: the SDK endpoint refuses it (400), exit 0', async (what) => {
    const result = await runCli(['trigger', '--replay', capture, '--forward-to', guarded.url, '--tamper', what]);
    expect(result.stdout).toContain('→ 400');
    expect(result.stdout).toContain(`Refused, as it should be: the endpoint rejects a delivery whose ${what} was altered.`);
    expect(result.code).toBe(0);
  });

  it('--tamper against an endpoint that verifies nothing: NOT refused, exit 1', async () => {
    const result = await runCli(['trigger', '--replay', capture, '--forward-to', careless.url, '--tamper', 'body']);
    expect(result.code).toBe(1);
    expect(result.stdout).toContain('NOT refused: the endpoint answered 200 to a delivery whose body was altered.');
  });

  it('a capture file that is not one is refused (exit 3), naming what is wrong; bad combinations are usage errors', async () => {
    const bad = join(dir, 'bad.json');
    writeFileSync(bad, JSON.stringify({ headers: { 'X-Service-Signature': 1 }, payload: {} }));
    const result = await runCli(['trigger', '--replay', bad, '--forward-to', guarded.url]);
    expect(result.code).toBe(3);
    expect(result.stderr).toBe(
      `error: ${bad} is not a captured delivery ({ "headers": {…}, "body": "…" }): "body" must be the raw body, as a string; header "X-Service-Signature" must be a string.\n`,
    );
    // A file that is not JSON: the reason, never the start of the text (a capture holds a customer's phone).
    const garbled = join(dir, 'garbled.json');
    writeFileSync(garbled, 'phone=221771234567');
    const unreadable = await runCli(['trigger', '--replay', garbled, '--forward-to', guarded.url]);
    expect(unreadable.code).toBe(3);
    expect(unreadable.stderr).toBe(`error: ${garbled} is not JSON: Unexpected token 'p' (not valid JSON)\n`);
    const both = await runCli(['trigger', 'payment.succeeded', '--replay', capture, '--forward-to', guarded.url]);
    expect(both.code).toBe(2);
    expect(both.stderr).toContain('give an event or --replay FILE, not both');
    const loose = await runCli(['trigger', 'payment.succeeded', '--tamper', 'body', '--forward-to', guarded.url, '--secret', SECRET]);
    expect(loose.code).toBe(2);
    expect(loose.stderr).toContain('--tamper alters a captured delivery: use it with --replay FILE');
  });
});
