/**
 * The hosted checkout page of `payments-sdk mock` in a real browser: Debian's chromium, driven by
 * playwright-core through its `executablePath` (no browser download). It opens a session's
 * `checkout_url`, clicks Pay, and then the session is `completed`, its payment `succeeded`, and a
 * verified `payment.succeeded` reached a test endpoint.
 *
 * Without chromium this file is skipped with one line saying how to run it; under CI=true it fails.
 */
import { PaymentsClient } from 'payments-sdk';
import type { BrowserContext } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromiumAvailable, launchChromium } from './chromium.js';
import { CliProcess, WebhookEndpoint } from './support.js';

const available = chromiumAvailable('the hosted checkout browser test');

describe.skipIf(!available)('hosted checkout page in chromium', () => {
  const endpoint = new WebhookEndpoint();
  let mock: CliProcess;
  let browser: BrowserContext;
  let closeBrowser: (() => Promise<void>) | undefined;
  let client: PaymentsClient;

  beforeAll(async () => {
    const url = await endpoint.listen();
    mock = new CliProcess(['mock', '--port', '0', '--forward-to', url, '--json']);
    const ready = JSON.parse(await mock.waitForLine((l) => l.includes('"ready"'), 'ready line')) as Record<string, string>;
    endpoint.secret = ready.webhookSecret as string;
    client = new PaymentsClient({ apiKey: ready.sandboxKey as string, baseUrl: ready.baseUrl as string });
    ({ browser, close: closeBrowser } = await launchChromium());
  }, 60_000);

  afterAll(async () => {
    await closeBrowser?.();
    await mock?.interrupt();
    await endpoint.close();
  });

  it('opens checkout_url, clicks Pay: session completed, payment succeeded, payment.succeeded delivered and verified', async () => {
    const session = await client.checkoutSessions.create({ amount: 12_500, currency: 'XOF', description: 'Two bags of coffee' });
    const page = await browser.newPage();
    await page.goto(session.checkout_url);
    expect(await page.locator('h1').textContent()).toBe('Two bags of coffee');
    expect(await page.locator('#session-status').textContent()).toBe('created');
    await Promise.all([
      page.waitForURL((u) => u.pathname === new URL(session.checkout_url).pathname && u.search === ''),
      page.getByRole('button', { name: 'Pay' }).click(),
    ]);
    expect(await page.locator('#session-status').textContent()).toBe('completed');

    expect((await client.checkoutSessions.retrieve(session.reference)).status).toBe('completed');
    const payment = await client.checkoutSessions.findPayment(session.reference);
    expect(payment?.status).toBe('succeeded');
    const delivered = await endpoint.waitFor(
      (r) => r.type === 'payment.succeeded' && r.data.checkout_session === session.reference,
      'payment.succeeded',
    );
    expect(delivered.data.uuid).toBe(payment?.uuid);
    await page.close();
  });

  it('opens checkout_url, types a failure_reason and clicks Fail: payment failed with that reason, payment.failed delivered', async () => {
    const session = await client.checkoutSessions.create({ amount: 4_000, currency: 'XOF', description: 'One bag of tea' });
    const page = await browser.newPage();
    await page.goto(session.checkout_url);
    await page.getByLabel('failure_reason').fill('insufficient_funds_in_wallet');
    await Promise.all([
      page.waitForURL((u) => u.searchParams.has('failed')),
      page.getByRole('button', { name: 'Fail', exact: true }).click(),
    ]);
    expect(await page.locator('#failure-reason').textContent()).toBe('insufficient_funds_in_wallet');

    const payment = await client.checkoutSessions.findPayment(session.reference);
    expect(payment).toMatchObject({ status: 'failed', failure_reason: 'insufficient_funds_in_wallet' });
    const delivered = await endpoint.waitFor(
      (r) => r.type === 'payment.failed' && r.data.checkout_session === session.reference,
      'payment.failed',
    );
    expect(delivered.data).toMatchObject({ uuid: payment?.uuid, failure_reason: 'insufficient_funds_in_wallet' });
    // The session is still open: the customer can pay after all.
    expect(await page.getByRole('button', { name: 'Pay', exact: true }).count()).toBe(1);
    await page.close();
  });
});
