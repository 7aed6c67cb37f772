/**
 * `redisStore` against a real redis-server, through node-redis and ioredis: what only Redis has to
 * prove. Leases and ages follow Redis's clock (a worker 2 h fast changes nothing), a claim of many
 * keys is one script call, EVALSHA survives SCRIPT FLUSH, values and keys round-trip exactly, every
 * call is bounded (a SIGSTOPped server, a client closed or reconnecting) and a write that timed out
 * never lands later. Without redis-server these tests skip with one line saying why, except under
 * CI=true, where they fail (test/helpers/redis.ts).
 */
import { spawn } from 'node:child_process';
import { Redis } from 'ioredis';
import { createClient } from 'redis';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { PaymentsError } from '../../src/core/errors.js';
import { StoreTimeoutError } from '../../src/stores/errors.js';
import { type RedisStoreClient, redisStore } from '../../src/stores/redis.js';
import { storeKey } from '../../src/stores/store.js';
import { caught } from '../helpers/caught.js';
import { describeRedis, findRedisServer, type RedisServer, startRedisServer } from '../helpers/redis.js';

const HOUR_MS = 3_600_000;

/** Redis's clock, in ms. */
async function serverNow(io: Redis): Promise<number> {
  const [seconds, micros] = await io.time();
  return Number(seconds) * 1000 + Math.floor(Number(micros) / 1000);
}

/** How many times Redis ran `command` since the server started. */
async function calls(io: Redis, command: string): Promise<number> {
  const stats = await io.info('commandstats');
  return Number(new RegExp(`cmdstat_${command}:calls=(\\d+)`).exec(stats)?.[1] ?? 0);
}

describeRedis('redisStore', () => {
  let redis: RedisServer;
  let node: ReturnType<typeof createClient>;
  let io: Redis;

  beforeAll(async () => {
    redis = await startRedisServer();
    node = createClient({ url: redis.url });
    await node.connect();
    io = new Redis(redis.port, '127.0.0.1');
  });

  afterAll(async () => {
    await node?.close();
    io?.disconnect();
    await redis?.stop();
  });

  afterEach(() => {
    vi.restoreAllMocks();
  });

  for (const which of ['node-redis', 'ioredis'] as const) {
    describe(which, () => {
      const client = (): RedisStoreClient => (which === 'ioredis' ? io : node);
      const store = (name: string, options: { ttlMs?: number; timeoutMs?: number } = {}) =>
        redisStore(client(), { prefix: `${which}:${name}:`, ...options });

      it("a lease ends by Redis's clock: its stored end is Redis's TIME plus leaseMs, whatever the worker's clock says (2 h fast)", async () => {
        const realDate = Date.now.bind(Date);
        const realPerf = performance.now.bind(performance);
        vi.spyOn(Date, 'now').mockImplementation(() => realDate() + 2 * HOUR_MS);
        vi.spyOn(performance, 'now').mockImplementation(() => realPerf() + 2 * HOUR_MS);
        const s = store('clock');
        const before = await serverNow(io);
        const [first] = await s.claim([{ key: 'k', owner: 'A', leaseMs: 60_000 }]);
        const after = await serverNow(io);
        expect(first).toMatchObject({ state: 'claimed', record: { owner: 'A', claims: 1 } });
        // The age is Redis's too: not two hours.
        expect(first?.record.age).toBeLessThan(1000);
        const end = Number(await io.hget(`${which}:clock:k`, 'e'));
        expect(end).toBeGreaterThanOrEqual(before + 60_000);
        expect(end).toBeLessThanOrEqual(after + 60_000);
        // A worker that trusted its own clock would think the lease long over; Redis does not.
        expect((await s.claim([{ key: 'k', owner: 'B', leaseMs: 1000 }]))[0]?.state).toBe('busy');

        // A short lease ends when Redis's clock says so.
        await s.claim([{ key: 'short', owner: 'A', leaseMs: 300 }]);
        const claimedAt = await serverNow(io);
        expect((await s.claim([{ key: 'short', owner: 'B', leaseMs: 300 }]))[0]?.state).toBe('busy');
        await vi.waitFor(async () => expect((await s.claim([{ key: 'short', owner: 'B', leaseMs: 1000 }]))[0]?.state).toBe('claimed'), {
          timeout: 5_000,
          interval: 25,
        });
        expect(await serverNow(io)).toBeGreaterThanOrEqual(claimedAt + 300);
        const [record] = await s.read(['short']);
        expect(record).toMatchObject({ owner: 'B', claims: 2 });
        expect(record?.age).toBeGreaterThanOrEqual(300);
        expect(record?.age).toBeLessThan(5_000);
      });

      it("Redis's clock moving ahead of the measured offset (a failover to a server whose clock is ahead) costs one measure and one retry, not a failure", async () => {
        const s = store('jump');
        await s.claim([
          { key: 'a', owner: 'A', leaseMs: 60_000 },
          { key: 'warm', owner: 'A', leaseMs: 60_000 },
        ]);
        expect(await s.settle('warm', 'A')).toBe(true);
        // As seen from this process, Redis's clock jumps 10 s ahead: the deadline the store computes is in the past.
        const realPerf = performance.now.bind(performance);
        vi.spyOn(performance, 'now').mockImplementation(() => realPerf() - 10_000);
        const scriptsRun = async () => (await calls(io, 'evalsha')) + (await calls(io, 'eval'));
        const [times, before] = [await calls(io, 'time'), await scriptsRun()];
        expect(await s.settle('a', 'A', { ok: 1 })).toBe(true);
        // The script that refused, the new measure, the script that ran (scripts count their TIME too).
        expect(await calls(io, 'time')).toBe(times + 3);
        expect(await scriptsRun()).toBe(before + 2);
        expect(await s.read(['a'])).toEqual([expect.objectContaining({ settled: true, result: { ok: 1 } })]);
      });

      it('a claim of many keys is one script call, answering each request in order', async () => {
        const s = store('many');
        await s.claim([{ key: 'warm', owner: 'A', leaseMs: 1000 }]);
        const keys = Array.from({ length: 50 }, (_, i) => storeKey('bulk', 'batch-1', `row-${i}`));
        await s.claim([{ key: keys[3] as string, owner: 'other', leaseMs: 60_000 }]);
        const before = (await calls(io, 'evalsha')) + (await calls(io, 'eval'));
        const answers = await s.claim(keys.map((key, i) => ({ key, owner: 'A', leaseMs: 60_000, data: { row: i } })));
        expect((await calls(io, 'evalsha')) + (await calls(io, 'eval'))).toBe(before + 1);
        expect(answers.map((a) => a.record.key)).toEqual(keys);
        expect(answers.map((a) => a.state)).toEqual(keys.map((_, i) => (i === 3 ? 'busy' : 'claimed')));
        expect(answers[7]?.record.data).toEqual({ row: 7 });
        // The key the other owner claimed first keeps nothing of this claim.
        expect(answers[3]?.record).toMatchObject({ owner: 'other', claims: 1 });
        expect(answers[3]?.record.data).toBeUndefined();
      });

      it('runs its scripts by EVALSHA, and again after SCRIPT FLUSH (NOSCRIPT, then EVAL)', async () => {
        const s = store('flush');
        await s.claim([{ key: 'a', owner: 'A', leaseMs: 1000 }]);
        const shas = await calls(io, 'evalsha');
        expect(await s.settle('a', 'A', { ok: true })).toBe(true);
        expect(await calls(io, 'evalsha')).toBeGreaterThan(shas);
        await io.script('FLUSH');
        const evals = await calls(io, 'eval');
        expect(await s.claim([{ key: 'b', owner: 'A', leaseMs: 1000 }])).toMatchObject([{ state: 'claimed' }]);
        expect(await s.settle('b', 'A')).toBe(true);
        expect(await s.read(['a', 'b'])).toMatchObject([{ settled: true, result: { ok: true } }, { settled: true }]);
        // EVAL once per script Redis had forgotten, and the scripts are cached again.
        expect(await calls(io, 'eval')).toBe(evals + 3);
        const before = await calls(io, 'eval');
        await s.read(['a']);
        expect(await calls(io, 'eval')).toBe(before);
      });

      it('keeps values exactly (\\u0000, lone surrogates, any unicode) and keys apart that UTF-8 would merge', async () => {
        const s = store('values');
        const odd = { nul: 'a\u0000b', lone: '\uD800x\uDFFF', pair: '😀', mixed: ['\uDC00', { 'k\u0000\uD83D': 'é' }], n: -1.5e-7 };
        await s.claim([{ key: 'v', owner: 'A', leaseMs: 1000, data: odd }]);
        expect(await s.release('v', 'A', { why: '\uD83D' })).toBe(true);
        await s.claim([{ key: 'v', owner: 'A', leaseMs: 1000 }]);
        expect(await s.settle('v', 'A', { out: '\u0000\uDBFF' })).toBe(true);
        const [record] = await s.read(['v']);
        expect(record?.data).toEqual(odd);
        expect(record?.note).toEqual({ why: '\uD83D' });
        expect(record?.result).toEqual({ out: '\u0000\uDBFF' });
        // Two keys that differ only in their lone surrogates, and one that starts with `~`.
        const keys = ['x\uD800', 'x\uD801', 'x\uFFFD', '~78d800'];
        const claims = await s.claim(keys.map((key) => ({ key, owner: key, leaseMs: 60_000 })));
        expect(claims.map((c) => [c.state, c.record.owner, c.record.key])).toEqual(keys.map((key) => ['claimed', key, key]));
      });

      it(`writes under the prefix and keeps a record ttlMs after its last write (default 7 days)`, async () => {
        const s = store('ttl');
        await s.claim([{ key: 'k', owner: 'A', leaseMs: 1000 }]);
        expect(await io.exists(`${which}:ttl:k`)).toBe(1);
        const pttl = await io.pttl(`${which}:ttl:k`);
        expect(pttl).toBeGreaterThan(7 * 24 * HOUR_MS - 60_000);
        expect(pttl).toBeLessThanOrEqual(7 * 24 * HOUR_MS);
        const short = store('ttl', { ttlMs: 24 * HOUR_MS });
        expect(await short.settle('k', 'A')).toBe(true);
        expect(await io.pttl(`${which}:ttl:k`)).toBeLessThanOrEqual(24 * HOUR_MS);
        // A claim that changes nothing does not extend it.
        await io.pexpire(`${which}:ttl:k`, 10 * HOUR_MS * 24);
        expect((await store('ttl').claim([{ key: 'k', owner: 'B', leaseMs: 1000 }]))[0]?.state).toBe('settled');
        expect(await io.pttl(`${which}:ttl:k`)).toBeGreaterThan(9 * 24 * HOUR_MS);
      });

      it('lets exactly one of many simultaneous claims on two connections win', async () => {
        const a = redisStore(node, { prefix: `${which}:race:` });
        const b = redisStore(io, { prefix: `${which}:race:` });
        const answers = await Promise.all(
          Array.from({ length: 20 }, (_, i) => (i % 2 ? a : b).claim([{ key: 'k', owner: `o${i}`, leaseMs: 60_000 }])),
        );
        expect(answers.flat().filter((answer) => answer.state === 'claimed')).toHaveLength(1);
      });
    });
  }

  it('refuses a client it does not know, a ttlMs under 24 h and a bad timeoutMs or lease', async () => {
    expect(() => redisStore({ get() {} } as never)).toThrow(/node-redis .* or ioredis/);
    expect(() => redisStore(null as never)).toThrow(PaymentsError);
    // A cluster runs a script only when every key is in one slot: a claim of many keys is one script.
    expect(() => redisStore({ call() {}, status: 'ready', isCluster: true } as never)).toThrow(/Redis Cluster is not supported/);
    expect(() => redisStore({ sendCommand() {}, isOpen: true, getSlotMaster() {} } as never)).toThrow(/Redis Cluster is not supported/);
    expect(() => redisStore(io, { ttlMs: 24 * HOUR_MS - 1 })).toThrow(/ttlMs must be at least 86400000 \(24 h\)/);
    expect(() => redisStore(io, { timeoutMs: 0 })).toThrow(/timeoutMs/);
    expect(() => redisStore(io, { timeoutMs: 1.5 })).toThrow(/timeoutMs/);
    expect(() => redisStore(io, { prefix: 5 as never })).toThrow(/prefix/);
    for (const leaseMs of [Number.NaN, 0, 1.5]) {
      const error = await caught(redisStore(io).claim([{ key: 'k', owner: 'A', leaseMs }]));
      expect(error).toBeInstanceOf(PaymentsError);
      expect(error.message).toMatch(/leaseMs must be a positive integer/);
      expect(await caught(redisStore(io).renew('k', 'A', leaseMs))).toBeInstanceOf(PaymentsError);
    }
    expect((await caught(redisStore(io).claim([{ key: '', owner: 'A', leaseMs: 1 }]))).message).toMatch(/key must be a non-empty string/);
    expect((await caught(redisStore(io).claim([{ key: 'k', owner: '', leaseMs: 1 }]))).message).toMatch(/owner must be a non-empty string/);
  });
});

/**
 * A Redis that stops answering (SIGSTOP: connections stay open, nothing answers), or a client that
 * cannot send. Each case has a server of its own: a pause stops every client on it.
 */
describeRedis('redisStore when Redis does not answer', () => {
  const TIMEOUT = 300;
  /** Generous slack for a busy machine; still far below the clients' own waits (none, by default). */
  const BOUND = TIMEOUT + 1_500;
  const servers: RedisServer[] = [];
  const closers: Array<() => unknown> = [];

  afterAll(async () => {
    for (const close of closers) await close();
    await Promise.all(servers.map((server) => server.stop()));
  });

  async function server(): Promise<RedisServer> {
    const started = await startRedisServer();
    servers.push(started);
    return started;
  }

  /** A client with its DEFAULT settings (no command timeout: a command waits while the socket is up). */
  async function connect(which: 'node-redis' | 'ioredis', on: RedisServer): Promise<RedisStoreClient> {
    if (which === 'ioredis') {
      const client = new Redis(on.port, '127.0.0.1');
      client.on('error', () => {});
      closers.push(() => client.disconnect());
      return client;
    }
    const client = createClient({ url: on.url });
    client.on('error', () => {});
    await client.connect();
    closers.push(() => client.destroy());
    return client;
  }

  /** A redis-server on `port` again (the one there was stopped), and a connection to inspect it. */
  async function restartOn(port: number): Promise<Redis> {
    const child = spawn(findRedisServer() as string, ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], {
      stdio: 'ignore',
    });
    closers.push(() => child.kill('SIGKILL'));
    const check = new Redis(port, '127.0.0.1', { lazyConnect: true, retryStrategy: () => 50 });
    check.on('error', () => {});
    closers.push(() => check.disconnect());
    await vi.waitFor(() => check.ping(), { timeout: 5_000, interval: 50 });
    return check;
  }

  async function timed<T>(run: () => Promise<T>): Promise<{ error: unknown; ms: number }> {
    const started = performance.now();
    const error = await caught(run);
    return { error, ms: performance.now() - started };
  }

  for (const which of ['node-redis', 'ioredis'] as const) {
    describe(which, () => {
      it('SIGSTOPped: every call fails within timeoutMs, the claims that timed out never land, and calls work again after SIGCONT', async () => {
        const paused = await server();
        const s = redisStore(await connect(which, paused), { prefix: 'stuck:', timeoutMs: TIMEOUT });
        await s.claim([{ key: 'held', owner: 'A', leaseMs: 60_000 }]);
        paused.pause();
        try {
          const calls: Array<() => Promise<unknown>> = [
            () => s.claim([{ key: 'late', owner: 'A', leaseMs: 60_000 }]),
            () => s.settle('held', 'A', { late: true }),
            () => s.renew('held', 'A', 60_000),
            () => s.read(['held']),
          ];
          for (const call of calls) {
            const { error, ms } = await timed(call);
            expect(error).toBeInstanceOf(StoreTimeoutError);
            expect(error).toBeInstanceOf(PaymentsError);
            expect((error as Error).message).toMatch(new RegExp(`^redisStore: Redis did not answer the \\w+ within ${TIMEOUT} ms`));
            expect(ms).toBeLessThan(BOUND);
          }
        } finally {
          paused.resume();
        }
        // Redis runs the queued calls now, past their deadlines: none of them changes anything.
        const check = new Redis(paused.port, '127.0.0.1');
        try {
          await vi.waitFor(async () => expect((await s.claim([{ key: 'after', owner: 'A', leaseMs: 1000 }]))[0]?.state).toBe('claimed'), {
            timeout: 10_000,
            interval: 50,
          });
          expect(await check.exists('stuck:late')).toBe(0);
          expect(await check.hget('stuck:held', 's')).toBeNull();
          const [held, late] = await s.read(['held', 'late']);
          expect(held).toMatchObject({ owner: 'A', settled: false, claims: 1 });
          expect(late).toBeUndefined();
          expect(await s.settle('held', 'A', { ok: true })).toBe(true);
        } finally {
          check.disconnect();
        }
      });

      it('a client that is not open fails at once with a clear error', async () => {
        const on = await server();
        // ioredis: closed after use; node-redis: never connected.
        const client = which === 'ioredis' ? new Redis(on.port, '127.0.0.1') : createClient({ url: on.url });
        if (client instanceof Redis) await client.quit();
        const { error, ms } = await timed(() => redisStore(client).claim([{ key: 'k', owner: 'A', leaseMs: 1000 }]));
        expect(error).toBeInstanceOf(PaymentsError);
        expect((error as Error).message).toMatch(
          which === 'ioredis' ? /ioredis client is closed/ : /node-redis client is not open .*connect\(\)/,
        );
        expect(ms).toBeLessThan(200);
      });

      it('a server gone while the client reconnects (commands wait in its offline queue): fails within timeoutMs, and the queued claim never lands on the server that comes back', async () => {
        const gone = await server();
        const client = await connect(which, gone);
        const s = redisStore(client, { timeoutMs: TIMEOUT });
        await s.claim([{ key: 'k', owner: 'A', leaseMs: 1000 }]);
        await gone.stop();
        const { error, ms } = await timed(() => s.claim([{ key: 'queued', owner: 'A', leaseMs: 60_000 }]));
        expect(error).toBeInstanceOf(StoreTimeoutError);
        expect((error as Error).message).toMatch(
          /^redisStore: Redis did not answer the claim within 300 ms \(the (node-redis|ioredis) client is \w*connecting\)/,
        );
        expect(ms).toBeLessThan(BOUND);
        // A new server on the same port: the client reconnects and sends what it queued (an EVALSHA
        // this server has no script for, then the EVAL), past the deadline: refused.
        const back = await restartOn(gone.port);
        await vi.waitFor(async () => expect((await s.claim([{ key: 'after', owner: 'A', leaseMs: 1000 }]))[0]?.state).toBe('claimed'), {
          timeout: 10_000,
          interval: 50,
        });
        expect(await s.read(['queued', 'after'])).toEqual([undefined, expect.objectContaining({ owner: 'A', claims: 1 })]);
        expect(await back.exists('queued')).toBe(0);
      });
    });
  }
});
