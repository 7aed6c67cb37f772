/** Shared pieces of the bulk payout tests: rows, a mock with money in its wallet, counting payouts. */
import { type BulkOutcome, PaymentsClient, type Payout, type PayoutCreateParams, type Telemetry } from 'payments-sdk';
import { createMockService, type MockService, type MockServiceOptions } from 'payments-sdk/testing';
import type { BulkClaimRequest } from '../../src/bulk/journal.js';

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

/** The journal tests' claim: row `emp-1` of batch `b` by runner `A`, at 1 000 000 ms, leased 150 ms; `over` changes any of it. */
export function claimRequest(over: Partial<BulkClaimRequest> = {}): BulkClaimRequest {
  return {
    batchId: 'b',
    rowKey: 'emp-1',
    idempotencyKey: 'bulk1_k',
    index: 1,
    owner: 'A',
    now: 1_000_000,
    leaseMs: 150,
    sentBefore: 0,
    ...over,
  };
}

/** A refusal that proves nothing was created (403): the outcome `retryFailed` sends again under a new key. */
export const retryableRefusal: BulkOutcome = {
  status: 'failed',
  at: 1,
  error: { name: 'PermissionDeniedError', message: 'no', status: 403 },
  retryable: true,
};
