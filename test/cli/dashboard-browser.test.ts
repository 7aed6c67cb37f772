/**
 * The dashboard of `payments-sdk mock` in a real chromium, against the built bin and a real webhook
 * endpoint on 127.0.0.1: a payment made through the SDK appears without a reload; Fail on it sends
 * `payment.failed` and the attempt appears; Resend posts the same event again; a dropped delivery
 * shows as dropped; a value holding markup shows as text and runs nothing.
 *
 * Without chromium this file is skipped with one line saying how to run it; under CI=true it fails.
 */
import { PaymentsClient } from 'payments-sdk';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromiumAvailable, launchChromium } from './chromium.js';
import { CliProcess, WebhookEndpoint } from './support.js';

const available = chromiumAvailable('the dashboard browser test');
const CHARGE = { amount: 5000, currency: 'XOF', country: 'SEN', provider: 'orange', phone: '221771234567' } as const;

describe.skipIf(!available)('the mock dashboard in chromium', () => {
  const endpoint = new WebhookEndpoint();
  let mock: CliProcess;
  let ready: Record<string, string>;
  let browser: BrowserContext;
  let closeBrowser: (() => Promise<void>) | undefined;
  let client: PaymentsClient;
  let page: Page;
  const pageErrors: string[] = [];

  beforeAll(async () => {
    const url = await endpoint.listen();
    // Payments stay pending (an hour before they settle on their own): the page decides them.
    mock = new CliProcess(['mock', '--port', '0', '--settle-after', '3600000', '--forward-to', url, '--json']);
    ready = JSON.parse(await mock.waitForLine((l) => l.includes('"ready"'), 'ready line')) as Record<string, string>;
    endpoint.secret = ready.webhookSecret as string;
    client = new PaymentsClient({ apiKey: ready.sandboxKey as string, baseUrl: ready.baseUrl as string });
    ({ browser, close: closeBrowser } = await launchChromium());
    page = await browser.newPage();
    page.on('pageerror', (error) => pageErrors.push(String(error)));
    page.on('console', (message) => {
      if (message.type() === 'error') pageErrors.push(message.text());
    });
    await page.goto(`${ready.baseUrl}/`);
    await page.locator('#live', { hasText: 'live' }).waitFor();
  }, 60_000);

  afterAll(async () => {
    await closeBrowser?.();
    await mock?.interrupt();
    await endpoint.close();
  });

  const payment = (uuid: string) => page.locator(`#payments details[data-key="${uuid}"]`);
  const delivery = (id: string) => page.locator(`#deliveries details[data-key="${id}"]`);

  it('shows the keys cut short, never whole', async () => {
    const html = await page.content();
    for (const secret of [ready.sandboxKey, ready.liveKey, ready.webhookSecret]) expect(html).not.toContain(secret);
    expect(await page.locator('#sandbox-key').textContent()).toBe(`sk_test_mock_…${ready.sandboxKey?.slice(-4)}`);
    expect(await page.locator('#webhook-secret').textContent()).toMatch(/^whsec_mock_…\w{4}$/);
  });

  it('a payment made through the SDK appears without a reload, with its request; Fail sends payment.failed and its attempt appears', async () => {
    const made = await client.payments.create(CHARGE);
    await payment(made.uuid).locator('.status', { hasText: 'pending' }).waitFor();
    // Its request, with the Idempotency-Key the SDK sent, and a copy-as-curl that names the key's variable only.
    const request = page.locator('#requests details.request', { hasText: 'POST' }).first();
    await request.waitFor();
    expect(await request.locator('.path').textContent()).toBe('/api/v1/payments');
    expect(await request.locator('.status').textContent()).toBe('201');
    await request.locator('summary').click();
    const curl = await request.locator('.curl').textContent();
    expect(curl).toContain('"Authorization: Bearer $PAYMENTS_API_KEY"');
    expect(curl).not.toContain(ready.sandboxKey);

    await payment(made.uuid).getByRole('button', { name: 'Fail' }).click();
    const failed = await endpoint.waitFor((r) => r.type === 'payment.failed' && r.data.uuid === made.uuid, 'payment.failed');
    await payment(made.uuid).locator('.status', { hasText: 'failed' }).waitFor();
    await delivery(failed.id).locator('.attempt', { hasText: '#1 200' }).waitFor();
    expect(await delivery(failed.id).locator('.type').textContent()).toBe('payment.failed');
    expect(await payment(made.uuid).getByRole('button', { name: 'Fail' }).count()).toBe(0);

    // Resend: the endpoint gets the same event id a second time, and the page shows the second attempt.
    await delivery(failed.id).getByRole('button', { name: 'Resend' }).click();
    await delivery(failed.id).locator('.attempt', { hasText: '#2 200' }).waitFor();
    expect(endpoint.received.filter((r) => r.id === failed.id)).toHaveLength(2);
  });

  it('Drop loses the next delivery: Succeed on a payment gives a delivery marked dropped, which never reaches the endpoint, nor on Advance', async () => {
    const made = await client.payments.create(CHARGE);
    await page.locator('#drop-count').fill('1');
    await page.getByRole('button', { name: 'Drop', exact: true }).click();
    await page.locator('#dropping', { hasText: '1 to be lost' }).waitFor();
    await payment(made.uuid).getByRole('button', { name: 'Succeed' }).click();
    await payment(made.uuid).locator('.status', { hasText: 'succeeded' }).waitFor();
    const dropped = page.locator('#deliveries details', { has: page.locator('.badge.dropped') });
    await dropped.waitFor();
    expect(await dropped.locator('.type').textContent()).toBe('payment.succeeded');
    const id = await dropped.getAttribute('data-key');
    expect(await dropped.locator('.attempt').first().textContent()).toMatch(/^#1 lost /);
    expect(endpoint.received.some((r) => r.id === id)).toBe(false);
    await expect.poll(() => page.locator('#dropping').textContent()).toBe('');

    // Advance: the clock jumps to the retry a minute on, which is lost as well and shows on the page.
    await dropped.locator('.next').waitFor();
    await page.getByRole('button', { name: 'Advance to next attempt' }).click();
    await dropped.locator('.attempt', { hasText: /^#2 lost / }).waitFor();
    expect(endpoint.received.some((r) => r.id === id)).toBe(false);
  });

  it('a value holding markup shows as text and runs nothing', async () => {
    const markup = '<img src=x onerror="window.__xss=1"><script>window.__xss=2</script>';
    const session = await client.checkoutSessions.create({ amount: 1500, currency: 'XOF', description: markup });
    const line = page.locator(`#checkoutSessions details[data-key="${session.reference}"]`);
    await line.locator('.description').waitFor();
    expect(await line.locator('.description').textContent()).toBe(markup);
    expect(await page.locator('main img, main script').count()).toBe(0);
    expect(await page.evaluate(() => (window as { __xss?: unknown }).__xss)).toBeUndefined();
    expect(pageErrors).toEqual([]);
  });
});
