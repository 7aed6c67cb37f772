/**
 * `payments-sdk mock`, the built bin as a child process on 127.0.0.1: what it prints, the SDK working
 * against it, deliveries forwarded (signed, verified by a real endpoint) as payments and payouts
 * settle, the hosted checkout page on its own origin, the seed file, usage errors and Ctrl-C.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PaymentsClient } from 'payments-sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CliProcess, runCli, WebhookEndpoint } from './support.js';

const dir = mkdtempSync(join(tmpdir(), 'cli-mock-'));

describe('payments-sdk mock', () => {
  const endpoint = new WebhookEndpoint();
  let mock: CliProcess;
  let ready: Record<string, string>;
  let sandbox: PaymentsClient;
  let live: PaymentsClient;

  beforeAll(async () => {
    const url = await endpoint.listen();
    const seed = join(dir, 'seed.json');
    writeFileSync(
      seed,
      JSON.stringify({
        payments: [{ gross_amount: 1000, currency: 'XOF', status: 'succeeded' }],
        live: { wallets: [{ currency: 'XOF', balance: 1_000_000 }] },
      }),
    );
    mock = new CliProcess(['mock', '--port', '0', '--settle-after', '0', '--forward-to', url, '--seed', seed, '--json']);
    ready = JSON.parse(await mock.waitForLine((l) => l.includes('"ready"'), 'ready line')) as Record<string, string>;
    endpoint.secret = ready.webhookSecret as string;
    sandbox = new PaymentsClient({ apiKey: ready.sandboxKey as string, baseUrl: ready.baseUrl as string });
    live = new PaymentsClient({ apiKey: ready.liveKey as string, baseUrl: ready.baseUrl as string });
  });

  afterAll(async () => {
    await mock?.interrupt();
    await endpoint.close();
  });

  it('prints the base URL, a sandbox key, a live key, the webhook secret and the checkout origin', () => {
    expect(ready.baseUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(ready.sandboxKey).toMatch(/^sk_test_/);
    expect(ready.liveKey).toMatch(/^sk_live_/);
    expect(ready.webhookSecret).toMatch(/^whsec_/);
    expect(ready.checkoutBaseUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(ready.checkoutBaseUrl).not.toBe(ready.baseUrl);
  });

  it('serves the seed, and a direct charge settles and is forwarded, signed, with the endpoint status printed', async () => {
    const seeded = await sandbox.payments.list().toArray();
    expect(seeded.map((p) => p.gross_amount)).toEqual([1000]);

    const payment = await sandbox.payments.create({
      amount: 5000,
      currency: 'XOF',
      country: 'SEN',
      provider: 'orange',
      phone: '221771234567',
    });
    expect(payment.status).toBe('pending');
    const delivered = await endpoint.waitFor((r) => r.type === 'payment.succeeded' && r.data.uuid === payment.uuid, 'payment.succeeded');
    const line = await mock.waitForLine((l) => l.includes(delivered.id), 'delivery line');
    expect(JSON.parse(line)).toMatchObject({ type: 'delivery', event: 'payment.succeeded', id: delivered.id, status: 200, ok: true });
    expect((await sandbox.payments.retrieve(payment.uuid)).status).toBe('succeeded');
  });

  it('moves a payout through its steps, forwarding one delivery per step', async () => {
    const payout = await live.payouts.create({
      amount: 20_000,
      currency: 'XOF',
      destination: { type: 'mobile_money', country: 'SEN', provider: 'wave', phone: '221781234567' },
    });
    // Deliveries are posted as each step happens, without waiting for the previous answer (as the
    // service may deliver out of order): wait for all three, then check there is one per step.
    for (const step of ['payout.approved', 'payout.processing', 'payout.completed']) {
      await endpoint.waitFor((r) => r.type === step && r.data.id === payout.id, step);
    }
    const steps = endpoint.received.filter((r) => r.data.id === payout.id).map((r) => r.type);
    expect(steps.sort()).toEqual(['payout.approved', 'payout.completed', 'payout.processing']);
    expect((await live.payouts.retrieve(String(payout.id))).status).toBe('completed');
  });

  it('serves a hosted checkout page at checkout_url, on its own origin; Pay completes the session and fires payment.succeeded', async () => {
    const session = await sandbox.checkoutSessions.create({ amount: 7500, currency: 'XOF', description: '<script>alert(1)</script> Tea' });
    expect(new URL(session.checkout_url).origin).toBe(ready.checkoutBaseUrl);
    const page = await fetch(session.checkout_url);
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain('>Pay</button>');
    expect(html).toContain('>Cancel</button>');
    expect(html).not.toContain('<script>');
    const action = /action="([^"]+\/pay)"/.exec(html)?.[1] as string;
    const paid = await fetch(new URL(action, session.checkout_url), { method: 'POST', redirect: 'manual' });
    expect(paid.status).toBe(303);
    expect((await sandbox.checkoutSessions.retrieve(session.reference)).status).toBe('completed');
    const payment = await sandbox.checkoutSessions.findPayment(session.reference);
    expect(payment?.status).toBe('succeeded');
    await endpoint.waitFor((r) => r.type === 'payment.succeeded' && r.data.checkout_session === session.reference, 'the session payment');
  });

  it('Fail on the hosted page fails the payment with the failure_reason chosen: payment.failed, the session stays open', async () => {
    const session = await sandbox.checkoutSessions.create({ amount: 3300, currency: 'XOF' });
    const failed = await fetch(`${session.checkout_url}/fail`, {
      method: 'POST',
      body: new URLSearchParams({ failure_reason: 'expired' }),
      redirect: 'manual',
    });
    expect(failed.status).toBe(303);
    expect(failed.headers.get('location')).toMatch(/\?failed=expired$/);
    const payment = await sandbox.checkoutSessions.findPayment(session.reference);
    expect(payment).toMatchObject({ status: 'failed', failure_reason: 'expired' });
    const delivered = await endpoint.waitFor(
      (r) => r.type === 'payment.failed' && r.data.checkout_session === session.reference,
      'payment.failed',
    );
    expect(delivered.data.failure_reason).toBe('expired');
    const empty = await fetch(`${session.checkout_url}/fail`, { method: 'POST', body: new URLSearchParams({ failure_reason: ' ' }) });
    expect(empty.status).toBe(422);
  });

  it('Cancel on the hosted page cancels the session and redirects to cancel_url', async () => {
    const session = await sandbox.checkoutSessions.create({ amount: 100, currency: 'XOF', cancel_url: 'http://127.0.0.1:9/cancelled' });
    const cancelled = await fetch(`${session.checkout_url}/cancel`, { method: 'POST', redirect: 'manual' });
    expect(cancelled.status).toBe(303);
    expect(cancelled.headers.get('location')).toBe('http://127.0.0.1:9/cancelled');
    expect((await sandbox.checkoutSessions.retrieve(session.reference)).status).toBe('cancelled');
    const again = await fetch(`${session.checkout_url}/pay`, { method: 'POST', redirect: 'manual' });
    expect(again.status).toBe(409);
  });
});

describe('payments-sdk mock, errors and stop', () => {
  it('refuses a --forward-to that is not on the loopback interface (exit 2, one line)', async () => {
    const result = await runCli(['mock', '--port', '0', '--forward-to', 'https://example.com/hook']);
    expect(result.code).toBe(2);
    expect(result.stderr.trim().split('\n')).toEqual([expect.stringContaining('--forward-to must be an http(s) URL on 127.0.0.1')]);
  });

  it('refuses a seed file that is not JSON (exit 3) and a bad port (exit 2)', async () => {
    const bad = join(dir, 'bad.json');
    writeFileSync(bad, '{ nope');
    const seeded = await runCli(['mock', '--port', '0', '--seed', bad]);
    expect(seeded.code).toBe(3);
    expect(seeded.stderr).toMatch(/^error: the seed file .* is not a JSON seed/);
    writeFileSync(bad, 'ami@example.sn');
    const quoted = await runCli(['mock', '--port', '0', '--seed', bad]);
    expect(quoted.code).toBe(3);
    expect(quoted.stderr).toMatch(/^error: the seed file .* is not a JSON seed: /);
    // The reason, never the text: a seed may hold customers' phones.
    expect(quoted.stderr).not.toContain('ami@');
    const port = await runCli(['mock', '--port', 'eighty']);
    expect(port.code).toBe(2);
    expect(port.stderr).toContain('--port must be an integer');
  });

  it('stops on Ctrl-C with exit 0', async () => {
    const mock = new CliProcess(['mock', '--port', '0']);
    await mock.waitForLine((l) => l.startsWith('# Ctrl-C to stop.'), 'banner');
    expect(mock.lines.join('\n')).toMatch(/^export PAYMENTS_WEBHOOK_SECRET=whsec_/m);
    expect(await mock.interrupt()).toBe(0);
  });
});

describe('payments-sdk mock, what it prints', () => {
  it('prints export NAME=value lines that a shell runs as they are; the live key is PAYMENTS_LIVE_API_KEY; the SDK works with them', async () => {
    const mock = new CliProcess(['mock', '--port', '0']);
    try {
      await mock.waitForLine((l) => l.startsWith('# Ctrl-C to stop.'), 'banner');
      const banner = mock.lines.join('\n');
      expect(mock.lines.every((l) => l === '' || l.startsWith('# ') || /^export [A-Z_]+=\S+$/.test(l))).toBe(true);
      expect(mock.lines.filter((l) => l.startsWith('export ')).map((l) => l.slice(7, l.indexOf('=')))).toEqual([
        'PAYMENTS_BASE_URL',
        'PAYMENTS_API_KEY',
        'PAYMENTS_LIVE_API_KEY',
        'PAYMENTS_WEBHOOK_SECRET',
      ]);
      // The whole banner, pasted into sh -e as it is, then the variables read back.
      const shell = spawnSync('sh', ['-e', '-c', `${banner}\nenv`], { encoding: 'utf8', env: { PATH: process.env.PATH } });
      expect(shell.status).toBe(0);
      expect(shell.stderr).toBe('');
      const vars = Object.fromEntries(
        shell.stdout
          .split('\n')
          .filter((l) => l.startsWith('PAYMENTS_'))
          .map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]),
      );
      expect(vars.PAYMENTS_BASE_URL).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      expect(vars.PAYMENTS_API_KEY).toMatch(/^sk_test_/);
      expect(vars.PAYMENTS_LIVE_API_KEY).toMatch(/^sk_live_/);
      expect(vars.PAYMENTS_WEBHOOK_SECRET).toMatch(/^whsec_/);
      const sandbox = new PaymentsClient({ apiKey: vars.PAYMENTS_API_KEY, baseUrl: vars.PAYMENTS_BASE_URL });
      expect(await sandbox.payments.list().toArray()).toEqual([]);
      const live = new PaymentsClient({ apiKey: vars.PAYMENTS_LIVE_API_KEY, baseUrl: vars.PAYMENTS_BASE_URL });
      const payout = await live.payouts.create({
        amount: 1000,
        currency: 'XOF',
        destination: { type: 'mobile_money', country: 'SEN', provider: 'wave', phone: '221781234567' },
      });
      expect(payout.status).toBe('pending_approval');
    } finally {
      await mock.interrupt();
    }
  });

  it('--json prints one JSON line with the same variables under env', async () => {
    const mock = new CliProcess(['mock', '--port', '0', '--json']);
    try {
      const line = await mock.waitForLine((l) => l.includes('"ready"'), 'ready line');
      expect(mock.lines).toEqual([line]);
      const ready = JSON.parse(line) as { env: Record<string, string>; sandboxKey: string; liveKey: string; baseUrl: string };
      expect(ready.env).toEqual({
        PAYMENTS_BASE_URL: ready.baseUrl,
        PAYMENTS_API_KEY: ready.sandboxKey,
        PAYMENTS_LIVE_API_KEY: ready.liveKey,
        PAYMENTS_WEBHOOK_SECRET: expect.stringMatching(/^whsec_/),
      });
    } finally {
      await mock.interrupt();
    }
  });
});
