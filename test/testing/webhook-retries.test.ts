/**
 * The testing kit delivers like the service when given `webhooks.endpoint`: at once, then retried
 * on the mock's clock (1 min, 10 min, 30 min, 2 h apart) until a 2xx within the time limit, 5
 * attempts at most, the same event on each; `dropRate` loses a seeded share of the events, every
 * attempt of them.
 */
import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { PaymentsClient } from 'payments-sdk';
import { createMockService, type MockService, MockServiceError, type MockServiceOptions } from 'payments-sdk/testing';
import { verifyWebhook } from 'payments-sdk/webhooks';
import { describe, expect, it } from 'vitest';
import { MOCK_DELIVERY_RETRY_DELAYS_MS } from '../../src/testing/webhook-schedule.js';

const T0 = Date.parse('2026-06-01T08:00:00Z');

/** A handler endpoint that verifies each delivery and answers what `answer(n)` says for its n-th request. */
function recordingEndpoint(answer: (n: number) => number | Promise<number>) {
  const received: Array<{ id: string; body: string; signature: string | null }> = [];
  let secret = '';
  const handler = async (request: Request) => {
    const body = await request.text();
    const event = await verifyWebhook({ payload: body, headers: request.headers, secret });
    received.push({ id: event.id, body, signature: request.headers.get('x-service-signature') });
    return new Response(null, { status: await answer(received.length) });
  };
  return { received, handler, setSecret: (s: string) => (secret = s) };
}

async function mockWith(webhooks: MockServiceOptions['webhooks'], extra: MockServiceOptions = {}, setSecret?: (s: string) => void) {
  const mock = createMockService({ now: T0, webhooks, ...extra });
  setSecret?.(mock.webhookSecret);
  const client = new PaymentsClient({ apiKey: mock.apiKey, baseUrl: mock.baseUrl, fetch: mock.fetch, maxRetries: 0 });
  return { mock, client };
}

async function pendingPayment(client: PaymentsClient) {
  return client.payments.create({ amount: 5000, currency: 'XOF', country: 'SEN', provider: 'orange', phone: '221771234567' });
}

async function advance(mock: MockService, ms: number) {
  mock.advance(ms);
  await mock.deliveriesSettled();
}

describe('mock deliveries retry on the mock clock', () => {
  it('an endpoint that keeps failing gets 5 attempts, 1 min, 10 min, 30 min and 2 h apart, the same event each time', async () => {
    const endpoint = recordingEndpoint(() => 500);
    const { mock, client } = await mockWith({ endpoint: endpoint.handler }, {}, endpoint.setSecret);
    const payment = await pendingPayment(client);
    const delivery = await mock.settlePayment(payment.uuid);
    // Posted at once: the action resolves after the first attempt.
    expect(delivery.attempts.map((a) => a.status)).toEqual([500]);
    expect(delivery.nextAttemptAt?.getTime()).toBe(T0 + 60_000);

    await advance(mock, 59_999);
    expect(endpoint.received).toHaveLength(1);
    const gaps = [60_000, 600_000, 1_800_000, 7_200_000];
    expect(MOCK_DELIVERY_RETRY_DELAYS_MS).toEqual(gaps);
    await advance(mock, 1);
    expect(endpoint.received).toHaveLength(2);
    for (const gap of gaps.slice(1)) {
      await advance(mock, gap - 1);
      const before = endpoint.received.length;
      await advance(mock, 1);
      expect(endpoint.received.length).toBe(before + 1);
    }
    await advance(mock, 48 * 3_600_000);

    expect(endpoint.received).toHaveLength(5);
    const times = delivery.attempts.map((a) => a.at.getTime() - T0);
    expect(times).toEqual([0, 60_000, 660_000, 2_460_000, 9_660_000]);
    expect(delivery.attempts.map((a) => a.number)).toEqual([1, 2, 3, 4, 5]);
    expect(delivery.attempts.every((a) => a.status === 500 && !a.ok && !a.lost)).toBe(true);
    expect(delivery.delivered).toBe(false);
    expect(delivery.dropped).toBe(false);
    expect(delivery.nextAttemptAt).toBeNull();
    // The same id, body and signature on every attempt.
    expect(new Set(endpoint.received.map((r) => r.id))).toEqual(new Set([delivery.event.id]));
    expect(new Set(endpoint.received.map((r) => r.body)).size).toBe(1);
    expect(new Set(endpoint.received.map((r) => r.signature)).size).toBe(1);
    expect(mock.deliveries).toEqual([delivery]);
  });

  it('a 2xx stops the retries; a 3xx or 4xx does not', async () => {
    const endpoint = recordingEndpoint((n) => [503, 302, 200][n - 1] ?? 500);
    const { mock, client } = await mockWith({ endpoint: endpoint.handler }, {}, endpoint.setSecret);
    const delivery = await mock.failPayment((await pendingPayment(client)).uuid);
    await advance(mock, 24 * 3_600_000);
    expect(delivery.attempts.map((a) => [a.status, a.ok])).toEqual([
      [503, false],
      [302, false],
      [200, true],
    ]);
    expect(delivery.delivered).toBe(true);
    expect(delivery.nextAttemptAt).toBeNull();
    expect(endpoint.received).toHaveLength(3);
  });

  it('a jump of the clock past several due times runs each of them, in order, with the same spacing', async () => {
    const endpoint = recordingEndpoint(() => 500);
    const { mock, client } = await mockWith({ endpoint: endpoint.handler }, {}, endpoint.setSecret);
    const delivery = await mock.settlePayment((await pendingPayment(client)).uuid);
    await advance(mock, 3 * 3_600_000);
    expect(delivery.attempts).toHaveLength(5);
    expect(endpoint.received).toHaveLength(5);
  });

  it('an answer later than timeoutMs counts as failed (the service waits 10 s)', async () => {
    let calls = 0;
    const endpoint = async () => {
      calls += 1;
      // The first attempt answers too late, the second at once.
      if (calls === 1) await new Promise((resolve) => setTimeout(resolve, 300));
      return new Response('ok');
    };
    const { mock, client } = await mockWith({ endpoint, timeoutMs: 50 });
    const delivery = await mock.settlePayment((await pendingPayment(client)).uuid);
    expect(delivery.attempts[0]).toMatchObject({ status: null, ok: false, error: 'timeout' });
    await advance(mock, 60_000);
    expect(delivery.attempts.map((a) => a.ok)).toEqual([false, true]);
  });

  it('a loopback URL endpoint gets real POSTs; a connection refused is a failed attempt', async () => {
    const bodies: string[] = [];
    let status = 503;
    const server = createServer((req, res) => {
      let body = '';
      req.setEncoding('utf8').on('data', (c: string) => (body += c));
      req.on('end', () => {
        bodies.push(body);
        res.writeHead(status).end();
      });
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`;
      const { mock, client } = await mockWith({ endpoint: url });
      const delivery = await mock.settlePayment((await pendingPayment(client)).uuid);
      status = 200;
      await advance(mock, 60_000);
      expect(delivery.attempts.map((a) => a.status)).toEqual([503, 200]);
      expect(bodies).toEqual([delivery.body, delivery.body]);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
    const refused = await mockWith({ endpoint: 'http://127.0.0.1:9/hooks' });
    const failed = await refused.mock.settlePayment((await pendingPayment(refused.client)).uuid);
    expect(failed.attempts[0]).toMatchObject({ status: null, ok: false, lost: false });
    expect(failed.attempts[0]?.error).toBeTruthy();
  });

  it('reset() forgets the retries still to come', async () => {
    const endpoint = recordingEndpoint(() => 500);
    const { mock, client } = await mockWith({ endpoint: endpoint.handler }, {}, endpoint.setSecret);
    const delivery = await mock.settlePayment((await pendingPayment(client)).uuid);
    mock.reset();
    await advance(mock, 24 * 3_600_000);
    expect(delivery.attempts).toHaveLength(1);
    expect(endpoint.received).toHaveLength(1);
  });

  it('on real time, a retry runs when it falls due without another advance()', async () => {
    const endpoint = recordingEndpoint((n) => (n === 1 ? 500 : 200));
    const mock = createMockService({ webhooks: { endpoint: endpoint.handler } });
    endpoint.setSecret(mock.webhookSecret);
    const client = new PaymentsClient({ apiKey: mock.apiKey, baseUrl: mock.baseUrl, fetch: mock.fetch, maxRetries: 0 });
    const delivery = await mock.settlePayment((await pendingPayment(client)).uuid);
    // 60 ms short of the retry: a timer runs it once real time catches up.
    mock.advance(60_000 - 60);
    expect(delivery.attempts).toHaveLength(1);
    const deadline = Date.now() + 5_000;
    while (delivery.attempts.length < 2 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10));
    expect(delivery.attempts.map((a) => a.status)).toEqual([500, 200]);
  });
});

describe('dropRate loses a seeded share of the events', () => {
  async function dropRun(dropRate: number, seed?: number, events = 200) {
    const endpoint = recordingEndpoint(() => 200);
    const { mock, client } = await mockWith({ endpoint: endpoint.handler, dropRate, seed }, {}, endpoint.setSecret);
    for (let i = 0; i < events; i++) await mock.settlePayment((await pendingPayment(client)).uuid);
    await advance(mock, 6 * 3_600_000);
    return { mock, endpoint };
  }

  it('a dropped event has every attempt lost and never reaches the endpoint; the others are delivered once', async () => {
    const { mock, endpoint } = await dropRun(0.3);
    const dropped = mock.deliveries.filter((d) => d.dropped);
    expect(dropped.length).toBeGreaterThan(40);
    expect(dropped.length).toBeLessThan(80);
    for (const d of dropped) {
      expect(d.attempts).toHaveLength(5);
      expect(d.attempts.every((a) => a.lost && a.status === null && a.error === 'lost')).toBe(true);
      expect(d.delivered).toBe(false);
    }
    const receivedIds = new Set(endpoint.received.map((r) => r.id));
    expect(endpoint.received).toHaveLength(200 - dropped.length);
    for (const d of mock.deliveries) expect(receivedIds.has(d.event.id)).toBe(!d.dropped);
  });

  it('the same seed loses the same events; another seed others; 0 none and 1 all', async () => {
    const pattern = async (rate: number, seed?: number) => (await dropRun(rate, seed, 40)).mock.deliveries.map((d) => d.dropped);
    const a = await pattern(0.3, 7);
    expect(await pattern(0.3, 7)).toEqual(a);
    expect(await pattern(0.3, 8)).not.toEqual(a);
    expect((await pattern(0)).some(Boolean)).toBe(false);
    expect((await pattern(1)).every(Boolean)).toBe(true);
  });

  it('bad webhooks options are refused at once, each named', () => {
    expect(() => createMockService({ webhooks: { endpoint: 'https://example.com/hooks', dropRate: 2 } })).toThrow(MockServiceError);
    try {
      createMockService({ webhooks: { endpoint: 'https://example.com/hooks', dropRate: 2, timeoutMs: -1 } });
    } catch (error) {
      expect((error as Error).message).toMatch(/example\.com/);
      expect((error as Error).message).toMatch(/dropRate/);
      expect((error as Error).message).toMatch(/timeoutMs/);
    }
  });

  it('without webhooks, deliveries are handed back as before: no attempt, nothing posted', async () => {
    const mock = createMockService({ now: T0 });
    const client = new PaymentsClient({ apiKey: mock.apiKey, baseUrl: mock.baseUrl, fetch: mock.fetch, maxRetries: 0 });
    const delivery = await mock.settlePayment((await pendingPayment(client)).uuid);
    expect(delivery).toMatchObject({ attempts: [], dropped: false, delivered: false, nextAttemptAt: null });
  });
});
