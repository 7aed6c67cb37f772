/**
 * The set-up of the tests where worker processes (test/bulk/child.ts) run one bulk payout together
 * through a shared store: the payout mock served behind a fault-injecting proxy, a worker's `BULK_*`
 * environment, and the check that the service holds exactly one payout per row.
 */
import type { MockHttpServer, MockService } from 'payments-sdk/testing';
import { expect } from 'vitest';
import { type FaultProxy, startFaultProxy } from '../bulk/fault-proxy.js';
import { allPayouts, countByRow, liveClient, payoutMock } from './bulk.js';

/**
 * The payout mock served on 127.0.0.1 behind a proxy that turns `faultShare` of the requests into
 * faults, in equal parts: resets before and after the payout is created, 502 after it, 503 before.
 */
export async function servedFaultyMock(
  faultShare: number,
  seed: number,
): Promise<{ mock: MockService; server: MockHttpServer; proxy: FaultProxy }> {
  const mock = payoutMock();
  const server = await mock.listen();
  const share = faultShare / 4;
  const proxy = await startFaultProxy(server.url, {
    seed,
    mix: { 'reset-before': share, 'reset-after': share, 'created-502': share, '503': share },
    holdMs: 0,
  });
  return { mock, server, proxy };
}

/**
 * The `BULK_*` environment of a worker: `rows` rows of batch `batchId` sent through `proxy` by
 * `runner`, 6 at a time, with 1.5 s leases; `store` names the shared store (`BULK_REDIS_*`).
 */
export function workerEnv(
  mock: MockService,
  proxy: FaultProxy,
  run: { rows: number; batchId: string; runner: string },
  store: Record<string, string>,
): Record<string, string> {
  return {
    BULK_API_KEY: mock.liveApiKey as string,
    BULK_BASE_URL: proxy.url,
    BULK_ROWS: String(run.rows),
    BULK_BATCH_ID: run.batchId,
    ...store,
    BULK_RUNNER: run.runner,
    BULK_CONCURRENCY: '6',
    BULK_LEASE_MS: '1500',
  };
}

/** Checks that the service created exactly one payout for each of the `rows` rows. */
export async function expectOnePayoutPerRow(mock: MockService, rows: number): Promise<void> {
  const payouts = await allPayouts(liveClient(mock));
  expect(payouts).toHaveLength(rows);
  const counts = countByRow(payouts);
  expect(counts.size).toBe(rows);
  expect([...counts.values()].every((n) => n === 1)).toBe(true);
}
