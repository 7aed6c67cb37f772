/**
 * The hosted checkout page of `payments-sdk mock` in a real browser: Debian's chromium, driven by
 * playwright-core through its `executablePath` (no browser download). It opens a session's
 * `checkout_url`, clicks Pay, and then the session is `completed`, its payment `succeeded`, and a
 * verified `payment.succeeded` reached a test endpoint.
 *
 * Without chromium this file is skipped with one line saying how to run it; under CI=true it fails.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PaymentsClient } from 'payments-sdk';
import { type BrowserContext, chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findExecutable } from '../helpers/executables.js';
import { CliProcess, WebhookEndpoint } from './support.js';

const CHROMIUM = findExecutable(['chromium', 'chromium-browser'], process.env.CHROMIUM_PATH);
const available = CHROMIUM !== undefined;
if (!available) {
  const where = 'no executable chromium (CHROMIUM_PATH, PATH, /usr/bin)';
  if (process.env.CI === 'true' || process.env.CI === '1')
    throw new Error(`chromium is required in CI for the hosted checkout test: ${where} (.ci/run installs it).`);
  console.warn(`skipped the browser test: ${where}; run \`apt-get install -y chromium\` (or set CHROMIUM_PATH) to run it.`);
}

describe.skipIf(!available)('hosted checkout page in chromium', () => {
  const endpoint = new WebhookEndpoint();
  const profile = mkdtempSync(join(tmpdir(), 'cli-chromium-'));
  let mock: CliProcess;
  let browser: BrowserContext;
  let client: PaymentsClient;

  beforeAll(async () => {
    const url = await endpoint.listen();
    mock = new CliProcess(['mock', '--port', '0', '--forward-to', url, '--json']);
    const ready = JSON.parse(await mock.waitForLine((l) => l.includes('"ready"'), 'ready line')) as Record<string, string>;
    endpoint.secret = ready.webhookSecret as string;
    client = new PaymentsClient({ apiKey: ready.sandboxKey as string, baseUrl: ready.baseUrl as string });
    // A fresh profile directory (playwright passes it as --user-data-dir).
    browser = await chromium.launchPersistentContext(profile, {
      executablePath: CHROMIUM,
      headless: true,
      args: [
        '--headless',
        '--no-sandbox',
        '--disable-gpu',
        '--disable-quic',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
      ],
    });
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await mock?.interrupt();
    await endpoint.close();
    rmSync(profile, { recursive: true, force: true });
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
