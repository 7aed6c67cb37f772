/** Shared pieces of the bulk payout tests: rows, a mock with money in its wallet, counting payouts. */
import { PaymentsClient, type Payout, type PayoutCreateParams } from 'payments-sdk';
import type { Telemetry } from 'payments-sdk/opentelemetry';
import { createMockService, type MockService, type MockServiceOptions } from 'payments-sdk/testing';
import type { Store } from '../../src/stores/store.js';

/** Row `i`: its amount (1000 + i) identifies it among the mock's payouts. */
export function row(i: number, overrides: Record<string, unknown> = {}): PayoutCreateParams & { reference: string } {
  return {
    amount: 1000 + i,
    currency: 'XOF',
    destination: { type: 'mobile_money', country: 'SEN', provider: 'orange', phone: '221771234567' },
    reference: `emp-${i}`,
    ...overrides,
  };
}

export function rows(n: number): Array<PayoutCreateParams & { reference: string }> {
  return Array.from({ length: n }, (_, i) => row(i));
}

/** A mock whose live key can pay out (payouts need a live key with approved KYC: docs/service.md "Endpoints"), with a large XOF wallet. */
export function payoutMock(options: MockServiceOptions = {}): MockService {
  const mock = createMockService(options);
  mock.seed({ wallets: [{ currency: 'XOF', balance: 1_000_000_000 }] }, { apiKey: mock.liveApiKey });
  return mock;
}

/** A client on the mock's live key, through `mock.fetch` (or a real URL). */
export function liveClient(
  mock: MockService,
  options: { baseUrl?: string; maxRetries?: number; timeout?: number; telemetry?: Telemetry } = {},
): PaymentsClient {
  return new PaymentsClient({
    ...(options.telemetry ? { telemetry: options.telemetry } : {}),
    apiKey: mock.liveApiKey as string,
    baseUrl: options.baseUrl ?? mock.baseUrl,
    ...(options.baseUrl ? {} : { fetch: mock.fetch }),
    maxRetries: options.maxRetries ?? 2,
    timeout: options.timeout ?? 5_000,
    retryBackoff: { initialMs: 1, maxMs: 5 },
  });
}

/** Every payout the mock holds for the live key, read through the API (all pages). */
export async function allPayouts(client: PaymentsClient): Promise<Payout[]> {
  return client.payouts.list({ per_page: 100 }).toArray({ limit: 1_000_000 });
}

/** Payouts per row index (from the amount): duplicates show as counts above 1. */
export function countByRow(payouts: Payout[]): Map<number, number> {
  const counts = new Map<number, number>();
  for (const p of payouts) counts.set(Number(p.amount) - 1000, (counts.get(Number(p.amount) - 1000) ?? 0) + 1);
  return counts;
}

/** A store that hands every call to `inner`, and logs each (`claim <key> <state>`, `renew`, `settle`, `release`, `read`) in `log`. */
export function loggedStore(inner: Store, log: string[] = []): Store & { log: string[] } {
  return {
    kind: inner.kind,
    log,
    async claim(requests) {
      const answers = await inner.claim(requests);
      for (const [i, answer] of answers.entries()) log.push(`claim ${requests[i]?.key} ${answer.state}`);
      return answers;
    },
    async renew(key, owner, leaseMs) {
      const held = await inner.renew(key, owner, leaseMs);
      log.push(`renew ${key} ${held}`);
      return held;
    },
    async settle(key, owner, result) {
      const done = await inner.settle(key, owner, result);
      log.push(`settle ${key} ${String(result?.status)} ${done}`);
      return done;
    },
    async release(key, owner, note) {
      const done = await inner.release(key, owner, note);
      log.push(`release ${key} ${done}`);
      return done;
    },
    read: (keys) => inner.read(keys),
  };
}

/** `inner` seen `byMs` later by its clock: every record it answers is that much older (the service's 24 hours, without waiting them). */
export function agedStore(inner: Store, byMs: number): Store {
  const aged = <T extends { age: number } | undefined>(record: T): T => (record ? { ...record, age: record.age + byMs } : record);
  return {
    kind: inner.kind,
    claim: async (requests) => (await inner.claim(requests)).map((claim) => ({ ...claim, record: aged(claim.record) })),
    renew: (key, owner, leaseMs) => inner.renew(key, owner, leaseMs),
    settle: (key, owner, result) => inner.settle(key, owner, result),
    release: (key, owner, note) => inner.release(key, owner, note),
    read: async (keys) => (await inner.read(keys)).map(aged),
  };
}
