/** The mock's `rateLimit` option: 429 with `Retry-After` once the bucket is empty, and the request is not processed. */
import { MockServiceError } from 'payments-sdk/testing';
import { describe, expect, it } from 'vitest';
import { raw, setup } from '../helpers/mock-service.js';

const PAYOUT = {
  amount: 3000,
  currency: 'XOF',
  destination: { type: 'mobile_money', country: 'SEN', provider: 'wave', phone: '221781234567' },
};

describe('rateLimit', () => {
  it('answers 429 with Retry-After past `requests` per `perMs`, without doing the work; counts it; refills with time', async () => {
    const { mock } = setup({ rateLimit: { requests: 3, perMs: 300 } });
    mock.seed({ wallets: [{ currency: 'XOF', balance: 100_000 }] }, { apiKey: mock.liveApiKey });
    const statuses: number[] = [];
    for (let i = 0; i < 5; i++) {
      const answer = await raw(mock, 'POST', '/payouts', { body: PAYOUT, key: mock.liveApiKey });
      statuses.push(answer.status);
      if (answer.status === 429) {
        expect(answer.headers.get('retry-after')).toBe('1');
        expect(answer.body).toEqual({ message: 'Trop de requêtes.' });
      }
    }
    expect(statuses).toEqual([201, 201, 201, 429, 429]);
    expect(mock.throttledCount).toBe(2);
    expect(mock.requests.map((r) => r.status)).toEqual([201, 201, 201, 429, 429]);
    // Throttled requests did nothing: three payouts, three debits.
    await new Promise((resolve) => setTimeout(resolve, 150));
    const wallets = await raw(mock, 'GET', '/wallets', { key: mock.liveApiKey });
    expect(wallets.status).toBe(200);
    expect(wallets.body.data).toEqual([{ currency: 'XOF', balance: 91_000 }]);
    mock.reset();
    expect(mock.throttledCount).toBe(0);
  });

  it('is off by default, and refuses a bad option', async () => {
    const { mock } = setup();
    for (let i = 0; i < 50; i++) expect((await raw(mock, 'GET', '/payments')).status).toBe(200);
    expect(() => setup({ rateLimit: { requests: 0 } })).toThrow(MockServiceError);
    expect(() => setup({ rateLimit: { requests: 5, perMs: -1 } })).toThrow(/rateLimit/);
  });
});
