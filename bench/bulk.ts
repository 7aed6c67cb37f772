/**
 * `npm run bench:bulk` (= `tsup --silent && node --expose-gc bench/bulk.ts`): the benchmarks of
 * `payouts.createMany`, on the BUILT package. Not part of `npm test`; figures go to BENCHMARKS.md
 * ("Bulk payouts").
 *
 * 1. rate limit: 10,000 payouts against the testing kit's mock with `rateLimit` R/s (default 200):
 *    the sustained rate once adapted (per 5 s window, after the first), as a ratio of R, and the
 *    share of requests answered 429.
 * 2. store: fileStore vs memoryStore throughput, interleaved rounds against the mock served over
 *    HTTP by a child process (the server's CPU is not the client's), answering at once (the worst
 *    case for the store) and after 30 ms (nearer a real service).
 * 3. memory: 100,000 rows from an async iterable (`skipInvalid: true`, streamed), against a `fetch`
 *    that answers at once and stores nothing: heap after GC every 10,000 rows, for a store that
 *    keeps nothing (the runner alone), memoryStore and fileStore.
 * 4. workers: the mock over HTTP in a child process behind a token bucket of R/s (default 100; a
 *    burst of R, then 429 with `Retry-After: 1` beyond it), answering after 30 ms: one worker, then
 *    4 workers on one batch (4 runners sharing one memoryStore in this process, then 4 processes
 *    sharing one redisStore, then 4 sharing one postgresStore): the sustained rate (per 5 s window,
 *    after the first) as a ratio of R. On the Redis of BENCH_REDIS_URL, or on a redis-server started
 *    here; on the Postgres of BENCH_PG_URL, or on a server started here.
 *
 *   BENCH_ONLY=rate,store,memory,workers   BENCH_QUICK=1 (fewer rows and rounds)   BENCH_RATE=200
 *   BENCH_REDIS_URL=redis://127.0.0.1:6379 (a Redis the bench may write keys under bench-bulk: into)
 */
import { type ChildProcess, fork, spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PaymentsClient } from 'payments-sdk';
import { fileStore, memoryStore, postgresStore, redisStore, type Store } from 'payments-sdk/stores';
import { createMockService } from 'payments-sdk/testing';
import pg from 'pg';
import { createClient } from 'redis';

const QUICK = process.env.BENCH_QUICK === '1';
const ONLY = new Set((process.env.BENCH_ONLY ?? 'rate,store,memory,workers').split(','));
const RATE = Number(process.env.BENCH_RATE ?? 200);
const gc = (globalThis as { gc?: () => void }).gc;

const row = (i: number) => ({
  amount: 1000 + (i % 100_000),
  currency: 'XOF',
  destination: { type: 'mobile_money', country: 'SEN', provider: 'orange', phone: '221771234567' },
  reference: `emp-${i}`,
});
function* rows(n: number) {
  for (let i = 0; i < n; i++) yield row(i);
}

function median(values: number[]): number {
  const s = [...values].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? (s[m] as number) : ((s[m - 1] as number) + (s[m] as number)) / 2;
}
const fmt = (x: number, d = 3) => x.toFixed(d);

// ------------------------------------------------------------------ child: the mock over HTTP
if (process.argv[2] === '--serve') {
  // The mock over HTTP, each answer held `latency` ms (a real service takes tens of ms or more),
  // behind a token bucket of `limit` requests a second when given (a burst of `limit`, then 429
  // with Retry-After: 1 beyond it).
  const latency = Number(process.argv[3] ?? 0);
  const limit = Number(process.argv[4] ?? 0);
  const mock = createMockService();
  mock.seed({ wallets: [{ currency: 'XOF', balance: Number.MAX_SAFE_INTEGER }] }, { apiKey: mock.liveApiKey });
  let tokens = limit;
  let filledAt = performance.now();
  const take = (): boolean => {
    const now = performance.now();
    tokens = Math.min(limit, tokens + ((now - filledAt) / 1000) * limit);
    filledAt = now;
    if (tokens < 1) return false;
    tokens -= 1;
    return true;
  };
  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    if (latency > 0) await new Promise((resolve) => setTimeout(resolve, latency));
    if (limit > 0 && req.method === 'POST' && !take()) {
      res.writeHead(429, { 'content-type': 'application/json', 'retry-after': '1' }).end('{"message":"Trop de requêtes."}');
      return;
    }
    const headers = new Headers();
    for (const [name, value] of Object.entries(req.headers)) if (typeof value === 'string') headers.set(name, value);
    const answer = await mock.fetch(`${mock.baseUrl}${req.url}`, {
      method: req.method,
      headers,
      body: req.method === 'POST' ? Buffer.concat(chunks) : undefined,
    });
    res.writeHead(answer.status, { 'content-type': 'application/json' }).end(await answer.text());
  });
  server.listen(0, '127.0.0.1', () =>
    process.send?.({ url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, key: mock.liveApiKey }),
  );
  process.on('disconnect', () => {
    server.close();
    server.closeAllConnections();
  });
} else if (process.argv[2] === '--worker') {
  // child: one worker on a redisStore or a postgresStore, by the URL's scheme (see workersRun)
  const [storeUrl, base, key, batchId, n] = process.argv.slice(3) as [string, string, string, string, string];
  if (storeUrl.startsWith('postgres')) {
    const pool = new pg.Pool({ connectionString: storeUrl, max: 4 });
    pool.on('error', () => {});
    const result = await runWorker(base, key, batchId, Number(n), postgresStore(pool, { table: 'bench_bulk' }));
    await pool.end();
    process.send?.(result, () => process.disconnect());
  } else {
    const redis = await createClient({ url: storeUrl }).connect();
    const result = await runWorker(base, key, batchId, Number(n), redisStore(redis, { prefix: 'bench-bulk:' }));
    await redis.close();
    process.send?.(result, () => process.disconnect());
  }
} else {
  await main();
}

async function main() {
  console.log(`node ${process.version}, ${QUICK ? 'QUICK' : 'full'} run`);
  if (ONLY.has('rate')) await rateLimit();
  if (ONLY.has('store')) {
    await storeOverhead(0);
    await storeOverhead(30);
  }
  if (ONLY.has('memory')) await memory();
  if (ONLY.has('workers')) await sharedWorkers();
}

async function rateLimit() {
  const n = QUICK ? 3000 : 10_000;
  const mock = createMockService({ rateLimit: { requests: RATE, perMs: 1000 } });
  mock.seed({ wallets: [{ currency: 'XOF', balance: Number.MAX_SAFE_INTEGER }] }, { apiKey: mock.liveApiKey });
  let requests = 0;
  const client = new PaymentsClient({
    apiKey: mock.liveApiKey as string,
    baseUrl: mock.baseUrl,
    fetch: (input, init) => {
      requests++;
      return mock.fetch(input, init);
    },
  });
  const started = performance.now();
  const marks: number[] = [];
  const concurrency: number[] = [];
  const summary = await client.payouts
    .createMany(rows(n), {
      batchId: `rate-${Date.now()}`,
      concurrency: 16,
      onProgress: (p) => {
        marks.push(performance.now() - started);
        concurrency.push(p.concurrency);
      },
    })
    .summary();
  const seconds = (performance.now() - started) / 1000;
  // Completions per 5 s window, after the first (adaptation).
  const windows: number[] = [];
  for (let t = 5000; t + 5000 <= seconds * 1000; t += 5000) windows.push(marks.filter((m) => m >= t && m < t + 5000).length / 5 / RATE);
  const throttled = mock.throttledCount / requests;
  console.log(`\n## rate limit: ${n} payouts, mock at R = ${RATE}/s, concurrency max 16`);
  console.log(`summary ${JSON.stringify(summary)}`);
  console.log(`whole run: ${fmt(n / seconds / RATE)} of R (${fmt(n / seconds, 1)}/s over ${fmt(seconds, 1)} s)`);
  console.log(
    `sustained after 5 s, per 5 s window: median ${fmt(median(windows))} of R, min ${fmt(Math.min(...windows))}, max ${fmt(Math.max(...windows))} (${windows.length} windows)`,
  );
  console.log(`429s: ${mock.throttledCount} of ${requests} requests = ${fmt(throttled * 100, 2)} %`);
  console.log(`concurrency seen: min ${Math.min(...concurrency)}, median ${median(concurrency)}, max ${Math.max(...concurrency)}`);
}

async function storeOverhead(latency: number) {
  const rounds = QUICK ? 3 : 7;
  const n = (QUICK ? 1000 : 2000) / (latency > 0 ? 4 : 1);
  const server = fork(new URL(import.meta.url), ['--serve', String(latency)], { stdio: 'inherit', execArgv: [] });
  const { url, key } = await new Promise<{ url: string; key: string }>((resolve) => server.once('message', (m) => resolve(m as never)));
  const dir = await mkdtemp(join(tmpdir(), 'bench-bulk-'));
  const client = new PaymentsClient({ apiKey: key, baseUrl: url });
  const run = async (kind: 'memory' | 'file', round: number) => {
    const store = kind === 'file' ? fileStore(join(dir, `${kind}-${round}.store`)) : memoryStore();
    const started = performance.now();
    const s = await client.payouts.createMany(rows(n), { batchId: `s-${kind}-${round}-${Date.now()}`, store, concurrency: 8 }).summary();
    await store.close?.();
    if (s.created !== n) throw new Error(`round ${round} ${kind}: ${JSON.stringify(s)}`);
    return n / ((performance.now() - started) / 1000);
  };
  // Warm-up, then interleaved rounds, alternating which goes first.
  await run('memory', -1);
  await run('file', -1);
  const ratios: number[] = [];
  const mem: number[] = [];
  const file: number[] = [];
  for (let r = 0; r < rounds; r++) {
    const order: Array<'memory' | 'file'> = r % 2 ? ['file', 'memory'] : ['memory', 'file'];
    const got: Record<string, number> = {};
    for (const kind of order) got[kind] = await run(kind, r);
    mem.push(got.memory as number);
    file.push(got.file as number);
    ratios.push((got.file as number) / (got.memory as number));
  }
  server.disconnect();
  await rm(dir, { recursive: true, force: true });
  console.log(
    `\n## store: ${n} payouts per round, concurrency 8, mock over HTTP in another process answering after ${latency} ms, ${rounds} interleaved rounds`,
  );
  console.log(`memoryStore: median ${fmt(median(mem), 0)} payouts/s (min ${fmt(Math.min(...mem), 0)}, max ${fmt(Math.max(...mem), 0)})`);
  console.log(`fileStore:   median ${fmt(median(file), 0)} payouts/s (min ${fmt(Math.min(...file), 0)}, max ${fmt(Math.max(...file), 0)})`);
  console.log(`file / memory: median ${fmt(median(ratios))}, min ${fmt(Math.min(...ratios))}, max ${fmt(Math.max(...ratios))}`);
}

async function memory() {
  if (!gc) throw new Error('Run with --expose-gc (npm run bench:bulk does).');
  const n = QUICK ? 30_000 : 100_000;
  const body = JSON.stringify({ data: { id: 'po_1', amount: 1000, currency: 'XOF', status: 'pending_approval' } });
  const client = new PaymentsClient({
    apiKey: 'sk_live_bench',
    baseUrl: 'http://127.0.0.1:9',
    fetch: async () => new Response(body, { status: 201, headers: { 'content-type': 'application/json' } }),
  });
  const dir = await mkdtemp(join(tmpdir(), 'bench-bulk-mem-'));
  const keepsNothing: Store = {
    kind: 'nothing',
    claim: async (requests) => requests.map((r) => ({ state: 'claimed', record: { key: r.key, claims: 1, age: 0, settled: false } })),
    renew: async () => true,
    settle: async () => true,
    release: async () => true,
    read: async (keys) => keys.map(() => undefined),
  };
  console.log(`\n## memory: ${n} rows from an async iterable (streamed with skipInvalid), heap after GC`);
  for (const [name, store] of [
    ['a store keeping nothing (the runner alone)', keepsNothing],
    ['memoryStore', memoryStore({ maxKeys: 1_000_000 })],
    ['fileStore', fileStore(join(dir, 'mem.store'))],
  ] as const) {
    async function* source() {
      for (let i = 0; i < n; i++) yield row(i);
    }
    gc();
    const base = process.memoryUsage().heapUsed;
    const samples: number[] = [];
    const started = performance.now();
    await client.payouts
      .createMany(source(), {
        batchId: `mem-${name}`,
        key: (r) => r.reference,
        store,
        skipInvalid: true,
        concurrency: 16,
        onProgress: (p) => {
          if (p.done % (n / 10) === 0) {
            gc();
            samples.push(process.memoryUsage().heapUsed - base);
          }
        },
      })
      .summary();
    await store.close?.();
    const seconds = (performance.now() - started) / 1000;
    // From the 10 % mark to the 90 % one: both while the source is still open (at 100 % it may
    // have ended, and what the run held for it with it).
    const first = samples[0] as number;
    const last = samples[8] as number;
    const perRow = (last - first) / (0.8 * n);
    console.log(
      `${name}: heap +${fmt(first / 1e6, 1)} MB at ${n / 10} rows, +${fmt(last / 1e6, 1)} MB at ${(9 * n) / 10}; growth ${fmt(perRow, 0)} B/row (${fmt(n / seconds, 0)} rows/s)`,
    );
  }
  const rowBytes = Buffer.byteLength(JSON.stringify(row(12345)));
  console.log(
    `(for scale: one row is ${rowBytes} B as JSON; holding ${n} rows would take several times ${fmt((rowBytes * n) / 1e6, 1)} MB of heap)`,
  );
  await rm(dir, { recursive: true, force: true });
}

async function sharedWorkers() {
  const rate = Number(process.env.BENCH_RATE ?? 100);
  const n = rate * (QUICK ? 15 : 40);
  const redis = process.env.BENCH_REDIS_URL ? { url: process.env.BENCH_REDIS_URL, stop: () => {} } : await startRedis();
  try {
    console.log(`\n## workers: ${n} payouts, mock over HTTP behind a token bucket of R = ${rate}/s, answering after 30 ms`);
    await workersRun(n, rate, 1, 'one worker, memoryStore', { store: () => memoryStore() });
    const shared = memoryStore();
    await workersRun(n, rate, 4, '4 runners sharing one memoryStore in this process', { store: () => shared });
    await workersRun(n, rate, 4, '4 processes sharing one redisStore', { storeUrl: redis.url });
    // The Postgres of BENCH_PG_URL, or a server of its own (bench/postgres-server.ts).
    const { startBenchPostgres } = (await import(
      new URL('./postgres-server.ts', import.meta.url).href
    )) as typeof import('./postgres-server.js');
    const postgres = await startBenchPostgres();
    try {
      const admin = new pg.Pool({ connectionString: postgres.url, max: 1 });
      await postgresStore(admin, { table: 'bench_bulk' }).migrate();
      await admin.end();
      await workersRun(n, rate, 4, '4 processes sharing one postgresStore', { storeUrl: postgres.url });
    } finally {
      await postgres.stop();
    }
  } finally {
    redis.stop();
  }
}

/** A redis-server of its own on a free port, without persistence. */
async function startRedis(): Promise<{ url: string; stop(): void }> {
  const port = await new Promise<number>((resolve) => {
    const probe = createServer().listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as AddressInfo;
      probe.close(() => resolve(port));
    });
  });
  const child: ChildProcess = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], {
    stdio: 'ignore',
  });
  const url = `redis://127.0.0.1:${port}`;
  for (let tries = 0; ; tries++) {
    try {
      const probe = await createClient({ url }).connect();
      await probe.close();
      return { url, stop: () => child.kill() };
    } catch (error) {
      if (tries > 100) throw error;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
}

/** What one worker does: runs the batch, and reports when each row it sent was answered. */
async function runWorker(base: string, key: string, batchId: string, n: number, store: Store<unknown, unknown>) {
  const client = new PaymentsClient({ apiKey: key, baseUrl: base });
  const batch = client.payouts.createMany(rows(n), { batchId, key: (r) => r.reference, store, concurrency: 8 });
  const marks: number[] = [];
  for await (const r of batch) if (r.status === 'created' || r.status === 'replayed') marks.push(Date.now());
  return { marks, summary: await batch.summary() };
}

async function workersRun(
  n: number,
  rate: number,
  workers: number,
  name: string,
  where: { store: () => Store } | { storeUrl: string },
  limit = rate,
) {
  // Each answer held 30 ms, nearer a real service; the limit is the service's own (0: none).
  const server = fork(new URL(import.meta.url), ['--serve', '30', String(limit)], { stdio: 'inherit', execArgv: [] });
  const { url: base, key } = await new Promise<{ url: string; key: string }>((resolve) =>
    server.once('message', (m) => resolve(m as never)),
  );
  const batchId = `workers-${Date.now()}`;
  const started = Date.now();
  const results = await Promise.all(
    Array.from({ length: workers }, async () => {
      if ('store' in where) return runWorker(base, key, batchId, n, where.store());
      // A worker of its own, as on another machine: its own process, event loop and store connection.
      const child = fork(new URL(import.meta.url), ['--worker', where.storeUrl, base, key, batchId, String(n)], {
        stdio: 'inherit',
        execArgv: [],
      });
      return new Promise<Awaited<ReturnType<typeof runWorker>>>((resolve, reject) => {
        child.once('message', (m) => resolve(m as never));
        child.once('exit', (code) => reject(new Error(`worker exited with ${code}`)));
      });
    }),
  );
  const elapsed = (Date.now() - started) / 1000;
  server.disconnect();
  const summaries = results.map((r) => r.summary);
  const marks = results.flatMap((r) => r.marks.map((at) => at - started));
  const sent = summaries.reduce((sum, s) => sum + s.created + s.replayed, 0);
  if (sent !== n) throw new Error(`${name}: ${sent} rows sent for ${n}: ${JSON.stringify(summaries)}`);
  const windows: number[] = [];
  for (let t = 5000; t + 5000 <= elapsed * 1000; t += 5000) windows.push(marks.filter((m) => m >= t && m < t + 5000).length / 5 / rate);
  console.log(`${name}: rows sent by each worker ${summaries.map((s) => s.created + s.replayed).join(', ')}`);
  console.log(`  whole run: ${fmt(n / elapsed / rate)} of R (${fmt(n / elapsed, 1)}/s over ${fmt(elapsed, 1)} s)`);
  if (windows.length > 0) {
    console.log(
      `  per 5 s window after the first: median ${fmt(median(windows))} of R, min ${fmt(Math.min(...windows))}, max ${fmt(Math.max(...windows))}`,
    );
  }
}
