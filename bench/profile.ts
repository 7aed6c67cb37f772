/**
 * Where the client's time goes, for the cases whose goal is missed (BENCHMARKS.md "Profiles").
 *
 *   node bench/profile.ts overhead   [N]   N × client.payments.retrieve (default 5,000)
 *   node bench/profile.ts raw        [N]   N × fetch + JSON.parse, for comparison
 *   node bench/profile.ts http       [N]   N × http.request + JSON.parse, a reference below fetch
 *   node bench/profile.ts ky         [N]   N × ky.get().json()
 *   node bench/profile.ts pages      [N]   N walks of 100 pages × 100 payments with .pages()
 *   node bench/profile.ts ky-pages   [N]   the same walks as a hand-written ky loop (bench/run.ts's)
 *   node bench/profile.ts sdk-stub   [N]   the SDK with a fetch stub (no network: client CPU only)
 *   node bench/profile.ts ky-stub    [N]   ky alone with the same stub
 *   node bench/profile.ts webhook-1k [N]   N × verifyWebhook on a 1 KB body (string)
 *   node bench/profile.ts webhook-64k [N]  the same with a 64 KB body
 *   node bench/profile.ts webhook-ref-1k [N]   bench/run.ts's same-work reference (bench/webhook-reference.ts) on the 1 KB body
 *   node bench/profile.ts webhook-ref-64k [N]  the same with the 64 KB body
 *
 * Runs the case in a child (the loopback server in its own process, as in bench/run.ts), warms it
 * up, profiles only the measured loop through node:inspector, then prints self time grouped by where the code lives (SDK dist, ky, zod, undici,
 * node internals, GC) and the top functions. The .cpuprofile files stay in $TMPDIR/payments-sdk-profiles/
 * for Chrome DevTools.
 */
import { fork, spawnSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const [mode = 'overhead', countText] = process.argv.slice(2);
const count = Number(countText ?? 5_000);
const API_KEY = 'sk_test_bench_0123456789abcdef';
const { UUID, benchPayment, webhookEventBody } = (await import(
  new URL('./fixtures.ts', import.meta.url).href
)) as typeof import('./fixtures.js');
const STUB_BODY = JSON.stringify({ data: benchPayment(1) });

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  hitCount?: number;
  children?: number[];
}

function place(url: string, name: string): string {
  if (name === '(garbage collector)') return 'GC';
  if (name === '(program)' || name === '(idle)') return name;
  if (url.includes('/node_modules/ky/')) return 'ky';
  if (url.includes('/node_modules/zod/')) return 'zod';
  if (url.includes(`${root}dist/`)) return 'payments-sdk (dist)';
  if (url.includes('undici')) return 'undici (fetch)';
  if (url.startsWith('node:') || url === '') return 'node internals / native';
  if (url.includes('/bench/')) return 'bench harness';
  return url.replace(/^.*node_modules\//, '').split('/')[0] ?? url;
}

function summarise(file: string): void {
  const profile = JSON.parse(readFileSync(file, 'utf8')) as { nodes: ProfileNode[]; samples: number[]; timeDeltas: number[] };
  const selfUs = new Map<number, number>();
  profile.samples.forEach((id, i) => {
    selfUs.set(id, (selfUs.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0));
  });
  const byPlace = new Map<string, number>();
  const byFunction = new Map<string, number>();
  let total = 0;
  for (const node of profile.nodes) {
    const us = selfUs.get(node.id) ?? 0;
    const { url, functionName, lineNumber } = node.callFrame;
    if (functionName === '(idle)') continue;
    total += us;
    const where = place(url, functionName);
    byPlace.set(where, (byPlace.get(where) ?? 0) + us);
    const key = `${functionName || '(anonymous)'} ${url.replace(/^.*\/(node_modules|dist|bench)\//, '$1/')}:${lineNumber + 1}`;
    byFunction.set(key, (byFunction.get(key) ?? 0) + us);
  }
  const pct = (us: number) => `${((100 * us) / total).toFixed(1).padStart(5)} %`;
  console.log(`\nself time, busy only (${(total / 1000).toFixed(0)} ms over ${count} operations = ${(total / count).toFixed(1)} µs/op):`);
  for (const [where, us] of [...byPlace].sort((a, b) => b[1] - a[1]))
    console.log(`  ${pct(us)}  ${(us / count).toFixed(1).padStart(6)} µs/op  ${where}`);
  console.log('\ntop functions, self time:');
  for (const [key, us] of [...byFunction].sort((a, b) => b[1] - a[1]).slice(0, 20)) console.log(`  ${pct(us)}  ${key}`);

  // Inclusive time: each sample counts once for every distinct function on its stack.
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const parentOf = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parentOf.set(child, node.id);
  const inclusive = new Map<string, number>();
  for (const [id, us] of selfUs) {
    if (byId.get(id)?.callFrame.functionName === '(idle)') continue;
    const onStack = new Set<string>();
    for (let cur: number | undefined = id; cur !== undefined; cur = parentOf.get(cur)) {
      const { functionName, url, lineNumber } = (byId.get(cur) as ProfileNode).callFrame;
      if (!url || functionName === '(root)') continue;
      onStack.add(`${functionName || '(anonymous)'} ${url.replace(/^.*\/(node_modules|dist|bench)\//, '$1/')}:${lineNumber + 1}`);
    }
    for (const key of onStack) inclusive.set(key, (inclusive.get(key) ?? 0) + us);
  }
  console.log('\ntop functions, inclusive time (JS frames):');
  for (const [key, us] of [...inclusive].sort((a, b) => b[1] - a[1]).slice(0, 40))
    console.log(`  ${pct(us)}  ${(us / count).toFixed(1).padStart(6)} µs/op  ${key}`);
}

if (process.env.PROFILE_CHILD === '1') {
  // In the child: warm up, then profile only the measured loop (module loading and JIT warm-up
  // would otherwise dominate), through the inspector.
  const origin = process.env.PROFILE_ORIGIN as string;
  const out = process.env.PROFILE_OUT as string;
  const headers = { authorization: `Bearer ${API_KEY}`, accept: 'application/json' };
  let one: () => Promise<unknown>;
  if (mode === 'overhead') {
    const { PaymentsClient } = await import('payments-sdk');
    const client = new PaymentsClient({ apiKey: API_KEY, baseUrl: origin });
    one = () => client.payments.retrieve(UUID);
  } else if (mode === 'raw') {
    one = async () => JSON.parse(await (await fetch(`${origin}/api/v1/payments/${UUID}`, { headers })).text());
  } else if (mode === 'http') {
    const { request } = await import('node:http');
    one = () =>
      new Promise((resolve, reject) => {
        const req = request(`${origin}/api/v1/payments/${UUID}`, { headers }, (res) => {
          let text = '';
          res.setEncoding('utf8');
          res.on('data', (chunk: string) => {
            text += chunk;
          });
          res.on('end', () => resolve(JSON.parse(text)));
          res.on('error', reject);
        });
        req.on('error', reject);
        req.end();
      });
  } else if (mode === 'ky') {
    const { default: ky } = await import('ky');
    const api = ky.create({ headers });
    one = () => api.get(`${origin}/api/v1/payments/${UUID}`).json();
  } else if (mode === 'pages') {
    // One operation = walking the 100 pages (10,000 payments) with .pages().
    const { PaymentsClient } = await import('payments-sdk');
    const client = new PaymentsClient({ apiKey: API_KEY, baseUrl: origin });
    one = async () => {
      let items = 0;
      for await (const page of client.payments.list({ per_page: 100, page: 1 }).pages()) items += page.data.length;
      if (items !== 10_000) throw new Error(`walked ${items}`);
    };
  } else if (mode === 'ky-pages') {
    // The same walk by hand, as bench/run.ts's ky loop: ky, the SDK's envelope schema, links.next followed.
    const { default: ky } = await import('ky');
    const { listEnvelope, PaymentSchema } = await import('payments-sdk/schemas');
    const api = ky.create({ headers, timeout: 30_000, retry: { limit: 2, methods: ['get', 'post'] } });
    const envelope = listEnvelope(PaymentSchema);
    one = async () => {
      let items = 0;
      let next: string | null = `${origin}/api/v1/payments?per_page=100`;
      while (next) {
        const page: import('payments-sdk/schemas').ListEnvelope<import('payments-sdk').Payment> = await api.get(next).json(envelope);
        items += page.data.length;
        next = page.links.next;
      }
      if (items !== 10_000) throw new Error(`walked ${items}`);
    };
  } else if (mode === 'sdk-stub' || mode === 'ky-stub') {
    // The network taken out: a fetch stub answering a pre-built body, so only client CPU remains.
    const stub = async () => new Response(STUB_BODY, { status: 200, headers: { 'content-type': 'application/json' } });
    if (mode === 'sdk-stub') {
      const { PaymentsClient } = await import('payments-sdk');
      const client = new PaymentsClient({ apiKey: API_KEY, baseUrl: 'http://127.0.0.1:1', fetch: stub });
      one = () => client.payments.retrieve(UUID);
    } else {
      const { default: ky } = await import('ky');
      const api = ky.create({ headers, fetch: stub });
      one = () => api.get(`http://127.0.0.1:1/api/v1/payments/${UUID}`).json();
    }
  } else if (mode.startsWith('webhook-')) {
    const { signWebhookPayload, verifyWebhook } = await import('payments-sdk/webhooks');
    const secret = 'whsec_bench_0123456789abcdef0123456789abcdef';
    // As bench/run.ts: a payment.succeeded delivery padded by an unknown field, its headers one object.
    const payload = webhookEventBody(mode.endsWith('-1k') ? 1024 : 65_536);
    const signature = await signWebhookPayload(payload, secret);
    const headers: Record<string, string> = { 'x-service-signature': signature, 'x-service-event': 'payment.succeeded' };
    if (mode.startsWith('webhook-ref-')) {
      const { sameWorkVerifier } = (await import(
        new URL('./webhook-reference.ts', import.meta.url).href
      )) as typeof import('./webhook-reference.js');
      const verify = sameWorkVerifier(secret);
      one = () => verify(payload, headers);
    } else {
      one = () => verifyWebhook({ payload, headers, secret });
    }
  } else {
    throw new Error(`unknown mode ${mode}`);
  }
  for (let i = 0; i < Math.min(mode.endsWith('pages') ? 3 : 2_000, count); i++) await one();
  const { Session } = await import('node:inspector/promises');
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.setSamplingInterval', { interval: 100 });
  await session.post('Profiler.start');
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  for (let i = 0; i < count; i++) await one();
  const wallUs = ((performance.now() - t0) * 1000) / count;
  const cpu = process.cpuUsage(cpu0);
  const { profile } = await session.post('Profiler.stop');
  const { writeFileSync } = await import('node:fs');
  writeFileSync(out, JSON.stringify(profile));
  console.log(
    `${mode}: ${wallUs.toFixed(1)} µs/op wall, ${((cpu.user + cpu.system) / count).toFixed(1)} µs/op CPU (whole process, profiler on)`,
  );
  process.exit(0);
}

// Outside the repo, so nothing untracked is left in the tree.
const dir = join(tmpdir(), 'payments-sdk-profiles');
mkdirSync(dir, { recursive: true });
for (const name of readdirSync(dir)) if (name.startsWith(`${mode}-`)) rmSync(join(dir, name));

let stop = () => {};
let origin = '';
if (!mode.startsWith('webhook-') && !['sdk-stub', 'ky-stub'].includes(mode)) {
  const server = fork(fileURLToPath(new URL('./server.ts', import.meta.url)), [], { execArgv: [] });
  const { fast: port } = await new Promise<{ fast: number }>((resolve) => server.once('message', (m) => resolve(m as { fast: number })));
  origin = `http://127.0.0.1:${port}`;
  stop = () => server.disconnect();
}
const file = join(dir, `${mode}-${Date.now()}.cpuprofile`);
const child = spawnSync(process.execPath, [fileURLToPath(import.meta.url), mode, String(count)], {
  cwd: root,
  stdio: 'inherit',
  env: { ...process.env, PROFILE_CHILD: '1', PROFILE_ORIGIN: origin, PROFILE_OUT: file },
});
stop();
if (child.status !== 0) throw new Error(`profiled child exited with ${child.status}`);
console.log(`profile: ${file}`);
summarise(file);
