/**
 * Deadlines in Redis's clock, so that a script Redis runs after its caller gave up (the server was
 * stopped, the client queued the call while reconnecting) changes nothing.
 *
 * The offset between this process's monotonic clock (`performance.now()`) and Redis's `TIME` is
 * measured once and again whenever a script refuses a call that was not late by this process's
 * timer. It is taken against the END of the measuring round trip, so it can only place a deadline
 * early, never late: a call may be refused (and is then retried once), but a write never lands after
 * its caller's timeout. Only this bound uses it: who holds a key, leases and ages are decided by the
 * scripts from `TIME` alone, and a worker's wall clock (`Date.now()`) is never read.
 */
import { PaymentsError } from '../core/errors.js';
import type { RedisCommands } from './redis-client.js';

/** Redis-time deadlines for calls of one store. */
export interface RedisDeadlines {
  /** The Redis-time (ms, as text) at which `at` (a `performance.now()` value) falls. */
  toRedis(at: number): Promise<string>;
  /** Forgets the offset: the next deadline measures it again. */
  forget(): void;
}

/** Deadlines through `redis`'s `TIME`. */
export function redisDeadlines(redis: RedisCommands): RedisDeadlines {
  let offset: Promise<number> | undefined;
  const measure = async () => {
    const reply = await redis.command(['TIME']);
    const after = performance.now();
    if (!Array.isArray(reply) || reply.length < 2) throw new PaymentsError('redisStore: unexpected reply from Redis to TIME.');
    return Number(reply[0]) * 1000 + Math.floor(Number(reply[1]) / 1000) - after;
  };
  return {
    async toRedis(at) {
      if (offset === undefined) {
        const measuring = measure();
        offset = measuring;
        // A failed measure is not kept: the next call measures again.
        measuring.catch(() => {
          if (offset === measuring) offset = undefined;
        });
      }
      return String(Math.floor(at + (await offset)));
    },
    forget() {
      offset = undefined;
    },
  };
}
