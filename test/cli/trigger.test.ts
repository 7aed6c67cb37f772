/**
 * `payments-sdk trigger <event>`, the built bin as a child process: each event reaches a real
 * endpoint on 127.0.0.1 that verifies it with the SDK; the exit code follows the endpoint's status;
 * the secret is never printed.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, WebhookEndpoint } from './support.js';

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
