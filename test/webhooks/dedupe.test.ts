/** The dedupe stores: in memory, and on a REAL redis-server started here (node-redis and ioredis clients). */
import { Redis } from 'ioredis';
import { PaymentsError } from 'payments-sdk';
import {
  DedupeStoreFullError,
  type IORedisLikeClient,
  memoryDedupeStore,
  type NodeRedisLikeClient,
  redisDedupeStore,
  type WebhookDedupeStore,
  webhookHandler,
} from 'payments-sdk/webhooks';
import { createClient } from 'redis';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { describeRedis, type RedisServer, startRedisServer } from '../helpers/redis.js';
import { signal } from '../helpers/signal.js';
import { deliveryHeaders, eventBody, SECRET } from '../helpers/webhook-deliveries.js';

afterEach(() => {
  vi.useRealTimers();
});

/** The contract every store keeps, whatever is behind it. */
async function checkContract(store: WebhookDedupeStore, id: string) {
  expect(await store.claim(id)).toBe(true);
  // In flight: claimed, not complete.
  expect(await store.claim(id)).toBe(false);
  expect(await store.isComplete?.(id)).toBe(false);
  // Released after a failure: the retry claims it again.
  await store.release(id);
  expect(await store.claim(id)).toBe(true);
  await store.complete?.(id);
  expect(await store.claim(id)).toBe(false);
  expect(await store.isComplete?.(id)).toBe(true);
  // Another id is independent.
  expect(await store.claim(`${id}-other`)).toBe(true);
}

/**
 * A release drops only the claim made with the same token: a delivery whose claim ran out (`expire`
 * waits past the store's lease) leaves the newer claim alone, which still keeps a third delivery out.
 */
async function checkOwnRelease(store: WebhookDedupeStore, id: string, expire: () => Promise<void> | void) {
  expect(await store.claim(id, 'delivery-1')).toBe(true);
  await expire();
  expect(await store.claim(id, 'delivery-2')).toBe(true);
  await store.release(id, 'delivery-1');
  expect(await store.claim(id, 'delivery-3')).toBe(false);
  await store.release(id, 'delivery-2');
  expect(await store.claim(id, 'delivery-3')).toBe(true);
}

/**
 * Two instances on one store: the first delivery's onEvent outlives the lease, a redelivery is
 * claimed and handled by the second instance meanwhile; when the first then throws, its release must
 * not free the id, or a third delivery would run onEvent while the second still does.
 */
async function checkLateFailure(store: WebhookDedupeStore, leaseMs: number) {
  const calls: string[] = [];
  const firstFails = signal();
  const secondFinishes = signal();
  const instance = (name: string, run: () => Promise<void>) =>
    webhookHandler({
      secret: SECRET,
      dedupe: store,
      onError: () => {},
      onEvent: async () => {
        calls.push(name);
        await run();
      },
    });
  const first = instance('first', async () => {
    await firstFails.fired;
    throw new Error('timed out upstream');
  });
  const second = instance('second', () => secondFinishes.fired);
  const third = instance('third', async () => {});
  const body = eventBody({ id: 'evt_late_failure' });
  const deliver = (handle: (request: Request) => Promise<Response>) =>
    handle(new Request('http://127.0.0.1/webhooks', { method: 'POST', body, headers: deliveryHeaders(body) }));
  const firstAnswer = deliver(first);
  await vi.waitFor(() => expect(calls).toEqual(['first']));
  await new Promise((resolve) => setTimeout(resolve, leaseMs + 100));
  const secondAnswer = deliver(second);
  await vi.waitFor(() => expect(calls).toEqual(['first', 'second']));
  firstFails.fire();
  expect((await firstAnswer).status).toBe(500);
  // The second delivery still holds the id: the third is not handled.
  expect((await deliver(third)).status).toBe(409);
  secondFinishes.fire();
  expect((await secondAnswer).status).toBe(200);
  expect(calls).toEqual(['first', 'second']);
}

describe('memoryDedupeStore', () => {
  it('keeps the contract', async () => {
    await checkContract(memoryDedupeStore(), 'evt_1');
  });

  it('releases only the claim made with the same token: a delivery whose claim ran out leaves the newer one', async () => {
    vi.useFakeTimers({ now: 1_000_000 });
    await checkOwnRelease(memoryDedupeStore({ leaseMs: 1_000 }), 'evt_own', () => void vi.setSystemTime(1_000_000 + 1_001));
    // Without a token (a caller of its own), the claim in flight is released, whoever made it.
    const store = memoryDedupeStore();
    await store.claim('evt_any', 'delivery-1');
    await store.release('evt_any');
    expect(await store.claim('evt_any')).toBe(true);
  });

  it('a first delivery failing after its lease ran out does not free the id a second delivery is handling', async () => {
    await checkLateFailure(memoryDedupeStore({ leaseMs: 400 }), 400);
  });

  it('forgets a handled id after ttlMs, and an in-flight claim after leaseMs', async () => {
    vi.useFakeTimers({ now: 1_000_000 });
    const store = memoryDedupeStore({ ttlMs: 10_000, leaseMs: 1_000 });
    expect(await store.claim('done')).toBe(true);
    await store.complete?.('done');
    expect(await store.claim('stuck')).toBe(true);
    vi.setSystemTime(1_000_000 + 1_001);
    // The instance handling "stuck" died: its lease ran out, so the retry is processed.
    expect(await store.claim('stuck')).toBe(true);
    expect(await store.claim('done')).toBe(false);
    vi.setSystemTime(1_000_000 + 10_001);
    expect(await store.isComplete?.('done')).toBe(false);
    expect(await store.claim('done')).toBe(true);
  });

  it('defaults to remembering a handled id for 24 hours', async () => {
    vi.useFakeTimers({ now: 0 });
    const store = memoryDedupeStore();
    await store.claim('a');
    await store.complete?.('a');
    vi.setSystemTime(24 * 3600_000 - 1);
    expect(await store.claim('a')).toBe(false);
    vi.setSystemTime(24 * 3600_000);
    expect(await store.claim('a')).toBe(true);
  });

  it('is bounded: beyond max, the oldest handled ids are forgotten first', async () => {
    const store = memoryDedupeStore({ max: 3 });
    for (const id of ['a', 'b', 'c', 'd']) {
      expect(await store.claim(id)).toBe(true);
      await store.complete?.(id);
    }
    expect(await store.claim('a')).toBe(true); // evicted, so claimable again (and now evicts "b")
    expect(await store.claim('c')).toBe(false);
    expect(await store.claim('d')).toBe(false);
    expect(await store.claim('b')).toBe(true);
  });

  it('never evicts a live claim: after max other events, an id still in flight cannot be claimed twice', async () => {
    const store = memoryDedupeStore({ max: 100 });
    expect(await store.claim('running')).toBe(true);
    for (let i = 0; i < 1_000; i++) {
      expect(await store.claim(`evt_${i}`)).toBe(true);
      await store.complete?.(`evt_${i}`);
    }
    expect(await store.claim('running')).toBe(false);
    expect(await store.isComplete?.('running')).toBe(false);
  });

  it('evicts expired ids before live handled ones', async () => {
    vi.useFakeTimers({ now: 0 });
    const store = memoryDedupeStore({ max: 2, ttlMs: 10_000, leaseMs: 1_000 });
    await store.claim('handled');
    await store.complete?.('handled'); // remembered until 10 000
    await store.claim('stale-claim'); // its holder died: the lease runs out at 1 000
    vi.setSystemTime(2_000);
    // Full, and the oldest entry is the live handled id: the expired lease goes instead.
    expect(await store.claim('new')).toBe(true);
    expect(await store.claim('handled')).toBe(false);
    expect(await store.isComplete?.('handled')).toBe(true);
  });

  it('full of claims in flight: refuses the next one (the handler answers 503), and takes it once a slot frees', async () => {
    const store = memoryDedupeStore({ max: 2 });
    expect(await store.claim('a')).toBe(true);
    expect(await store.claim('b')).toBe(true);
    await expect(store.claim('c')).rejects.toBeInstanceOf(DedupeStoreFullError);
    const onEvent = vi.fn();
    const handle = webhookHandler({ secret: SECRET, onEvent, dedupe: store, onError: () => {} });
    const body = eventBody({ id: 'c' });
    const response = await handle(new Request('http://127.0.0.1/webhooks', { method: 'POST', body, headers: deliveryHeaders(body) }));
    expect(response.status).toBe(503);
    expect(onEvent).not.toHaveBeenCalled();
    await store.complete?.('a');
    expect(await store.claim('c')).toBe(true); // "a" (handled) makes room; "b" (in flight) stays
    expect(await store.claim('b')).toBe(false);
  });

  it('stays within max under many handled ids', async () => {
    const store = memoryDedupeStore({ max: 100 });
    for (let i = 0; i < 5_000; i++) {
      await store.claim(`evt_${i}`);
      await store.complete?.(`evt_${i}`);
    }
    let remembered = 0;
    for (let i = 0; i < 5_000; i++) if (await store.isComplete?.(`evt_${i}`)) remembered++;
    expect(remembered).toBe(100);
  });

  it('refuses bad options', () => {
    for (const options of [{ ttlMs: 0 }, { ttlMs: 1.5 }, { max: -1 }, { leaseMs: Number.NaN }, { max: '10' }]) {
      expect(() => memoryDedupeStore(options as never)).toThrow(PaymentsError);
    }
  });
});

describeRedis('redisDedupeStore on a real redis-server', () => {
  let redis: RedisServer;
  let nodeRedis: ReturnType<typeof createClient>;
  let ioredis: Redis;

  beforeAll(async () => {
    redis = await startRedisServer();
    nodeRedis = createClient({ url: redis.url });
    await nodeRedis.connect();
    ioredis = new Redis(redis.port, '127.0.0.1', { lazyConnect: true, maxRetriesPerRequest: 1 });
    await ioredis.connect();
  });

  afterAll(async () => {
    await nodeRedis?.quit().catch(() => {});
    ioredis?.disconnect();
    await redis?.stop();
  });

  for (const [name, client] of [
    ['node-redis', () => nodeRedis],
    ['ioredis', () => ioredis],
  ] as const) {
    describe(name, () => {
      it('keeps the contract', async () => {
        await checkContract(redisDedupeStore(client(), { prefix: `${name}:contract:` }), 'evt_1');
      });

      it('writes SET NX PX with the lease, then the full TTL once complete, under the prefix', async () => {
        const store = redisDedupeStore(client(), { prefix: `${name}:ttl:`, ttlMs: 60_000, leaseMs: 5_000 });
        await store.claim('evt_ttl');
        expect(await ioredis.get(`${name}:ttl:evt_ttl`)).toBe('processing');
        const lease = await ioredis.pttl(`${name}:ttl:evt_ttl`);
        expect(lease).toBeGreaterThan(0);
        expect(lease).toBeLessThanOrEqual(5_000);
        await store.complete?.('evt_ttl');
        expect(await ioredis.get(`${name}:ttl:evt_ttl`)).toBe('done');
        expect(await ioredis.pttl(`${name}:ttl:evt_ttl`)).toBeGreaterThan(5_000);
        await store.release('evt_ttl');
        expect(await ioredis.exists(`${name}:ttl:evt_ttl`)).toBe(0);
      });

      it('lets exactly one of many concurrent claims win', async () => {
        const stores = Array.from({ length: 10 }, () => redisDedupeStore(client(), { prefix: `${name}:race:` }));
        const results = await Promise.all(stores.map((store) => store.claim('evt_race')));
        expect(results.filter(Boolean)).toHaveLength(1);
      });

      it('releases only the claim made with the same token: a delivery whose claim ran out leaves the newer one', async () => {
        const store = redisDedupeStore(client(), { prefix: `${name}:own:`, leaseMs: 50 });
        await checkOwnRelease(store, 'evt_own', () =>
          vi.waitFor(async () => expect(await ioredis.exists(`${name}:own:evt_own`)).toBe(0), { timeout: 2_000, interval: 20 }),
        );
      });

      it('a first delivery failing after its lease ran out does not free the id a second delivery is handling', async () => {
        await checkLateFailure(redisDedupeStore(client(), { prefix: `${name}:late:`, leaseMs: 400 }), 400);
      });

      it('an expired lease is claimable again (an instance that died mid-onEvent)', async () => {
        const store = redisDedupeStore(client(), { prefix: `${name}:lease:`, leaseMs: 50 });
        expect(await store.claim('evt_lease')).toBe(true);
        await vi.waitFor(async () => expect(await ioredis.exists(`${name}:lease:evt_lease`)).toBe(0), { timeout: 2_000, interval: 20 });
        expect(await store.claim('evt_lease')).toBe(true);
      });
    });
  }

  it('shares handled ids between two handlers (two instances behind a load balancer)', async () => {
    const calls: string[] = [];
    const instanceA = webhookHandler({
      secret: SECRET,
      onEvent: () => void calls.push('A'),
      dedupe: redisDedupeStore(nodeRedis, { prefix: 'lb:' }),
    });
    const instanceB = webhookHandler({
      secret: SECRET,
      onEvent: () => void calls.push('B'),
      dedupe: redisDedupeStore(ioredis, { prefix: 'lb:' }),
    });
    const body = eventBody({ id: 'evt_shared' });
    const request = () => new Request('http://127.0.0.1/webhooks', { method: 'POST', body, headers: deliveryHeaders(body) });
    expect((await instanceA(request())).status).toBe(200);
    const second = await instanceB(request());
    expect(second.status).toBe(200);
    expect(await second.json()).toEqual({ received: true, duplicate: true });
    expect(calls).toEqual(['A']);
  });

  it('a failed onEvent releases the id in Redis, so the redelivery is processed by any instance', async () => {
    let fail = true;
    const handle = webhookHandler({
      secret: SECRET,
      onEvent: () => {
        if (fail) throw new Error('boom');
      },
      onError: () => {},
      dedupe: redisDedupeStore(ioredis, { prefix: 'release:' }),
    });
    const body = eventBody({ id: 'evt_release' });
    const request = () => new Request('http://127.0.0.1/webhooks', { method: 'POST', body, headers: deliveryHeaders(body) });
    expect((await handle(request())).status).toBe(500);
    expect(await ioredis.exists('release:evt_release')).toBe(0);
    fail = false;
    expect((await handle(request())).status).toBe(200);
    expect(await ioredis.get('release:evt_release')).toBe('done');
  });

  it('refuses a client it cannot recognise, rather than risk dropping NX', () => {
    const upstashLike = { set: async () => 'OK', get: async () => null, del: async () => 1 };
    expect(() => redisDedupeStore(upstashLike as never)).toThrow(/node-redis or ioredis.*implement WebhookDedupeStore/);
    expect(() => redisDedupeStore(null as never)).toThrow(PaymentsError);
    expect(() => redisDedupeStore(nodeRedis, { ttlMs: -5 })).toThrow(/ttlMs must be a positive integer/);
  });
});

/**
 * A Redis that stops answering mid-delivery (SIGSTOP: connections stay open, nothing answers; or
 * killed). The service waits 10 s for an answer (docs/service.md "Webhooks") and then counts a failure, so
 * every store call is bounded by `dedupeTimeoutMs`; the clients keep their DEFAULT settings, under
 * which a command waits as long as the connection stays up.
 */
describeRedis('a redis-server that stops answering mid-delivery', () => {
  const TIMEOUT = 400;
  /** Generous: the store calls of one delivery (at most three bounded ones) plus slack for a busy machine. */
  const bound = (timeoutMs: number) => 3 * timeoutMs + 1500;

  interface Setup {
    redis: RedisServer;
    store: WebhookDedupeStore;
    /** Reads a key through a fresh connection (the store's own may be stuck). */
    peek(key: string): Promise<string | null>;
    close(): Promise<void>;
  }

  /** A server of its own (a pause stops every client on it) and a store on a client with default settings. */
  async function setUp(connect: (redis: RedisServer) => Promise<{ client: NodeRedisLikeClient | IORedisLikeClient; destroy(): void }>) {
    const redis = await startRedisServer();
    const { client, destroy } = await connect(redis);
    const setup: Setup = {
      redis,
      store: redisDedupeStore(client, { prefix: 'stuck:' }),
      peek: (key) => peek(redis, key),
      async close() {
        destroy();
        await redis.stop();
      },
    };
    return setup;
  }

  const clients = {
    'node-redis': () =>
      setUp(async (redis) => {
        const client = createClient({ url: redis.url });
        client.on('error', () => {});
        await client.connect();
        return { client, destroy: () => client.destroy() };
      }),
    ioredis: () =>
      setUp(async (redis) => {
        const client = new Redis(redis.port, '127.0.0.1');
        client.on('error', () => {});
        return { client, destroy: () => client.disconnect() };
      }),
  };

  async function peek(redis: RedisServer, key: string): Promise<string | null> {
    const reader = new Redis(redis.port, '127.0.0.1', { lazyConnect: true });
    try {
      await reader.connect();
      return await reader.get(key);
    } finally {
      reader.disconnect();
    }
  }

  const open: Setup[] = [];
  afterAll(async () => {
    await Promise.all(open.map((setup) => setup.close()));
  });

  function delivery(id: string) {
    const body = eventBody({ id });
    return new Request('http://127.0.0.1/webhooks', { method: 'POST', body, headers: deliveryHeaders(body) });
  }

  async function timed(run: () => Promise<Response>) {
    const started = performance.now();
    const response = await run();
    return { response, ms: performance.now() - started };
  }

  /** A handler on a fresh server and client: what onEvent saw, and what onError was told. */
  async function scenario(connect: () => Promise<Setup>, options: { dedupeTimeoutMs?: number; onEvent?: (setup: Setup) => unknown } = {}) {
    const setup = await connect();
    open.push(setup);
    const handled: string[] = [];
    const errors: { error: unknown; status: number }[] = [];
    const handle = webhookHandler({
      secret: SECRET,
      onEvent: async (event) => {
        handled.push(event.id);
        await options.onEvent?.(setup);
      },
      onError: (error, info) => void errors.push({ error, status: info.status }),
      dedupe: setup.store,
      ...(options.dedupeTimeoutMs === undefined ? {} : { dedupeTimeoutMs: options.dedupeTimeoutMs }),
    });
    return { setup, handled, errors, handle };
  }

  for (const [name, connect] of Object.entries(clients)) {
    describe(name, () => {
      for (const timeoutMs of [TIMEOUT, undefined]) {
        const label = timeoutMs === undefined ? 'the default dedupeTimeoutMs' : `dedupeTimeoutMs ${timeoutMs}`;
        it(`paused before the claim: answers 503 within the bound (${label}), and the redelivery is handled once`, async () => {
          const { setup, handled, errors, handle } = await scenario(connect, { dedupeTimeoutMs: timeoutMs });
          setup.redis.pause();
          const { response, ms } = await timed(() => handle(delivery('evt_paused_claim')));
          expect(response.status).toBe(503);
          expect(response.headers.get('retry-after')).toBe('60');
          expect(ms).toBeLessThan(Math.min(bound(timeoutMs ?? 2000), 9_000));
          expect(handled).toEqual([]);
          expect(errors).toEqual([
            { error: expect.objectContaining({ message: expect.stringMatching(/claim did not answer within/) }), status: 503 },
          ]);

          // Once Redis is back, the claim that landed late is given back (without that, its 30 s
          // lease would hold the id): the service's redeliveries, answered 409 at most while the late
          // claim is still queued, soon get a 200, and the event is handled once.
          setup.redis.resume();
          const statuses: number[] = [];
          await vi.waitFor(
            async () => {
              statuses.push((await handle(delivery('evt_paused_claim'))).status);
              expect(statuses.at(-1)).toBe(200);
            },
            { timeout: 5_000, interval: 50 },
          );
          expect(new Set(statuses.slice(0, -1))).toEqual(new Set(statuses.length > 1 ? [409] : []));
          expect(handled).toEqual(['evt_paused_claim']);
        });
      }

      it('paused between the claim and the completion: answers 200 within the bound, reports it, never redoes the event', async () => {
        const { setup, handled, errors, handle } = await scenario(connect, {
          dedupeTimeoutMs: TIMEOUT,
          onEvent: ({ redis }) => redis.pause(),
        });
        const { response, ms } = await timed(() => handle(delivery('evt_paused_complete')));
        expect(response.status).toBe(200);
        expect(await response.json()).toEqual({ received: true });
        expect(ms).toBeLessThan(bound(TIMEOUT));
        expect(errors).toEqual([
          { error: expect.objectContaining({ message: expect.stringMatching(/complete did not answer within/) }), status: 200 },
        ]);

        // The completion lands once Redis is back: the redelivery is a duplicate.
        setup.redis.resume();
        await vi.waitFor(async () => expect(await setup.peek('stuck:evt_paused_complete')).toBe('done'), { timeout: 5_000, interval: 25 });
        const again = await handle(delivery('evt_paused_complete'));
        expect(await again.json()).toEqual({ received: true, duplicate: true });
        expect(handled).toEqual(['evt_paused_complete']);
      });

      it('killed between the claim and the completion: answers 200 within the bound, onEvent ran once', async () => {
        const { handled, errors, handle } = await scenario(connect, { dedupeTimeoutMs: TIMEOUT, onEvent: ({ redis }) => redis.stop() });
        const { response, ms } = await timed(() => handle(delivery('evt_killed')));
        expect(response.status).toBe(200);
        expect(ms).toBeLessThan(bound(TIMEOUT) + 2_000); // stop() itself waits for the exit
        expect(errors.map((e) => e.status)).toEqual([200]);
        expect(handled).toEqual(['evt_killed']);
      });
    });
  }
});
