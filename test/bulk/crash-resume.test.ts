/**
 * Crash and resume: 2,000 payouts through a proxy that injects about 30 %
 * faults (resets before and after the answer, 5xx, 429, timeouts) in front of the testing kit's mock
 * served on 127.0.0.1. A child process running the batch with a file store is SIGKILLed mid-way,
 * then the batch is run again: exactly 2,000 payouts in the mock, none twice, none lost, and every
 * row reported.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { MockHttpServer } from 'payments-sdk/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { allPayouts, countByRow, liveClient, payoutMock } from '../helpers/bulk.js';
import { type FaultProxy, startFaultProxy } from './fault-proxy.js';
import { bundleChild, runChild } from './processes.js';

const ROWS = 2000;
/** The first runner is killed while the service's answer to this POST is on its way back. */
const KILL_AT = 700;

let child: { file: string; cleanup(): Promise<void> };
let dir = '';
let server: MockHttpServer;
let proxy: FaultProxy;
const mock = payoutMock();
let kill: () => Promise<void> = async () => {};

beforeAll(async () => {
  child = await bundleChild();
  dir = await mkdtemp(join(tmpdir(), 'payments-sdk-crash-'));
  server = await mock.listen();
  proxy = await startFaultProxy(server.url, {
    seed: 20261124,
    mix: { 'reset-before': 0.08, 'reset-after': 0.08, 'created-502': 0.05, '503': 0.035, '429': 0.035, timeout: 0.02 },
    holdMs: 400,
    afterForward: async (n) => {
      if (n === KILL_AT) await kill();
    },
  });
});

afterAll(async () => {
  await proxy?.close();
  await server?.close();
  await child?.cleanup();
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('crash and resume', () => {
  it(`${ROWS} payouts, ~30 % faults, the runner SIGKILLed mid-way and rerun: exactly ${ROWS} payouts, none twice, every row reported`, async () => {
    const store = join(dir, 'payroll.store');
    const env = {
      BULK_API_KEY: mock.liveApiKey as string,
      BULK_BASE_URL: proxy.url,
      BULK_ROWS: String(ROWS),
      BULK_BATCH_ID: 'payroll-2026-11',
      BULK_STORE: store,
      BULK_TIMEOUT_MS: '200',
      BULK_CONCURRENCY: '8',
    };
    const first = runChild(child.file, { ...env, BULK_RUNNER: 'first' });
    // SIGKILL mid-exchange: the payouts in flight exist in the service, their answers never arrive.
    kill = async () => {
      first.child.kill('SIGKILL');
      await first.exited;
    };
    const firstEnd = await first.exited;
    expect(firstEnd.signal, first.stderr).toBe('SIGKILL');
    expect(first.summary).toBeUndefined();
    const doneBeforeKill = [...first.results.values()].filter((s) => s === 'created' || s === 'replayed').length;
    expect(doneBeforeKill).toBeGreaterThan(0);

    const second = runChild(child.file, { ...env, BULK_RUNNER: 'second' });
    const secondEnd = await second.exited;
    expect(secondEnd.code, second.stderr).toBe(0);

    // Every row reported once by the rerun, and nothing left unknown.
    expect(second.lines).toBe(ROWS);
    expect([...second.results.keys()].sort((a, b) => a - b)).toEqual([...Array(ROWS).keys()]);
    expect(second.summary).toMatchObject({ total: ROWS, failed: 0, conflict: 0, needs_reconciliation: 0, aborted: false });
    // What the first run finished is skipped, from the store; no row it finished is sent again.
    for (const [index, status] of first.results)
      if (status === 'created' || status === 'replayed') expect(second.results.get(index)).toBe('skipped');
    expect(second.summary?.skipped).toBeGreaterThanOrEqual(doneBeforeKill);

    // The service holds exactly one payout per row.
    const payouts = await allPayouts(liveClient(mock));
    expect(payouts).toHaveLength(ROWS);
    const counts = countByRow(payouts);
    expect(counts.size).toBe(ROWS);
    expect([...counts.values()].every((n) => n === 1)).toBe(true);

    // The faults were there: every kind, about 30 % of the POSTs.
    const { none, ...faults } = proxy.counts;
    const injected = Object.values(faults).reduce((a, b) => a + b, 0);
    for (const [kind, n] of Object.entries(faults)) expect(n, kind).toBeGreaterThan(0);
    expect(injected / (injected + none)).toBeGreaterThan(0.2);
    expect(injected / (injected + none)).toBeLessThan(0.4);

    // The store holds no API key.
    expect(await readFile(store, 'utf8')).not.toContain(mock.liveApiKey as string);
  }, 120_000);
});
