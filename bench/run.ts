/**
 * `npm run bench` (= `tsup --silent && node --expose-gc bench/run.ts`): the SDK beside its peers and
 * the floor of its stack, on the BUILT package (`payments-sdk` resolves through package.json
 * `exports` to dist/). Not part of `npm test`. Method and goals: BENCHMARKS.md.
 *
 * - One stub service in its own process (bench/server.ts), for every client.
 * - Interleaved rounds: each round runs every client once, in an order rotated from round to round.
 *   Within a round, tinybench times each client (`iterations` calls, median latency of the round).
 *   Across rounds, simple-statistics gives the median and min–max; a ratio is the median of the
 *   per-round ratios (paired: a slow patch of the machine hits both sides alike).
 *
 * - The goals measured in child processes run as their own scripts: `export` (bench/cli-export.ts:
 *   the CLI export's memory growth against the platform fetch's own, with Node's default flags), and
 *   the Postgres goals, each on a PostgreSQL server it starts: `inbox` (bench/inbox.ts: postgresStore's
 *   webhook deliveries against a hand-written transaction) and `bulk` (bench/bulk.ts, its workers part:
 *   one worker, then 4 sharing one store, against a token-bucket rate limit).
 *
 *   BENCH_ONLY=request,pages,cold,webhooks,telemetry,export,inbox,bulk   run a subset     BENCH_QUICK=1   fewer rounds (a smoke run)
 *
 * Prints one markdown table per benchmark; writes every figure to bench/results.json (gitignored).
 */
import { fork, spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import os from 'node:os';
import { fileURLToPath } from 'node:url';
import { isDeepStrictEqual } from 'node:util';
import ky from 'ky';
import OpenAI from 'openai';
import { type Payment, PaymentsClient } from 'payments-sdk';
import { type ListEnvelope, listEnvelope, PaymentSchema } from 'payments-sdk/schemas';
import { signWebhookPayload, verifyWebhook } from 'payments-sdk/webhooks';
import { max, median, min } from 'simple-statistics';
import Stripe from 'stripe';
import { Bench } from 'tinybench';
import * as z from 'zod/mini';

const root = fileURLToPath(new URL('..', import.meta.url));
const QUICK = process.env.BENCH_QUICK === '1';
const ONLY = new Set((process.env.BENCH_ONLY ?? 'request,pages,cold,webhooks,telemetry,export,inbox,bulk').split(',').map((s) => s.trim()));
const API_KEY = 'sk_test_bench_0123456789abcdef';
const { UUID, PAGES, PER_PAGE, LATENCY_MS, webhookEventBody } = (await import(
  new URL('./fixtures.ts', import.meta.url).href
)) as typeof import('./fixtures.js');

const exposedGc = (globalThis as { gc?: () => void }).gc;
if (!exposedGc) throw new Error('Run with --expose-gc (npm run bench does).');
const gc: () => void = exposedGc;

// ---------------------------------------------------------------------------------------------
// Rounds, statistics, tables

type Samples<K extends string> = Record<K, number[]>;

/**
 * Runs `rounds` rounds; in each, tinybench times every task (`iterations` calls after a warm-up),
 * the order rotated by one from the previous round. Returns each task's median latency per round (ms).
 */
async function interleaved<K extends string>(
  tasks: Record<K, () => Promise<unknown>>,
  rounds: number,
  iterations: number,
): Promise<Samples<K>> {
  const names = Object.keys(tasks) as K[];
  const out = Object.fromEntries(names.map((name) => [name, [] as number[]])) as Samples<K>;
  for (let r = 0; r < rounds; r++) {
    const bench = new Bench({ iterations, time: 0, warmupIterations: Math.max(2, iterations >> 3), warmupTime: 0, throws: true });
    for (let i = 0; i < names.length; i++) {
      const name = names[(i + r) % names.length] as K;
      bench.add(name, tasks[name]);
    }
    await bench.run();
    for (const task of bench.tasks) {
      const result = task.result;
      if (result.state !== 'completed') throw new Error(`${task.name}: ${result.state}`);
      out[task.name as K].push(result.latency.p50);
    }
  }
  return out;
}

/** Median of the per-round ratios a[i] / b[i]. */
const pairedRatio = (a: number[], b: number[]) => median(a.map((value, i) => value / (b[i] as number)));
const fixed = (value: number, digits: number) => value.toFixed(digits);

const printed: string[] = [];
function table(title: string, rows: Record<string, string>[]): void {
  const headers = Object.keys(rows[0] ?? {});
  const lines = [`\n### ${title}\n`, `| ${headers.join(' | ')} |`, `| ${headers.map(() => '---').join(' | ')} |`];
  for (const row of rows) lines.push(`| ${headers.map((h) => row[h] ?? '').join(' | ')} |`);
  for (const line of lines) console.log(line);
  printed.push(...lines);
}

// ---------------------------------------------------------------------------------------------
// The stub service, in its own process

async function startServer(): Promise<{ fast: string; slow: string; stop: () => void }> {
  const child = fork(fileURLToPath(new URL('./server.ts', import.meta.url)), [], {
    execArgv: [],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const ports = await new Promise<{ fast: number; slow: number }>((resolve, reject) => {
    child.once('message', (message) => resolve(message as { fast: number; slow: number }));
    child.once('exit', (code) => reject(new Error(`bench server exited with ${code}`)));
  });
  return { fast: `http://127.0.0.1:${ports.fast}`, slow: `http://127.0.0.1:${ports.slow}`, stop: () => child.disconnect() };
}

// ---------------------------------------------------------------------------------------------
// The clients, each as a merchant would set it up against the stub

const headers = { authorization: `Bearer ${API_KEY}`, accept: 'application/json' };
const single = z.object({ data: PaymentSchema });

/** The floor of this stack: one ky instance (timeout, retries), its `.json()` validated by a zod/mini schema. */
function minimalClient(origin: string) {
  const api = ky.create({ baseUrl: `${origin}/api/v1/`, headers, timeout: 30_000, retry: { limit: 2, methods: ['get', 'post'] } });
  return {
    retrieve: async (uuid: string) => (await api.get(`payments/${uuid}`).json(single)).data,
    api,
  };
}

const clients = (origin: string) => {
  const url = `${origin}/api/v1/payments/${UUID}`;
  const kyAlone = ky.create({ headers });
  const minimal = minimalClient(origin);
  const sdk = new PaymentsClient({ apiKey: API_KEY, baseUrl: origin });
  const { hostname, port } = new URL(origin);
  const stripe = new Stripe('sk_test_bench', { host: hostname, port, protocol: 'http' });
  const openai = new OpenAI({ apiKey: 'sk-bench', baseURL: `${origin}/v1` });
  return {
    'raw fetch': async () => {
      const response = await fetch(url, { headers });
      if (!response.ok) throw new Error(`status ${response.status}`);
      return JSON.parse(await response.text());
    },
    'ky alone': () => kyAlone.get(url).json(),
    'ky + zod/mini (floor)': () => minimal.retrieve(UUID),
    'payments-sdk': () => sdk.payments.retrieve(UUID),
    'stripe-node paymentIntents.retrieve': () => stripe.paymentIntents.retrieve('pi_bench'),
    'openai-node models.retrieve': () => openai.models.retrieve('model-bench'),
  };
};

// ---------------------------------------------------------------------------------------------
// 1. Per request, on loopback and with 20 ms of server latency

async function benchRequest(origin: string, latency: boolean) {
  const rounds = QUICK ? 3 : 7;
  const iterations = latency ? (QUICK ? 10 : 25) : QUICK ? 60 : 300;
  const tasks = clients(origin);
  const samples = await interleaved(tasks, rounds, iterations);
  const rows = (Object.keys(samples) as (keyof typeof samples)[]).map((name) => ({
    client: name,
    'ms per request (median)': fixed(median(samples[name]), 3),
    'min–max over rounds': `${fixed(min(samples[name]), 3)}–${fixed(max(samples[name]), 3)}`,
    'vs raw fetch': fixed(pairedRatio(samples[name], samples['raw fetch']), 3),
    'vs floor': fixed(pairedRatio(samples[name], samples['ky + zod/mini (floor)']), 3),
    'payments-sdk ÷ this': fixed(pairedRatio(samples['payments-sdk'], samples[name]), 3),
  }));
  table(
    `${latency ? `1b. Per request, the server answering ${LATENCY_MS} ms late` : '1a. Per request, loopback'}: ${rounds} interleaved rounds of ${iterations} sequential GETs`,
    rows,
  );
  return { rounds, iterations, samples, rows };
}

// ---------------------------------------------------------------------------------------------
// 2. Walking pages: `.pages()` against a hand-written ky loop

// The loop validates each page exactly as the SDK does: the SDK's own envelope schema (every item a
// Payment, `links` and `meta` checked, unknown fields kept). With a lighter schema of its own, the
// comparison would time validation the SDK does and the loop skips, not the SDK's machinery.
const envelope = listEnvelope(PaymentSchema);

async function benchPages(origin: string) {
  const total = PAGES * PER_PAGE;
  const sdk = new PaymentsClient({ apiKey: API_KEY, baseUrl: origin });
  const { api } = minimalClient(origin);
  const walks = {
    'hand-written ky loop (ky + zod/mini)': async (onPage?: () => void) => {
      let items = 0;
      let next: string | null = `${origin}/api/v1/payments?per_page=${PER_PAGE}`;
      while (next) {
        const page: ListEnvelope<Payment> = await api.get(next).json(envelope);
        items += page.data.length;
        onPage?.();
        next = page.links.next;
      }
      return items;
    },
    'payments-sdk .pages()': async (onPage?: () => void) => {
      let items = 0;
      for await (const page of sdk.payments.list({ per_page: PER_PAGE }).pages()) {
        items += page.data.length;
        onPage?.();
      }
      return items;
    },
  };
  type Walk = keyof typeof walks;
  const names = Object.keys(walks) as Walk[];
  // GC time per walk: every GC the timed walks saw (PerformanceObserver), charged to the walk that
  // was running when it started.
  const windows = Object.fromEntries(names.map((name) => [name, [] as [number, number][]])) as Record<Walk, [number, number][]>;
  const collections: [number, number][] = [];
  const observer = new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) collections.push([entry.startTime, entry.duration]);
  });
  observer.observe({ entryTypes: ['gc'] });
  const check = (name: Walk) => async () => {
    const started = performance.now();
    const items = await walks[name]();
    windows[name].push([started, performance.now()]);
    if (items !== total) throw new Error(`walked ${items} items, expected ${total}`);
  };
  const rounds = QUICK ? 3 : 7;
  const samples = await interleaved(
    Object.fromEntries(names.map((name) => [name, check(name)])) as Record<Walk, () => Promise<void>>,
    rounds,
    QUICK ? 2 : 8,
  );
  await new Promise((resolve) => setImmediate(resolve));
  observer.disconnect();
  const gcPerWalk = (name: Walk) => {
    let sum = 0;
    for (const [start, duration] of collections) if (windows[name].some(([from, to]) => start >= from && start < to)) sum += duration;
    return sum / windows[name].length;
  };
  // Memory, in walks of their own (gc() must not be timed): heapUsed after gc() every 10 pages,
  // minus the value before the walk.
  const growth: Record<string, number[]> = {};
  for (const name of names) {
    // Twice, a tick apart: what the previous walk left behind (sockets, undici's finalizers) is freed first.
    gc();
    await new Promise((resolve) => setImmediate(resolve));
    gc();
    const base = process.memoryUsage().heapUsed;
    const seen: number[] = [];
    let pages = 0;
    await walks[name](() => {
      if (++pages % 10 === 0) {
        gc();
        seen.push(process.memoryUsage().heapUsed - base);
      }
    });
    growth[name] = seen;
  }
  const base = samples[names[0] as Walk];
  const rows = names.map((name) => ({
    walk: name,
    'ms per walk (median)': fixed(median(samples[name]), 1),
    'min–max over rounds': `${fixed(min(samples[name]), 1)}–${fixed(max(samples[name]), 1)}`,
    'vs ky loop': fixed(pairedRatio(samples[name], base), 3),
    'GC ms per walk (mean)': fixed(gcPerWalk(name), 1),
    'heap growth, max (MB)': fixed(max(growth[name] as number[]) / 1e6, 2),
    'heap at page 10 / last (MB)': `${fixed(((growth[name] as number[])[0] ?? 0) / 1e6, 2)} / ${fixed(((growth[name] as number[]).at(-1) ?? 0) / 1e6, 2)}`,
  }));
  table(`2. Walking ${PAGES} pages of ${PER_PAGE} payments on loopback: ${rounds} interleaved rounds`, rows);
  return { rounds, samples, growth, rows };
}

// ---------------------------------------------------------------------------------------------
// 3. Cold start: a fresh process, from spawn to the first answer

function benchCold(origin: string) {
  const runs = QUICK ? 3 : 9;
  const script = (setup: string, call: string) =>
    `${setup}\nconst answer = await ${call};\nif (!answer) process.exit(1);\nprocess.exit(0);`;
  const cases: Record<string, string> = {
    'raw fetch': script('', `fetch('${origin}/api/v1/payments/${UUID}').then((r) => r.json())`),
    'ky + zod/mini (floor)': script(
      // The SDK's own Payment schema, so that both validate the same shape.
      "import ky from 'ky'; import * as z from 'zod/mini'; import { PaymentSchema } from 'payments-sdk/schemas';",
      `ky.get('${origin}/api/v1/payments/${UUID}', { timeout: 30000, retry: { limit: 2 } }).json(z.object({ data: PaymentSchema }))`,
    ),
    'payments-sdk': script(
      "import { PaymentsClient } from 'payments-sdk';",
      `new PaymentsClient({ apiKey: '${API_KEY}', baseUrl: '${origin}' }).payments.retrieve('${UUID}')`,
    ),
    'stripe-node': script(
      "import Stripe from 'stripe';",
      `new Stripe('sk_test_bench', { host: '127.0.0.1', port: ${new URL(origin).port}, protocol: 'http' }).paymentIntents.retrieve('pi_bench')`,
    ),
    'openai-node': script(
      "import OpenAI from 'openai';",
      `new OpenAI({ apiKey: 'sk-bench', baseURL: '${origin}/v1' }).models.retrieve('m')`,
    ),
    'node, nothing imported (baseline)': 'process.exit(0);',
  };
  const names = Object.keys(cases);
  const wall: Record<string, number[]> = Object.fromEntries(names.map((name) => [name, []]));
  for (let r = 0; r < runs + 1; r++) {
    names.forEach((_, i) => {
      const name = names[(i + r) % names.length] as string;
      const t0 = performance.now();
      const child = spawnSync(process.execPath, ['--input-type=module', '-e', cases[name] as string], { cwd: root, encoding: 'utf8' });
      const elapsed = performance.now() - t0;
      if (child.status !== 0) throw new Error(`cold start of ${name} failed: ${child.stderr}`);
      // The first round warms the disk cache and is discarded.
      if (r > 0) (wall[name] as number[]).push(elapsed);
    });
  }
  const sdk = wall['payments-sdk'] as number[];
  const rows = names.map((name) => ({
    client: name,
    'ms to first answer (median)': fixed(median(wall[name] as number[]), 1),
    'min–max': `${fixed(min(wall[name] as number[]), 1)}–${fixed(max(wall[name] as number[]), 1)}`,
    'payments-sdk vs this': fixed(pairedRatio(sdk, wall[name] as number[]), 3),
  }));
  table(`3. Cold start: spawn → import → first answer → exit, ${runs} interleaved runs (+1 discarded)`, rows);
  return { runs, wall, rows };
}

// ---------------------------------------------------------------------------------------------
// 4. Webhook verification: verifyWebhook against a hand-written check doing the same work
//
// The guard's reference (bench/webhook-reference.ts) does what verifyWebhook does on a delivery: the
// constant-time HMAC check, JSON.parse, the X-Service-Event check, and the event and its `data`
// through the SDK's own zod schemas. The HMAC check and JSON.parse alone are timed too, for scale.

const SAME_WORK = 'same work by hand (HMAC + JSON.parse + event header + zod schemas)';
const CRYPTO_ONLY = 'createHmac + timingSafeEqual + JSON.parse only (for scale)';
const WEBHOOK_GOAL = 1.25;

async function benchWebhooks() {
  const { sameWorkVerifier, cryptoOnlyVerifier } = (await import(
    new URL('./webhook-reference.ts', import.meta.url).href
  )) as typeof import('./webhook-reference.js');
  const secret = 'whsec_bench_0123456789abcdef0123456789abcdef';
  const sameWork = sameWorkVerifier(secret);
  const cryptoOnly = cryptoOnlyVerifier(secret);
  const rounds = QUICK ? 3 : 7;
  const rows: Record<string, string>[] = [];
  const guard: Record<string, { ratio: number; goal: number; met: boolean }> = {};
  for (const size of [1024, 65_536]) {
    const payload = webhookEventBody(size);
    // One headers object, as a framework hands it over (Node's `req.headers`), read on every delivery.
    const delivery: Record<string, string> = {
      'x-service-signature': await signWebhookPayload(payload, secret),
      'x-service-event': 'payment.succeeded',
    };
    // The reference must return what verifyWebhook returns, and refuse what it refuses.
    const expected = await verifyWebhook({ payload, headers: delivery, secret });
    if (!isDeepStrictEqual(await sameWork(payload, delivery), expected)) throw new Error('the same-work reference returns another event');
    const event = JSON.parse(payload) as { data: Record<string, unknown> };
    const badData = JSON.stringify({ ...event, data: { ...event.data, gross_amount: '1000' } });
    const badDelivery = { ...delivery, 'x-service-signature': await signWebhookPayload(badData, secret) };
    const refused = (promise: Promise<unknown>) =>
      promise.then(
        () => false,
        () => true,
      );
    // A body not signed with the secret, a signed body whose `data` is not a Payment, a header naming another type.
    for (const [body, headers] of [
      [payload.replace('"succeeded"', '"failed"'), delivery],
      [badData, badDelivery],
      [payload, { ...delivery, 'x-service-event': 'payment.failed' }],
    ] as const) {
      if (!(await refused(verifyWebhook({ payload: body, headers, secret })))) throw new Error('verifyWebhook accepts a bad delivery');
      if (!(await refused(sameWork(body, headers)))) throw new Error('the same-work reference accepts a bad delivery');
    }
    const samples = await interleaved(
      {
        [SAME_WORK]: () => sameWork(payload, delivery),
        [CRYPTO_ONLY]: () => cryptoOnly(payload, delivery),
        verifyWebhook: () => verifyWebhook({ payload, headers: delivery, secret }),
      },
      rounds,
      size <= 1024 ? 2_000 : 100,
    );
    const reference = samples[SAME_WORK] as number[];
    for (const [name, values] of Object.entries(samples)) {
      rows.push({
        body: `${size / 1024} KB`,
        verifier: name,
        'µs per delivery (median)': fixed(median(values) * 1000, 1),
        'min–max over rounds': `${fixed(min(values) * 1000, 1)}–${fixed(max(values) * 1000, 1)}`,
        'vs same work by hand': fixed(pairedRatio(values, reference), 3),
      });
    }
    const ratio = pairedRatio(samples.verifyWebhook as number[], reference);
    guard[`${size / 1024} KB`] = { ratio, goal: WEBHOOK_GOAL, met: ratio <= WEBHOOK_GOAL };
  }
  table(`4. Webhook verification, string bodies: ${rounds} interleaved rounds`, rows);
  for (const [body, { ratio, met }] of Object.entries(guard)) {
    console.log(`guard, ${body}: verifyWebhook ÷ same work by hand ${fixed(ratio, 3)} (goal ≤ ${WEBHOOK_GOAL}): ${met ? 'met' : 'MISSED'}`);
  }
  return { rounds, rows, guard };
}

// ---------------------------------------------------------------------------------------------

const server = await startServer();
const started = new Date().toISOString();
const machine = { node: process.version, cpus: os.cpus().length, model: os.cpus()[0]?.model, loadavgStart: os.loadavg() };
console.log(
  `payments-sdk bench, ${started}, Node ${machine.node}, ${machine.cpus} CPUs, loadavg ${machine.loadavgStart.map((l) => l.toFixed(2)).join(' ')}`,
);
const results: Record<string, unknown> = { started, machine };
try {
  if (ONLY.has('request')) {
    results.requestLoopback = await benchRequest(server.fast, false);
    results.requestLatency = await benchRequest(server.slow, true);
  }
  if (ONLY.has('pages')) results.pages = await benchPages(server.fast);
  if (ONLY.has('cold')) results.cold = benchCold(server.fast);
  if (ONLY.has('webhooks')) results.webhooks = await benchWebhooks();
  if (ONLY.has('telemetry')) {
    const { benchTelemetry } = (await import(new URL('./telemetry.ts', import.meta.url).href)) as typeof import('./telemetry.js');
    const telemetry = await benchTelemetry(server.fast, { quick: QUICK, apiKey: API_KEY, uuid: UUID });
    table(
      `5. CPU per request with openTelemetry() (BatchSpanProcessor, metrics aggregated): ${telemetry.rounds} rounds of ${telemetry.requests} sequential GETs`,
      telemetry.rows,
    );
    results.telemetry = telemetry;
  }
} finally {
  server.stop();
}
// The export and store goals: their own scripts, printing their own tables (their figures are not in results.json).
for (const [section, script, only] of [
  ['export', './cli-export.ts', undefined],
  ['inbox', './inbox.ts', undefined],
  ['bulk', './bulk.ts', 'workers'],
] as const) {
  if (!ONLY.has(section)) continue;
  const env = { ...process.env, ...(only && { BENCH_ONLY: only }) };
  const run = spawnSync(process.execPath, [fileURLToPath(new URL(script, import.meta.url))], { cwd: root, env, stdio: 'inherit' });
  if (run.status !== 0) throw new Error(`bench ${section}: ${script} exited with ${run.status ?? run.signal}`);
}
results.loadavgEnd = os.loadavg();
results.tables = printed;
console.log(
  `\nloadavg at the end ${os
    .loadavg()
    .map((l) => l.toFixed(2))
    .join(' ')}`,
);
writeFileSync(new URL('./results.json', import.meta.url), `${JSON.stringify(results, null, 1)}\n`);
