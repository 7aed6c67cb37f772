/**
 * A webhook endpoint on `redisStore` and a REAL redis-server (node-redis and ioredis clients, default
 * settings): two instances share what was handled, a failed `onEvent` leaves the event to the next
 * attempt, and a Redis that stops answering mid-delivery costs a bounded answer, never a second run
 * of a handled event. The service waits 10 s for an answer (docs/service.md "Webhooks").
 */
import { Redis } from 'ioredis';
import { redisStore } from 'payments-sdk/stores';
import { webhookHandler } from 'payments-sdk/webhooks';
import { createClient } from 'redis';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { describeRedis, type RedisServer, startRedisServer } from '../helpers/redis.js';
import { deliveryHeaders, eventBody, SECRET } from '../helpers/webhook-deliveries.js';

const TIMEOUT = 400;
/** The store calls of one delivery (at most three bounded ones) plus slack for a busy machine. */
const BOUND = 3 * TIMEOUT + 1500;

/** A signed delivery of a payout event `id` (keyed by its id alone). */
function delivery(id: string) {
  const body = eventBody({ id, type: 'payout.completed', data: { id: 9, status: 'completed' } });
  return new Request('http://127.0.0.1/webhooks', { method: 'POST', body, headers: deliveryHeaders(body) });
}

async function timed(run: () => Promise<Response>) {
  const started = performance.now();
  const response = await run();
  return { response, ms: performance.now() - started };
}

describeRedis('webhook endpoints sharing a redisStore', () => {
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

  it('shares handled events between two instances (behind a load balancer), each on its own client', async () => {
    const calls: string[] = [];
    const instanceA = webhookHandler({
      secret: SECRET,
      onEvent: () => void calls.push('A'),
      store: redisStore(nodeRedis, { prefix: 'lb:' }),
    });
    const instanceB = webhookHandler({
      secret: SECRET,
      onEvent: () => void calls.push('B'),
      store: redisStore(ioredis, { prefix: 'lb:' }),
    });
    expect((await instanceA(delivery('evt_shared'))).status).toBe(200);
    const second = await instanceB(delivery('evt_shared'));
    expect(await second.json()).toEqual({ received: true, duplicate: true });
    expect(calls).toEqual(['A']);
  });

  it('a failed onEvent gives the event back, so the redelivery is handled by any instance', async () => {
    let fail = true;
    const store = redisStore(ioredis, { prefix: 'release:' });
    const handle = webhookHandler({
      secret: SECRET,
      store,
      onError: () => {},
      onEvent: () => {
        if (fail) throw new Error('boom');
      },
    });
    expect((await handle(delivery('evt_release'))).status).toBe(500);
    fail = false;
    const other = webhookHandler({ secret: SECRET, store: redisStore(nodeRedis, { prefix: 'release:' }), onEvent: () => {} });
    expect((await other(delivery('evt_release'))).status).toBe(200);
    expect(await (await handle(delivery('evt_release'))).json()).toEqual({ received: true, duplicate: true });
  });
});

describeRedis('a redis-server that stops answering mid-delivery', () => {
  const open: Array<() => Promise<void>> = [];
  afterAll(async () => {
    await Promise.all(open.map((close) => close()));
  });

  const clients = {
    'node-redis': async (server: RedisServer) => {
      const client = createClient({ url: server.url });
      client.on('error', () => {});
      await client.connect();
      return { client, destroy: () => client.destroy() };
    },
    ioredis: async (server: RedisServer) => {
      const client = new Redis(server.port, '127.0.0.1');
      client.on('error', () => {});
      return { client, destroy: () => client.disconnect() };
    },
  };

  /** A server of its own (a pause stops every client on it) and a handler on a store over a client with default settings. */
  async function scenario(
    connect: (server: RedisServer) => Promise<{ client: Parameters<typeof redisStore>[0]; destroy(): void }>,
    onEvent?: (server: RedisServer) => unknown,
  ) {
    const server = await startRedisServer();
    const { client, destroy } = await connect(server);
    open.push(async () => {
      destroy();
      await server.stop();
    });
    const handled: string[] = [];
    const errors: { error: unknown; status: number }[] = [];
    const handle = webhookHandler({
      secret: SECRET,
      store: redisStore(client, { prefix: 'stuck:', timeoutMs: TIMEOUT }),
      onEvent: async (event) => {
        handled.push(event.id);
        await onEvent?.(server);
      },
      onError: (error, info) => void errors.push({ error, status: info.status }),
    });
    return { server, handled, errors, handle };
  }

  for (const [name, connect] of Object.entries(clients)) {
    describe(name, () => {
      it('paused before the claim: 503 within the bound; once it answers again, the redelivery is handled once', async () => {
        const { server, handled, errors, handle } = await scenario(connect);
        server.pause();
        let answer: Awaited<ReturnType<typeof timed>>;
        try {
          answer = await timed(() => handle(delivery('evt_paused_claim')));
        } finally {
          server.resume();
        }
        expect(answer.response.status).toBe(503);
        expect(answer.response.headers.get('retry-after')).toBe('60');
        expect(answer.ms).toBeLessThan(BOUND);
        expect(handled).toEqual([]);
        expect(errors).toEqual([
          { error: expect.objectContaining({ message: expect.stringMatching(/did not answer the claim within/) }), status: 503 },
        ]);
        // The claim that reached Redis late changed nothing: the service's redelivery is handled at once.
        await vi.waitFor(async () => expect((await handle(delivery('evt_paused_claim'))).status).toBe(200), {
          timeout: 5_000,
          interval: 50,
        });
        expect(handled).toEqual(['evt_paused_claim']);
      });

      it('paused between the claim and the settlement: 200 within the bound, reported; the late settlement lands, and the event is never redone', async () => {
        const { server, handled, errors, handle } = await scenario(connect, (paused) => paused.pause());
        const { response, ms } = await timed(() => handle(delivery('evt_paused_settle')));
        expect(response.status).toBe(200);
        expect(await response.json()).toEqual({ received: true });
        expect(ms).toBeLessThan(BOUND);
        expect(errors).toEqual([
          { error: expect.objectContaining({ message: expect.stringMatching(/did not answer the settlement within/) }), status: 200 },
        ]);
        server.resume();
        await vi.waitFor(
          async () => expect(await (await handle(delivery('evt_paused_settle'))).json()).toEqual({ received: true, duplicate: true }),
          {
            timeout: 5_000,
            interval: 50,
          },
        );
        expect(handled).toEqual(['evt_paused_settle']);
      });

      it('killed between the claim and the settlement: 200 within the bound, onEvent ran once', async () => {
        const { handled, errors, handle } = await scenario(connect, (server) => server.stop());
        const { response, ms } = await timed(() => handle(delivery('evt_killed')));
        expect(response.status).toBe(200);
        expect(ms).toBeLessThan(BOUND + 2_000); // stop() itself waits for the exit
        expect(errors.map((e) => e.status)).toEqual([200]);
        expect(handled).toEqual(['evt_killed']);
      });
    });
  }
});
