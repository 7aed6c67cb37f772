/**
 * 500 creations against a real server that drops sockets, cuts bodies, answers 5xx/429 and stalls,
 * about 30 % of attempts: every logical operation must end with exactly one resource on the server
 * (docs/service.md "Idempotency": same key + same content → 200 replay), none lost, none doubled. An
 * operation whose retries all fail surfaces its `idempotencyKey`; retrying with it completes the
 * operation without a second charge.
 *
 * Reproduce a run with RELIABILITY_SEED=<n> (the seed is in every assertion message).
 */

import type { WithResponse } from 'payments-sdk';
import { PaymentsClient, PaymentsError } from 'payments-sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API_KEY } from '../helpers/fixtures.js';
import { FAULTS, type Fault, type FaultServer, startFaultServer } from './fault-server.js';

const SEED = Number(process.env.RELIABILITY_SEED ?? 20_261_120);
const OPERATIONS = 500;
const CONCURRENCY = 16;
const MAX_RETRIES = 4; // 5 attempts per call: at 30 % faults, 0.3^5 ≈ 0.24 % of calls fail by chance
const TIMEOUT_MS = 150;
const SLOW_MS = 300;

// Operations whose first call is made to fail on every attempt, so the "still fails → retry with
// the key" path always runs, whatever the seed. After MAX_RETRIES + 1 attempts the PRNG takes over.
const FORCED: Record<number, { faults: Fault[]; expected: string; createdBeforeFailure: boolean }> = {
  3: {
    faults: ['reset-after', '500-json', 'created-502-html', 'truncated', 'invalid-json'],
    expected: 'ResponseValidationError',
    createdBeforeFailure: true,
  },
  4: {
    faults: ['reset-before', 'reset-before', 'reset-before', 'reset-before', 'reset-before'],
    expected: 'APIConnectionError',
    createdBeforeFailure: false,
  },
  5: { faults: ['429', '429', '429', '429', '429'], expected: 'RateLimitError', createdBeforeFailure: false },
  6: { faults: ['slow', 'slow', 'slow', 'slow', 'slow'], expected: 'APITimeoutError', createdBeforeFailure: true },
  7: { faults: ['503-html', '502-html', '503-json', '500-json', '503-html'], expected: 'InternalServerError', createdBeforeFailure: false },
  8: {
    faults: ['reset-before', '429', '502-html', 'truncated', 'reset-after'],
    expected: 'APIConnectionError',
    createdBeforeFailure: true,
  },
};

type Created = { uuid?: string; reference?: string; amount?: number; gross_amount?: number };

let server: FaultServer;
let client: PaymentsClient;

/** Even operations are direct charges, odd ones checkout sessions: both creations are exercised. */
function createOp(op: number, idempotencyKey?: string): Promise<WithResponse<Created>> {
  // A forced call without 'slow' faults gets a generous timeout: on a loaded machine its last
  // attempt must fail by its planned fault, not by the client giving up first.
  const forcedNotSlow = !idempotencyKey && FORCED[op] && !FORCED[op].faults.includes('slow');
  const options = { ...(idempotencyKey ? { idempotencyKey } : {}), ...(forcedNotSlow ? { timeout: 5_000 } : {}) };
  if (op % 2 === 0) {
    return client.payments
      .create(
        { amount: 1_000 + op, currency: 'XOF', country: 'SEN', provider: 'orange', phone: '221771234567', description: `op-${op}` },
        options,
      )
      .withResponse();
  }
  return client.checkoutSessions
    .create({ amount: 1_000 + op, currency: 'XOF', description: `op-${op}`, metadata: { op } }, options)
    .withResponse();
}

/** Runs `task` over 0..count-1 with at most `limit` in flight. */
async function pool<T>(count: number, limit: number, task: (i: number) => Promise<T>): Promise<T[]> {
  const out = new Array<T>(count);
  let next = 0;
  const worker = async () => {
    while (next < count) {
      const i = next++;
      out[i] = await task(i);
    }
  };
  await Promise.all(Array.from({ length: limit }, worker));
  return out;
}

type Outcome = { ok: true; result: WithResponse<Created> } | { ok: false; error: unknown };

describe('over ky and the platform fetch', () => {
  beforeAll(async () => {
    server = await startFaultServer({
      seed: SEED,
      faultRate: 0.3,
      slowMs: SLOW_MS,
      plan: (op, attempt) => FORCED[op]?.faults[attempt - 1],
    });
    client = new PaymentsClient({
      apiKey: API_KEY,
      baseUrl: server.baseUrl,
      timeout: TIMEOUT_MS,
      maxRetries: MAX_RETRIES,
      retryBackoff: { initialMs: 1, maxMs: 4 },
    });
  });

  afterAll(async () => {
    await server?.close();
  });

  describe(`500 creations under ~30 % faults (seed ${SEED})`, () => {
    const firstCalls: Outcome[] = [];
    const createdAfterFirstCall = new Map<number, number>();
    const finalResults = new Map<number, WithResponse<Created>>();

    it('completes every operation exactly once, retrying a failed one with its idempotencyKey', async () => {
      const outcomes = await pool<Outcome>(OPERATIONS, CONCURRENCY, (op) =>
        createOp(op).then(
          (result) => ({ ok: true as const, result }),
          (error: unknown) => ({ ok: false as const, error }),
        ),
      );
      firstCalls.push(...outcomes);
      for (const [op, log] of server.ops) createdAfterFirstCall.set(op, log.creations);

      // A failed operation must say which key it used, so it can be finished later.
      const failed: { op: number; error: PaymentsError }[] = [];
      outcomes.forEach((outcome, op) => {
        if (outcome.ok) {
          finalResults.set(op, outcome.result);
          return;
        }
        expect(outcome.error, `op ${op} (seed ${SEED})`).toBeInstanceOf(PaymentsError);
        const error = outcome.error as PaymentsError;
        expect(error.idempotencyKey, `op ${op} failed without its idempotencyKey (seed ${SEED})`).toEqual(expect.any(String));
        failed.push({ op, error });
      });
      for (const op of Object.keys(FORCED).map(Number)) {
        expect(
          failed.map((f) => f.op),
          `forced op ${op} should fail its first call (seed ${SEED})`,
        ).toContain(op);
      }

      // Finish each failed operation with the key it surfaced (bounded: each call has 5 attempts).
      for (const { op, error } of failed) {
        let done: WithResponse<Created> | undefined;
        for (let tries = 0; tries < 6 && !done; tries++) {
          done = await createOp(op, error.idempotencyKey).catch((e: unknown) => {
            expect(e, `op ${op} retry (seed ${SEED})`).toBeInstanceOf(PaymentsError);
            expect((e as PaymentsError).idempotencyKey).toBe(error.idempotencyKey);
            return undefined;
          });
        }
        expect(done, `op ${op} could not be completed with its idempotencyKey (seed ${SEED})`).toBeDefined();
        expect(done?.idempotencyKey).toBe(error.idempotencyKey);
        finalResults.set(op, done as WithResponse<Created>);
      }

      // Exactly one resource per operation on the server: none lost, none doubled.
      expect(finalResults.size).toBe(OPERATIONS);
      expect(server.creations(), `resources on the server (seed ${SEED})`).toBe(OPERATIONS);
      const doubled = [...server.ops].filter(([, log]) => log.creations !== 1).map(([op, log]) => ({ op, creations: log.creations }));
      expect(doubled, `operations without exactly one creation (seed ${SEED})`).toEqual([]);
      expect(server.missingKey).toBe(0);
    });

    it('sent one Idempotency-Key per operation, on every attempt, and never hit a conflict', () => {
      expect(finalResults.size).toBe(OPERATIONS);
      for (let op = 0; op < OPERATIONS; op++) {
        const log = server.ops.get(op);
        expect(log, `op ${op} never reached the server`).toBeDefined();
        expect([...(log?.keys ?? [])], `op ${op} keys (seed ${SEED})`).toEqual([finalResults.get(op)?.idempotencyKey]);
        expect([...(log?.answers.values() ?? [])], `op ${op} got a 409 (seed ${SEED})`).not.toContain(409);
      }
    });

    it('hands back the resource the server holds, flagging replays', () => {
      let replays = 0;
      for (const [op, result] of finalResults) {
        const stored = server.resources.get(result.idempotencyKey as string);
        expect(stored?.op, `op ${op}`).toBe(op);
        if (op % 2 === 0) {
          expect(result.data.uuid).toBe(stored?.resource.uuid);
          expect(result.data.gross_amount).toBe(1_000 + op);
        } else {
          expect(result.data.reference).toBe(stored?.resource.reference);
          expect(result.data.amount).toBe(1_000 + op);
        }
        // 200 is a replay of an earlier creation, 201 a creation (docs/service.md "Idempotency"). The server
        // tags each answer with its attempt number: compare with what it did on that attempt.
        const log = server.ops.get(op);
        const attempt = Number(result.response.headers.get('x-attempt'));
        expect(log?.answers.get(attempt), `op ${op} accepted attempt ${attempt} (seed ${SEED})`).toBe(result.response.status);
        expect(result.replayed, `op ${op} created at attempt ${log?.createdAt}, accepted ${attempt} (seed ${SEED})`).toBe(
          (log?.createdAt ?? 0) < attempt,
        );
        expect(result.response.status).toBe(result.replayed ? 200 : 201);
        if (result.replayed) replays++;
      }
      // Faults after creation (reset-after, slow, truncated...) must have led to replays.
      expect(replays).toBeGreaterThan(0);
    });

    it('injected every kind of fault at about the requested rate', () => {
      for (const fault of FAULTS) expect(server.faultCounts[fault], `${fault} never injected (seed ${SEED})`).toBeGreaterThan(0);
      const attempts = [...server.ops.values()].reduce((sum, log) => sum + log.attempts, 0);
      const faults = Object.values(server.faultCounts).reduce((sum, n) => sum + n, 0);
      const forced = Object.values(FORCED).reduce((sum, f) => sum + f.faults.length, 0);
      const rate = (faults - forced) / (attempts - forced);
      expect(rate, `fault rate (seed ${SEED})`).toBeGreaterThan(0.2);
      expect(rate, `fault rate (seed ${SEED})`).toBeLessThan(0.4);
    });

    it('surfaces the right error class, with the key, when every attempt of a call fails', () => {
      for (const [opText, forced] of Object.entries(FORCED)) {
        const op = Number(opText);
        const outcome = firstCalls[op];
        expect(outcome?.ok, `forced op ${op}`).toBe(false);
        const error = (outcome as { error: PaymentsError }).error;
        expect(error.name, `forced op ${op}: ${error.message}`).toBe(forced.expected);
        expect(error.idempotencyKey).toBe(finalResults.get(op)?.idempotencyKey);
        // The faults chosen for this op created the resource (or not) before the call gave up.
        expect(createdAfterFirstCall.get(op), `forced op ${op} creations when its call failed`).toBe(forced.createdBeforeFailure ? 1 : 0);
        if (forced.createdBeforeFailure) expect(finalResults.get(op)?.replayed, `forced op ${op} must be a replay`).toBe(true);
      }
      const rateLimited = (firstCalls[5] as { error: { retryAfter?: number; status?: number } }).error;
      expect(rateLimited.status).toBe(429);
      expect(rateLimited.retryAfter).toBe(0);
      const html = (firstCalls[7] as { error: { body?: unknown; status?: number } }).error;
      expect(html.status).toBe(503);
      expect(String(html.body)).toContain('<html>');
    });
  });
});
