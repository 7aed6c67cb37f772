/**
 * `npm run bench` (= `tsup --silent && node --expose-gc bench/run.ts`): the benchmarks of issue 7,
 * on the BUILT package (`payments-sdk` resolves through package.json `exports` to dist/).
 *
 * Method (BENCHMARKS.md): this machine is shared and noisy, so every comparison is measured side
 * by side in one run, interleaved (A B C, B C A, C A B, … so no variant always goes first), after
 * warm-up rounds, and reported as medians; ratios are the median of per-round ratios (paired, so
 * a slow patch of the machine hits both sides of a ratio alike). The loopback server runs in its
 * own process (bench/server.ts, forked). Not part of `npm test`.
 *
 *   BENCH_ONLY=overhead,pagination,webhooks,import   run a subset
 *   BENCH_QUICK=1                                    fewer rounds (a smoke run; figures are noisier)
 *
 * Prints a table per benchmark and writes bench/results.json.
 */
import { fork, spawnSync } from 'node:child_process';
import { createHmac, timingSafeEqual } from 'node:crypto';
import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import os from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import ky from 'ky';
import { type Page, PaymentsClient } from 'payments-sdk';
import { PaymentSchema } from 'payments-sdk/schemas';
import { signWebhookPayload, verifyWebhook } from 'payments-sdk/webhooks';

const root = fileURLToPath(new URL('..', import.meta.url));
const QUICK = process.env.BENCH_QUICK === '1';
const ONLY = new Set((process.env.BENCH_ONLY ?? 'overhead,pagination,webhooks,import').split(',').map((s) => s.trim()));
const API_KEY = 'sk_test_bench_0123456789abcdef';
const { UUID, webhookEventBody: eventBody } = (await import(
  new URL('./fixtures.ts', import.meta.url).href
)) as typeof import('./fixtures.js');

const exposedGc = (globalThis as { gc?: () => void }).gc;
if (!exposedGc) throw new Error('Run with --expose-gc (npm run bench does).');
const gc: () => void = exposedGc;

// ---------------------------------------------------------------------------------------------
// Statistics and reporting

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? (sorted[mid] as number) : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
}

function quantile(values: number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  const pos = (sorted.length - 1) * q;
  const lo = Math.floor(pos);
  const hi = Math.ceil(pos);
  return (sorted[lo] as number) + ((sorted[hi] as number) - (sorted[lo] as number)) * (pos - lo);
}

/** Median of the per-round ratios a[i] / b[i]. */
function pairedRatio(a: number[], b: number[]): number {
  return median(a.map((value, i) => value / (b[i] as number)));
}

const round = (value: number, digits = 2) => Number(value.toFixed(digits));

/** Everything printed, kept for the "Last figures" section of BENCHMARKS.md. */
const printed: string[] = [];
function say(text: string): void {
  console.log(text);
  printed.push(text);
}

function printTable(title: string, rows: Record<string, string | number>[]): void {
  const headers = Object.keys(rows[0] ?? {});
  const cells = rows.map((row) => headers.map((h) => String(row[h] ?? '')));
  const widths = headers.map((h, i) => Math.max(h.length, ...cells.map((c) => (c[i] as string).length)));
  const line = (values: string[]) => `| ${values.map((v, i) => v.padEnd(widths[i] as number)).join(' | ')} |`;
  say(`\n${title}\n`);
  say(line(headers));
  say(`|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`);
  for (const c of cells) say(line(c));
}

type Metrics = Record<string, number>;

/**
 * Runs each variant once per round, rotating the order every round, and keeps the metrics of
 * the rounds after `warmup`.
 */
async function interleave<K extends string>(
  variants: Record<K, () => Promise<Metrics>>,
  rounds: number,
  warmup: number,
): Promise<Record<K, Metrics[]>> {
  const names = Object.keys(variants) as K[];
  const out = Object.fromEntries(names.map((name) => [name, [] as Metrics[]])) as Record<K, Metrics[]>;
  for (let r = 0; r < warmup + rounds; r++) {
    const order = names.map((_, i) => names[(i + r) % names.length] as K);
    for (const name of order) {
      const metrics = await variants[name]();
      if (r >= warmup) out[name].push(metrics);
    }
  }
  return out;
}

const series = (samples: Metrics[], key: string) => samples.map((m) => m[key] as number);

// ---------------------------------------------------------------------------------------------
// The loopback server, in its own process

async function startServer(): Promise<{ origin: string; pageBytes: number; singleBytes: number; stop: () => void }> {
  const child = fork(fileURLToPath(new URL('./server.ts', import.meta.url)), [], {
    execArgv: [],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const ready = await new Promise<{ port: number; pageBytes: number; singleBytes: number }>((resolve, reject) => {
    child.once('message', (message) => resolve(message as { port: number; pageBytes: number; singleBytes: number }));
    child.once('exit', (code) => reject(new Error(`bench server exited with ${code}`)));
  });
  return {
    origin: `http://127.0.0.1:${ready.port}`,
    pageBytes: ready.pageBytes,
    singleBytes: ready.singleBytes,
    stop: () => child.disconnect(),
  };
}

// ---------------------------------------------------------------------------------------------
// 1. Per-request overhead

/** Reference only: the least a Node client can do, a keep-alive `http.request`, the body read, JSON.parse. */
function httpGetJson(url: string, headers: Record<string, string>): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { headers }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        text += chunk;
      });
      res.on('end', () => {
        try {
          resolve(JSON.parse(text));
        } catch (error) {
          reject(error);
        }
      });
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

async function benchOverhead(origin: string) {
  const batch = QUICK ? 100 : 300;
  const rounds = QUICK ? 5 : 20;
  const warmup = 3;
  const url = `${origin}/api/v1/payments/${UUID}`;
  const headers = { authorization: `Bearer ${API_KEY}`, accept: 'application/json' };
  const client = new PaymentsClient({ apiKey: API_KEY, baseUrl: origin });
  // The same SDK made to take its fetch exchange (what it does when given a fetch, and on Bun, Deno, edge).
  const fetchClient = new PaymentsClient({ apiKey: API_KEY, baseUrl: origin, fetch: (input, init) => fetch(input, init) });
  const kyClient = ky.create({ headers });

  /** Times `batch` sequential requests: wall µs and client-process CPU µs per request. */
  const timed = (one: () => Promise<unknown>) => async (): Promise<Metrics> => {
    const cpu0 = process.cpuUsage();
    const t0 = performance.now();
    for (let i = 0; i < batch; i++) await one();
    const wall = ((performance.now() - t0) * 1000) / batch;
    const cpu = process.cpuUsage(cpu0);
    return { wall, cpu: (cpu.user + cpu.system) / batch };
  };

  /**
   * Reference only, not a proposal: the least any client must do for this call without ky — its
   * headers, a per-attempt timeout signal, the body read, JSON.parse and the zod check of the
   * payment. The distance from here to the SDK is what ky and the SDK's own layers cost.
   */
  const floor = (fetchImpl: typeof fetch, target: string) => async () => {
    const requestHeaders = new Headers(headers);
    requestHeaders.set('user-agent', 'payments-sdk/bench');
    const response = await fetchImpl(target, { headers: requestHeaders, signal: AbortSignal.timeout(30_000) });
    const text = await response.text();
    if (!response.ok) throw new Error(`status ${response.status}`);
    const checked = PaymentSchema.safeParse((JSON.parse(text) as { data: unknown }).data);
    if (!checked.success) throw new Error('bad shape');
    return checked.data;
  };

  const results = await interleave(
    {
      raw: timed(async () => {
        const response = await fetch(url, { headers });
        if (!response.ok) throw new Error(`status ${response.status}`);
        return JSON.parse(await response.text());
      }),
      ky: timed(() => kyClient.get(url).json()),
      sdk: timed(() => client.payments.retrieve(UUID)),
      sdkFetch: timed(() => fetchClient.payments.retrieve(UUID)),
      floor: timed(floor(fetch, url)),
      http: timed(() => httpGetJson(url, headers)),
    },
    rounds,
    warmup,
  );

  const labels = {
    raw: 'fetch + JSON.parse',
    ky: 'ky alone',
    sdk: 'SDK payments.retrieve (node:http, the default on Node)',
    sdkFetch: 'SDK payments.retrieve over fetch (fetch option)',
    floor: 'reference: fetch + timeout + zod, no ky',
    http: 'reference: http.request + JSON.parse',
  };
  type Name = keyof typeof labels;
  const row = (name: Name, samples: Record<Name, Metrics[]>) => ({
    client: labels[name],
    'µs/req (median)': round(median(series(samples[name], 'wall')), 1),
    'p25–p75': `${round(quantile(series(samples[name], 'wall'), 0.25), 1)}–${round(quantile(series(samples[name], 'wall'), 0.75), 1)}`,
    'client CPU µs/req': round(median(series(samples[name], 'cpu')), 1),
    'wall ratio vs raw': round(pairedRatio(series(samples[name], 'wall'), series(samples.raw, 'wall')), 3),
    'CPU ratio vs raw': round(pairedRatio(series(samples[name], 'cpu'), series(samples.raw, 'cpu')), 3),
  });
  const names: Name[] = ['raw', 'ky', 'sdk', 'sdkFetch', 'floor', 'http'];
  const rows = names.map((name) => row(name, results));
  printTable(
    `1a. Per-request overhead: ${batch} sequential GETs per sample, ${rounds} rounds (+${warmup} warm-up), keep-alive loopback`,
    rows,
  );
  const ratio = pairedRatio(series(results.sdk, 'wall'), series(results.raw, 'wall'));
  const fetchRatio = pairedRatio(series(results.sdkFetch, 'wall'), series(results.raw, 'wall'));
  say(
    `\nSDK/raw wall ratio ${round(ratio, 3)} (goal ≤ 1.15): ${ratio <= 1.15 ? 'met' : 'MISSED'}; ` +
      `over fetch ${round(fetchRatio, 3)}: ${fetchRatio <= 1.15 ? 'met' : 'MISSED'}`,
  );

  // 1b. The network taken out: the same calls answered by a fetch stub, so only client CPU is left.
  const body = await (await fetch(url, { headers })).text();
  const stub: typeof fetch = async () => new Response(body, { status: 200, headers: { 'content-type': 'application/json' } });
  const stubUrl = `${origin}/api/v1/payments/${UUID}`;
  const stubClient = new PaymentsClient({ apiKey: API_KEY, baseUrl: origin, fetch: stub });
  const stubKy = ky.create({ headers, fetch: stub });
  const stubBatch = QUICK ? 500 : 2_000;
  const stubTimed = (one: () => Promise<unknown>) => async (): Promise<Metrics> => {
    const t0 = performance.now();
    for (let i = 0; i < stubBatch; i++) await one();
    const us = ((performance.now() - t0) * 1000) / stubBatch;
    return { wall: us, cpu: us };
  };
  const stubbed = await interleave(
    {
      raw: stubTimed(async () => JSON.parse(await (await stub(stubUrl, { headers })).text())),
      ky: stubTimed(() => stubKy.get(stubUrl).json()),
      sdk: stubTimed(() => stubClient.payments.retrieve(UUID)),
      floor: stubTimed(floor(stub, stubUrl)),
    },
    rounds,
    warmup,
  );
  // A fetch stub can only stand in for fetch: the SDK row here is its fetch exchange.
  const stubNames: (keyof typeof stubbed)[] = ['raw', 'ky', 'sdk', 'floor'];
  const stubRows = stubNames.map((name) => ({
    client: name === 'sdk' ? 'SDK payments.retrieve (its fetch exchange, given the stub)' : labels[name],
    'µs/call (median)': round(median(series(stubbed[name], 'wall')), 1),
    'p25–p75': `${round(quantile(series(stubbed[name], 'wall'), 0.25), 1)}–${round(quantile(series(stubbed[name], 'wall'), 0.75), 1)}`,
    'minus stub baseline': round(median(series(stubbed[name], 'wall')) - median(series(stubbed.raw, 'wall')), 1),
  }));
  printTable(
    `1b. Client CPU per call with the network taken out (fetch stub answering the same body), ${stubBatch} calls per sample`,
    stubRows,
  );

  return {
    batch,
    rounds,
    warmup,
    rows,
    stubRows,
    sdkOverRaw: round(ratio, 3),
    sdkOverFetchOverRaw: round(fetchRatio, 3),
    goal: 1.15,
    met: ratio <= 1.15,
    samples: { network: results, stubbed },
  };
}

// ---------------------------------------------------------------------------------------------
// 2. Pagination

/** The prefetch experiment (benchmark only): request page N+1 as soon as page N is in hand. */
async function* prefetchingPages<T>(first: PromiseLike<Page<T>>): AsyncGenerator<Page<T>> {
  let page = await first;
  for (;;) {
    const next = page.hasNextPage() ? page.getNextPage() : undefined;
    yield page;
    if (!next) return;
    page = await next;
  }
}

async function benchPagination(origin: string) {
  const total = 100_000;
  const headers = { authorization: `Bearer ${API_KEY}`, accept: 'application/json' };
  const client = new PaymentsClient({ apiKey: API_KEY, baseUrl: origin });
  const fetchClient = new PaymentsClient({ apiKey: API_KEY, baseUrl: origin, fetch: (input, init) => fetch(input, init) });
  const first = `${origin}/api/v1/payments?per_page=100`;

  /**
   * `work`: what the merchant does per page (nothing, or 1 ms of awaited I/O such as a DB write).
   * `delayMs`: how late the server answers each page (0, or a simulated network round trip).
   */
  const walks = (work: boolean, delayMs = 0) => {
    const sent = delayMs > 0 ? { ...headers, 'x-bench-delay-ms': String(delayMs) } : headers;
    const options = delayMs > 0 ? { headers: { 'x-bench-delay-ms': String(delayMs) } } : {};
    /** The SDK's `.pages()` walk, on the client given (its node:http exchange, or its fetch one). */
    const pagesOf = (sdk: PaymentsClient) => async () => {
      let items = 0;
      for await (const page of sdk.payments.list({ per_page: 100 }, options).pages()) {
        items += page.data.length;
        if (work) await sleep(1);
      }
      return items;
    };
    return {
      raw: async () => {
        let items = 0;
        let url: string | null = first;
        while (url) {
          const response: Response = await fetch(url, { headers: sent });
          if (!response.ok) throw new Error(`status ${response.status}`);
          const body = JSON.parse(await response.text()) as { data: unknown[]; links: { next: string | null } };
          items += body.data.length;
          if (work) await sleep(1);
          url = body.links.next;
        }
        return items;
      },
      sdk: pagesOf(client),
      sdkFetch: pagesOf(fetchClient),
      sdkItems: async () => {
        let items = 0;
        for await (const _payment of client.payments.list({ per_page: 100 }, options)) {
          items++;
          if (work && items % 100 === 0) await sleep(1);
        }
        return items;
      },
      prefetch: async () => {
        let items = 0;
        for await (const page of prefetchingPages(client.payments.list({ per_page: 100 }, options))) {
          items += page.data.length;
          if (work) await sleep(1);
        }
        return items;
      },
    };
  };

  const timedWalk = (walk: () => Promise<number>) => async (): Promise<Metrics> => {
    const cpu0 = process.cpuUsage();
    const t0 = performance.now();
    const items = await walk();
    if (items !== total) throw new Error(`walked ${items} items, expected ${total}`);
    const cpu = process.cpuUsage(cpu0);
    return { ms: performance.now() - t0, cpuMs: (cpu.user + cpu.system) / 1000 };
  };

  // Timing: no gc() calls inside (they would be timed).
  const plain = walks(false);
  const rounds = QUICK ? 2 : 9;
  const timing = await interleave(
    {
      raw: timedWalk(plain.raw),
      sdk: timedWalk(plain.sdk),
      sdkItems: timedWalk(plain.sdkItems),
      sdkFetch: timedWalk(plain.sdkFetch),
      prefetch: timedWalk(plain.prefetch),
    },
    rounds,
    1,
  );
  const busy = walks(true);
  const busyRounds = QUICK ? 1 : 3;
  const timingWork = await interleave(
    { raw: timedWalk(busy.raw), sdk: timedWalk(busy.sdk), prefetch: timedWalk(busy.prefetch) },
    busyRounds,
    1,
  );

  const labels: Record<string, string> = {
    raw: 'naive raw fetch loop',
    sdk: 'SDK .pages() (node:http, the default on Node)',
    sdkItems: 'SDK for await items (node:http)',
    sdkFetch: 'SDK .pages() over fetch (fetch option)',
    prefetch: 'SDK + prefetch (bench-only experiment)',
  };
  const timeRow = (name: string, samples: Record<string, Metrics[]>, base: Metrics[]) => ({
    walk: labels[name] as string,
    'wall ms (median)': round(median(series(samples[name] as Metrics[], 'ms')), 0),
    'min–max': `${round(Math.min(...series(samples[name] as Metrics[], 'ms')), 0)}–${round(Math.max(...series(samples[name] as Metrics[], 'ms')), 0)}`,
    'client CPU ms': round(median(series(samples[name] as Metrics[], 'cpuMs')), 0),
    'ratio vs raw': round(pairedRatio(series(samples[name] as Metrics[], 'ms'), series(base, 'ms')), 3),
  });
  const rows = Object.keys(timing).map((name) => timeRow(name, timing, timing.raw));
  printTable(`2a. Pagination: 100,000 payments, 1,000 pages of 100, consumer does nothing; ${rounds} rounds (+1 warm-up)`, rows);
  const rowsWork = Object.keys(timingWork).map((name) => timeRow(name, timingWork, timingWork.raw));
  printTable(`2b. Same walk, consumer awaits 1 ms of I/O per page (a DB write); ${busyRounds} rounds (+1 warm-up)`, rowsWork);
  const far = walks(false, 2);
  const timingFar = await interleave(
    { raw: timedWalk(far.raw), sdk: timedWalk(far.sdk), prefetch: timedWalk(far.prefetch) },
    busyRounds,
    1,
  );
  const rowsFar = Object.keys(timingFar).map((name) => timeRow(name, timingFar, timingFar.raw));
  printTable(
    `2d. Same walk, consumer does nothing, the server answers each page 2 ms late (a network round trip); ${busyRounds} rounds (+1 warm-up)`,
    rowsFar,
  );

  // Memory: heapUsed after a full gc() every 100 pages (10,000 items).
  const heapWalk = async (name: 'raw' | 'sdk' | 'prefetch') => {
    gc();
    const base = process.memoryUsage().heapUsed;
    const samples: number[] = [];
    const sample = () => {
      gc();
      samples.push(process.memoryUsage().heapUsed - base);
    };
    let items = 0;
    if (name === 'raw') {
      let url: string | null = first;
      while (url) {
        const response: Response = await fetch(url, { headers });
        const body = JSON.parse(await response.text()) as { data: unknown[]; links: { next: string | null } };
        items += body.data.length;
        if (items % 10_000 === 0) sample();
        url = body.links.next;
      }
    } else {
      const iterable =
        name === 'sdk' ? client.payments.list({ per_page: 100 }).pages() : prefetchingPages(client.payments.list({ per_page: 100 }));
      for await (const page of iterable) {
        items += page.data.length;
        if (items % 10_000 === 0) sample();
      }
    }
    // Least-squares slope over the samples: growth per 100 pages once the walk is under way.
    const xs = samples.map((_, i) => i);
    const mx = median(xs);
    const my = samples.reduce((a, b) => a + b, 0) / samples.length;
    const slope =
      xs.reduce((acc, x, i) => acc + (x - mx) * ((samples[i] as number) - my), 0) / xs.reduce((acc, x) => acc + (x - mx) ** 2, 0);
    return {
      samplesMB: samples.map((b) => round(b / 1e6, 2)),
      maxGrowthMB: round(Math.max(...samples) / 1e6, 2),
      slopeKBPer100Pages: round(slope / 1e3, 1),
    };
  };
  const memory = { raw: await heapWalk('raw'), sdk: await heapWalk('sdk'), prefetch: await heapWalk('prefetch') };
  printTable(
    '2c. Heap (heapUsed after gc(), minus the value before the walk), sampled every 100 pages',
    (Object.keys(memory) as (keyof typeof memory)[]).map((name) => ({
      walk: labels[name] as string,
      'max growth MB': memory[name].maxGrowthMB,
      'slope KB/100 pages': memory[name].slopeKBPer100Pages,
      'samples MB (pages 100…1000)': memory[name].samplesMB.join(' '),
    })),
  );
  const ratio = pairedRatio(series(timing.sdk, 'ms'), series(timing.raw, 'ms'));
  const ratioItems = pairedRatio(series(timing.sdkItems, 'ms'), series(timing.raw, 'ms'));
  say(
    `\nSDK/raw wall ${round(ratio, 3)} (.pages()), ${round(ratioItems, 3)} (items) (goal ≤ 1.0): ${ratio <= 1 ? 'met' : 'MISSED'}; ` +
      `heap growth ${memory.sdk.maxGrowthMB} MB (goal < 30): ${memory.sdk.maxGrowthMB < 30 ? 'met' : 'MISSED'}`,
  );
  return {
    rounds,
    busyRounds,
    rows,
    rowsWork,
    memory,
    sdkOverRaw: round(ratio, 3),
    sdkItemsOverRaw: round(ratioItems, 3),
    sdkFetchOverRaw: round(pairedRatio(series(timing.sdkFetch, 'ms'), series(timing.raw, 'ms')), 3),
    prefetchOverRaw: round(pairedRatio(series(timing.prefetch, 'ms'), series(timing.raw, 'ms')), 3),
    prefetchOverSdk: round(pairedRatio(series(timing.prefetch, 'ms'), series(timing.sdk, 'ms')), 3),
    withWork: {
      sdkOverRaw: round(pairedRatio(series(timingWork.sdk, 'ms'), series(timingWork.raw, 'ms')), 3),
      prefetchOverRaw: round(pairedRatio(series(timingWork.prefetch, 'ms'), series(timingWork.raw, 'ms')), 3),
      prefetchOverSdk: round(pairedRatio(series(timingWork.prefetch, 'ms'), series(timingWork.sdk, 'ms')), 3),
    },
    withLatency: {
      sdkOverRaw: round(pairedRatio(series(timingFar.sdk, 'ms'), series(timingFar.raw, 'ms')), 3),
      prefetchOverRaw: round(pairedRatio(series(timingFar.prefetch, 'ms'), series(timingFar.raw, 'ms')), 3),
      prefetchOverSdk: round(pairedRatio(series(timingFar.prefetch, 'ms'), series(timingFar.sdk, 'ms')), 3),
    },
    goals: { ratio: 1.0, heapMB: 30 },
    rowsFar,
    samples: { timing, timingWork, timingFar },
  };
}

// ---------------------------------------------------------------------------------------------
// 3. Webhook verification

async function benchWebhooks() {
  const secret = 'whsec_bench_0123456789abcdef0123456789abcdef';
  const rounds = QUICK ? 4 : 15;
  const warmup = 3;
  const rows: Record<string, string | number>[] = [];
  const ratios: Record<string, number> = {};
  const samples: Record<string, unknown> = {};
  for (const size of [1024, 65_536]) {
    const text = eventBody(size);
    const buffer = Buffer.from(text);
    const signature = await signWebhookPayload(text, secret);
    const headers = { 'x-service-signature': signature, 'x-service-event': 'payment.succeeded' };
    // About 40 ms per sample at the speed of the faster side.
    const iterations = size <= 1024 ? 4_000 : 150;

    const raw = async (payload: string | Buffer) => {
      const mac = createHmac('sha256', secret).update(payload).digest();
      const given = Buffer.from(signature, 'hex');
      if (given.length !== mac.length || !timingSafeEqual(given, mac)) throw new Error('signature mismatch');
      return JSON.parse(typeof payload === 'string' ? payload : payload.toString('utf8'));
    };
    const sdk = (payload: string | Buffer) => verifyWebhook({ payload, headers, secret });
    const perSecond = (verify: (payload: string | Buffer) => Promise<unknown>, payload: string | Buffer) => async (): Promise<Metrics> => {
      const t0 = performance.now();
      for (let i = 0; i < iterations; i++) await verify(payload);
      return { opsPerSec: iterations / ((performance.now() - t0) / 1000) };
    };
    const results = await interleave(
      {
        rawString: perSecond(raw, text),
        sdkString: perSecond(sdk, text),
        rawBuffer: perSecond(raw, buffer),
        sdkBuffer: perSecond(sdk, buffer),
      },
      rounds,
      warmup,
    );
    samples[size] = results;
    for (const kind of ['String', 'Buffer'] as const) {
      const r = results[`raw${kind}`];
      const s = results[`sdk${kind}`];
      const ratio = pairedRatio(series(s, 'opsPerSec'), series(r, 'opsPerSec'));
      ratios[`${size}:${kind}`] = round(ratio, 3);
      rows.push({
        body: `${(Buffer.byteLength(text) / 1024).toFixed(0)} KB as ${kind === 'String' ? 'string' : 'Buffer'}`,
        'raw node:crypto ops/s': round(median(series(r, 'opsPerSec')), 0),
        'verifyWebhook ops/s': round(median(series(s, 'opsPerSec')), 0),
        'SDK/raw': round(ratio, 3),
        'goal ≥ 0.8': ratio >= 0.8 ? 'met' : 'MISSED',
      });
    }
  }
  printTable(
    `3. Webhook verification, sequential, ${rounds} rounds (+${warmup} warm-up): verifyWebhook vs createHmac + timingSafeEqual + JSON.parse`,
    rows,
  );
  return { rounds, warmup, rows, ratios, goal: 0.8, samples };
}

// ---------------------------------------------------------------------------------------------
// 4. Cold import and bundle sizes

function benchImport() {
  const runs = QUICK ? 5 : 15;
  const entries = [
    {
      label: "import 'payments-sdk' (ESM)",
      args: [
        '--input-type=module',
        '-e',
        "const t=performance.now();await import('payments-sdk');process.stdout.write(String(performance.now()-t))",
      ],
    },
    {
      label: "require('payments-sdk') (CJS)",
      args: ['-e', "const t=performance.now();require('payments-sdk');process.stdout.write(String(performance.now()-t))"],
    },
    {
      label: "import 'payments-sdk/webhooks' (ESM)",
      args: [
        '--input-type=module',
        '-e',
        "const t=performance.now();await import('payments-sdk/webhooks');process.stdout.write(String(performance.now()-t))",
      ],
    },
    {
      label: "require('payments-sdk/webhooks') (CJS)",
      args: ['-e', "const t=performance.now();require('payments-sdk/webhooks');process.stdout.write(String(performance.now()-t))"],
    },
    {
      label: "import 'payments-sdk/testing' (ESM)",
      args: [
        '--input-type=module',
        '-e',
        "const t=performance.now();await import('payments-sdk/testing');process.stdout.write(String(performance.now()-t))",
      ],
    },
    // What the SDK's import is made of (its two dependencies, and the first use of fetch's classes).
    {
      label: "component: import 'zod/mini' alone",
      args: [
        '--input-type=module',
        '-e',
        "const t=performance.now();await import('zod/mini');process.stdout.write(String(performance.now()-t))",
      ],
    },
    {
      label: "component: import 'ky' alone",
      args: ['--input-type=module', '-e', "const t=performance.now();await import('ky');process.stdout.write(String(performance.now()-t))"],
    },
    {
      label: 'component: first new Request() (loads undici)',
      args: [
        '--input-type=module',
        '-e',
        "const t=performance.now();new Request('http://127.0.0.1/');process.stdout.write(String(performance.now()-t))",
      ],
    },
    { label: 'node with nothing imported (baseline)', args: ['--input-type=module', '-e', "process.stdout.write('0')"] },
  ];
  const inProcess: number[][] = entries.map(() => []);
  const wall: number[][] = entries.map(() => []);
  // Interleaved: one run of each entry per round, so drift hits all of them alike.
  for (let r = 0; r < runs + 1; r++) {
    entries.forEach((entry, i) => {
      const t0 = performance.now();
      const child = spawnSync(process.execPath, entry.args, { cwd: root, encoding: 'utf8' });
      const elapsed = performance.now() - t0;
      if (child.status !== 0) throw new Error(`${entry.label} failed: ${child.stderr}`);
      if (r > 0) {
        (inProcess[i] as number[]).push(Number(child.stdout));
        (wall[i] as number[]).push(elapsed);
      }
    });
  }
  const baseline = median(wall[entries.length - 1] as number[]);
  const rows = entries.map((entry, i) => ({
    entry: entry.label,
    'import ms (median, in the child)': round(median(inProcess[i] as number[]), 1),
    'p25–p75': `${round(quantile(inProcess[i] as number[], 0.25), 1)}–${round(quantile(inProcess[i] as number[], 0.75), 1)}`,
    'process wall ms': round(median(wall[i] as number[]), 1),
    'wall minus baseline': round(median(wall[i] as number[]) - baseline, 1),
  }));
  printTable(`4a. Cold import, ${runs} fresh processes per entry (+1 discarded), interleaved`, rows);
  const main = median(inProcess[0] as number[]);
  say(`\nimport 'payments-sdk' ${round(main, 1)} ms (goal ≤ 80): ${main <= 80 ? 'met' : 'MISSED'}`);

  const size = spawnSync(process.execPath, ['scripts/check-size.ts'], { cwd: root, encoding: 'utf8' });
  say('\n4b. Bundle sizes (scripts/check-size.ts)\n');
  say(size.stdout.trim() || size.stderr.trim());
  return { runs, rows, importMs: round(main, 1), goal: 80, met: main <= 80, sizeReport: size.stdout.trim(), sizeExit: size.status };
}

// ---------------------------------------------------------------------------------------------

const results: Record<string, unknown> = {
  date: new Date().toISOString(),
  node: process.version,
  cpus: `${os.cpus().length} × ${os.cpus()[0]?.model ?? 'unknown'}`,
  loadavgAtStart: os.loadavg().map((l) => round(l, 2)),
  quick: QUICK,
  // What was built: the commit, and whether src/ had uncommitted changes (several people work in this tree).
  commit: spawnSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: root, encoding: 'utf8' }).stdout.trim(),
  srcChangedSinceCommit: spawnSync('git', ['status', '--porcelain', 'src'], { cwd: root, encoding: 'utf8' })
    .stdout.trim()
    .split('\n')
    .filter(Boolean),
};
say(
  `payments-sdk benchmarks — ${results.date}, ${results.node}, ${results.cpus}, load ${(results.loadavgAtStart as number[]).join(' ')}, ` +
    `commit ${results.commit}${(results.srcChangedSinceCommit as string[]).length ? ' + uncommitted src changes' : ''}${QUICK ? ' (QUICK: fewer rounds)' : ''}`,
);

const server = ONLY.has('overhead') || ONLY.has('pagination') ? await startServer() : undefined;
try {
  if (server)
    say(`loopback server ${server.origin} (own process): single payment ${server.singleBytes} B, page of 100 ${server.pageBytes} B`);
  if (server && ONLY.has('overhead')) results.overhead = await benchOverhead(server.origin);
  if (server && ONLY.has('pagination')) results.pagination = await benchPagination(server.origin);
  if (ONLY.has('webhooks')) results.webhooks = await benchWebhooks();
  if (ONLY.has('import')) results.coldImport = benchImport();
} finally {
  server?.stop();
}
results.loadavgAtEnd = os.loadavg().map((l) => round(l, 2));

const out = new URL('./results.json', import.meta.url);
writeFileSync(new URL('./results.json.tmp', import.meta.url), `${JSON.stringify(results, null, 2)}\n`);
renameSync(new URL('./results.json.tmp', import.meta.url), out);
// In the repo's own JSON style, so `npm run lint` (biome check .) stays clean after a bench run.
spawnSync(join(root, 'node_modules', '.bin', 'biome'), ['format', '--write', fileURLToPath(out)], { cwd: root, stdio: 'ignore' });
process.stdout.write(`\nwrote ${fileURLToPath(out)}\n`);

// A full run (all four, not QUICK) replaces the "Last figures" section of BENCHMARKS.md.
if (!QUICK && ['overhead', 'pagination', 'webhooks', 'import'].every((name) => ONLY.has(name))) {
  const doc = join(root, 'BENCHMARKS.md');
  const begin = '<!-- bench:figures:begin -->';
  const end = '<!-- bench:figures:end -->';
  let text = '';
  try {
    text = readFileSync(doc, 'utf8');
  } catch {
    // No BENCHMARKS.md: nothing to update.
  }
  const from = text.indexOf(begin);
  const to = text.indexOf(end);
  if (from >= 0 && to > from) {
    // The printed tables are Markdown already; notes become paragraphs.
    // Indented notes (scripts/check-size.ts prints them under its table) become a list.
    const body = printed
      .join('\n')
      .trim()
      .replace(/^ {2}(?=\S)/gm, '- ');
    const figures = `${begin}\n<!-- written by npm run bench (bench/run.ts); do not edit by hand -->\n\n${body}\n\n`;
    writeFileSync(doc, `${text.slice(0, from)}${figures}${text.slice(to)}`);
    process.stdout.write(`updated the figures in ${doc}\n`);
  }
}
