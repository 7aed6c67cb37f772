/**
 * Runs scripts/runtime-smoke/smoke.ts on the BUILT package under every runtime the package
 * supports: Node 22, Node 24 and the pinned toolchain Node 26 (each in ESM and
 * `require`), Bun, Deno, Vercel's EdgeVM (the `edge-runtime` package), and Cloudflare's workerd
 * (through `miniflare`), without and with `nodejs_compat`. Each row also says which HMAC path the
 * webhook code took there (node:crypto or Web Crypto), checked against a Web Crypto HMAC. Then the
 * examples of docs/runtimes.md under their runtimes (scripts/runtime-examples.ts), and what each
 * route costs in a Worker bundle. Prints runtime → version → pass/fail/skipped; exits 1 if any fails.
 *
 *   npm run test:runtimes      (builds with tsup first, then runs this file on the pinned toolchain Node)
 *
 * How the package reaches each runtime: `npm pack` → extracted into a throwaway consumer directory
 * (os.tmpdir()) as node_modules/payments-sdk, with its dependencies (zod) symlinked from this
 * repo's node_modules. So every runtime resolves `payments-sdk` through the published `exports`
 * and `files`, offline, exactly as after `npm install payments-sdk`; the repo's tsconfig `paths`
 * (which map the name to src/ for tests) are out of reach.
 *
 * The host (this process) runs the loopback service: `POST /api/v1/checkout-sessions` on
 * 127.0.0.1, random port. It checks Authorization and Idempotency-Key and counts requests per run
 * (each run has its own API key), so a pass needs both sides to agree.
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as esbuild from 'esbuild';
import { installPacked, root } from './install-packed.ts';
import { measureRoutes, runExamples } from './runtime-examples.ts';

const RUN_TIMEOUT_MS = 60_000;
const WEBHOOK_SECRET = `whsec_smoke_${randomBytes(12).toString('hex')}`;
const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/i;

// ---------------------------------------------------------------------------------------------
// The loopback service (checkout-session creation, as docs/requests.md describes it)
// ---------------------------------------------------------------------------------------------

interface Seen {
  requests: number;
  problems: string[];
  userAgent?: string;
  /** How the request came: undici's fetch (Node, the EdgeVM) always sends `sec-fetch-mode`. */
  exchange?: string;
}
const seenByKey = new Map<string, Seen>();

function sendJson(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}

async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const auth = req.headers.authorization ?? '';
  const apiKey = auth.startsWith('Bearer ') ? auth.slice('Bearer '.length) : '';
  const seen = seenByKey.get(apiKey);
  if (!seen) {
    // An unknown key: the service answers 401; the run that sent it fails.
    sendJson(res, 401, { message: 'Unauthenticated.' });
    return;
  }
  seen.requests += 1;
  seen.userAgent = req.headers['user-agent'];
  seen.exchange = req.headers['sec-fetch-mode'] ? `fetch (sec-fetch-mode: ${req.headers['sec-fetch-mode']})` : 'no sec-fetch-mode';
  // On Node the client sends through undici's fetch, which always sends sec-fetch-mode.
  if (seen.userAgent?.includes('(node/') && !req.headers['sec-fetch-mode']) seen.problems.push('Node did not send through fetch');
  const problems: string[] = [];
  if (req.method !== 'POST' || req.url !== '/api/v1/checkout-sessions') problems.push(`unexpected ${req.method} ${req.url}`);
  const idempotencyKey = req.headers['idempotency-key'];
  if (typeof idempotencyKey !== 'string' || !UUID_V4.test(idempotencyKey))
    problems.push(`Idempotency-Key is not a UUID v4: ${String(idempotencyKey)}`);
  if (!String(req.headers['content-type']).startsWith('application/json')) problems.push(`content-type ${req.headers['content-type']}`);
  let body: Record<string, unknown> = {};
  try {
    body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>;
  } catch {
    problems.push('body is not JSON');
  }
  if (body.amount !== 5000 || body.currency !== 'XOF') problems.push(`unexpected body ${JSON.stringify(body)}`);
  if (problems.length > 0) {
    seen.problems.push(...problems);
    sendJson(res, 422, { message: problems.join('; '), errors: {} });
    return;
  }
  const reference = '01JD3Z8Q4X5Y6Z7A8B9C0D1E2F';
  // A valid session (as test/helpers/fixtures.ts checkoutSession()), echoing the key it received.
  sendJson(res, 201, {
    data: {
      reference,
      amount: body.amount,
      currency: body.currency,
      description: body.description ?? null,
      payer_name: null,
      payer_email: null,
      payer_phone: null,
      success_url: body.success_url ?? null,
      cancel_url: body.cancel_url ?? null,
      status: 'created',
      metadata: { ...(body.metadata as object), idempotency_key_seen: idempotencyKey },
      checkout_url: `https://checkout.example/c/${reference}`,
      expires_at: '2026-11-20T11:15:00+00:00',
      created_at: '2026-11-20T10:15:00+00:00',
    },
  });
}

const server = createServer((req, res) => {
  handle(req, res).catch((error: unknown) => sendJson(res, 500, { message: String(error) }));
});
await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

// ---------------------------------------------------------------------------------------------
// The consumer directory: the packed package, as npm would install it
// ---------------------------------------------------------------------------------------------

const consumer = mkdtempSync(join(tmpdir(), 'payments-sdk-runtimes-'));
function prepareConsumer(): void {
  installPacked(consumer);
  // A plain ESM app; no dependencies listed, so Deno (which reads package.json: "bring your own
  // node_modules") resolves from node_modules without asking a registry.
  writeFileSync(join(consumer, 'package.json'), `${JSON.stringify({ name: 'smoke-consumer', private: true, type: 'module' }, null, 2)}\n`);
  cpSync(join(root, 'scripts', 'runtime-smoke'), consumer, { recursive: true });
}

// ---------------------------------------------------------------------------------------------
// The runs
// ---------------------------------------------------------------------------------------------

interface Outcome {
  runtime: string;
  version: string;
  ok: boolean;
  /** Not run because an optional tool is not installed: shown in the table, not a failure. */
  skipped?: boolean;
  detail: string;
}

interface ProcessRun {
  runtime: string;
  bin: string;
  args: (config: string) => string[];
}

const bin = (...path: string[]) => join(root, 'node_modules', ...path);
const pinnedNode = existsSync(bin('node', 'bin', 'node')) ? bin('node', 'bin', 'node') : process.execPath;

const processRuns: ProcessRun[] = [
  { runtime: 'Node 22 (ESM)', bin: bin('node22', 'bin', 'node'), args: (c) => ['smoke.ts', c] },
  { runtime: 'Node 22 (require)', bin: bin('node22', 'bin', 'node'), args: (c) => ['require.cjs', c] },
  { runtime: 'Node 24 (ESM)', bin: bin('node24', 'bin', 'node'), args: (c) => ['smoke.ts', c] },
  { runtime: 'Node 24 (require)', bin: bin('node24', 'bin', 'node'), args: (c) => ['require.cjs', c] },
  { runtime: 'Node 26 (ESM)', bin: pinnedNode, args: (c) => ['smoke.ts', c] },
  { runtime: 'Node 26 (require)', bin: pinnedNode, args: (c) => ['require.cjs', c] },
  { runtime: 'Bun', bin: bin('.bin', 'bun'), args: (c) => ['smoke.ts', c] },
  {
    runtime: 'Deno',
    bin: bin('.bin', 'deno'),
    // Least privilege: the loopback server only. No --allow-env: the SDK must cope (readEnv treats a
    // denied read as unset). --no-prompt: a missing permission fails instead of waiting for a TTY.
    args: (c) => ['run', '--no-prompt', `--allow-net=${new URL(baseUrl).host}`, 'smoke.ts', c],
  },
];

function newRun(): { config: { baseUrl: string; apiKey: string; webhookSecret: string }; seen: Seen } {
  const apiKey = `sk_test_smoke_${randomBytes(8).toString('hex')}`;
  const seen: Seen = { requests: 0, problems: [] };
  seenByKey.set(apiKey, seen);
  return { config: { baseUrl, apiKey, webhookSecret: WEBHOOK_SECRET }, seen };
}

/** What the server saw for a run: exactly one valid request (the bad-params call must not leave). */
function serverVerdict(seen: Seen): string | undefined {
  if (seen.problems.length > 0) return `server: ${seen.problems.join('; ')}`;
  if (seen.requests !== 1) return `server saw ${seen.requests} requests, expected exactly 1`;
  return undefined;
}

function versionOf(path: string): string {
  try {
    return execFileSync(path, ['--version'], { encoding: 'utf8', timeout: 20_000, env: quietEnv() }).split('\n')[0]?.trim() ?? '?';
  } catch {
    return 'not runnable';
  }
}

function quietEnv(): NodeJS.ProcessEnv {
  // No update checks or telemetry from Deno/Bun: the run stays offline and loopback-only.
  return { ...process.env, DENO_NO_UPDATE_CHECK: '1', DENO_DIR: join(consumer, '.deno'), DO_NOT_TRACK: '1', NO_COLOR: '1' };
}

function runProcess(run: ProcessRun): Promise<Outcome> {
  if (!existsSync(run.bin)) {
    return Promise.resolve({ runtime: run.runtime, version: 'not installed', ok: false, detail: `${run.bin} is missing (npm install)` });
  }
  const { config, seen } = newRun();
  return new Promise((resolve) => {
    let stdout = '';
    let stderr = '';
    const child: ChildProcess = spawn(run.bin, run.args(JSON.stringify(config)), {
      cwd: consumer,
      env: quietEnv(),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), RUN_TIMEOUT_MS);
    child.stdout?.on('data', (data: Buffer) => {
      stdout += data.toString();
    });
    child.stderr?.on('data', (data: Buffer) => {
      stderr += data.toString();
    });
    child.on('error', (error) => {
      clearTimeout(timer);
      resolve({ runtime: run.runtime, version: 'not runnable', ok: false, detail: String(error) });
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      const resultLine = /^SMOKE_RESULT (.*)$/m.exec(stdout)?.[1];
      const errorLine = /^SMOKE_ERROR (.*)$/m.exec(stdout)?.[1];
      const result = resultLine ? (JSON.parse(resultLine) as { runtime: string; checks: string[] }) : undefined;
      const failed = errorLine ? (JSON.parse(errorLine) as { runtime: string; error: string }) : undefined;
      const version = result?.runtime ?? failed?.runtime ?? versionOf(run.bin);
      const server = serverVerdict(seen);
      if (code === 0 && result && !server) {
        resolve({
          runtime: run.runtime,
          version,
          ok: true,
          detail: passDetail(result.checks, seen),
        });
        return;
      }
      const why =
        failed?.error ??
        (signal ? `killed (${signal}) after ${RUN_TIMEOUT_MS} ms` : `exit ${code}${result ? '' : ', no SMOKE_RESULT'}`) +
          (stderr.trim() ? `: ${stderr.trim().split('\n').slice(-8).join(' | ')}` : '');
      resolve({ runtime: run.runtime, version, ok: false, detail: [why, server].filter(Boolean).join('; ') });
    });
  });
}

async function runEdge(): Promise<Outcome> {
  const runtime = 'Edge (EdgeVM)';
  const edgeVersion = (JSON.parse(readFileSync(bin('edge-runtime', 'package.json'), 'utf8')) as { version: string }).version;
  const vmVersion = (JSON.parse(readFileSync(bin('@edge-runtime', 'vm', 'package.json'), 'utf8')) as { version: string }).version;
  const version = `edge-runtime ${edgeVersion} (@edge-runtime/vm ${vmVersion})`;
  const { config, seen } = newRun();
  try {
    // One script, as Vercel's bundler would make it: the ESM build, edge conditions, no `node:`
    // (platform browser: a `node:` import on this path fails the bundle, which is the point).
    const bundle = await esbuild.build({
      entryPoints: [join(consumer, 'smoke.ts')],
      bundle: true,
      format: 'iife',
      globalName: '__paymentsSmoke',
      platform: 'browser',
      conditions: ['edge-light', 'worker', 'browser'],
      target: 'es2022',
      define: { 'import.meta.main': 'false' },
      tsconfigRaw: {},
      write: false,
      logLevel: 'silent',
    });
    // `EdgeRuntime` of the edge-runtime package is @edge-runtime/vm's EdgeVM (re-exported under that name).
    const { EdgeRuntime } = await import('edge-runtime');
    const vm = new EdgeRuntime();
    vm.evaluate(bundle.outputFiles[0]?.text ?? '');
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`timed out after ${RUN_TIMEOUT_MS} ms`)), RUN_TIMEOUT_MS);
    });
    try {
      // The result object comes from the VM's realm: JSON makes it a plain host value.
      const raw = await Promise.race([
        vm.evaluate<Promise<unknown>>(`__paymentsSmoke.runSmoke(${JSON.stringify(config)}).then(JSON.stringify)`),
        timeout,
      ]);
      const result = JSON.parse(raw as string) as { runtime: string; checks: string[] };
      const server = serverVerdict(seen);
      // The smoke's own label proves it ran inside the VM (globalThis.EdgeRuntime is set there only).
      const inside = result.runtime.startsWith('edge-runtime') ? undefined : `ran outside the EdgeVM? (${result.runtime})`;
      const problem = [server, inside].filter(Boolean).join('; ');
      if (problem) return { runtime, version, ok: false, detail: problem };
      return { runtime, version, ok: true, detail: passDetail(result.checks, seen) };
    } finally {
      clearTimeout(timer);
    }
  } catch (error) {
    return { runtime, version, ok: false, detail: [String(error), serverVerdict(seen)].filter(Boolean).join('; ') };
  }
}

/**
 * Cloudflare's workerd through Miniflare (a devDependency, whose `workerd` package ships the binary).
 * Missing, it is a failure: an install problem must not turn a tested runtime into an untested one.
 */
async function runWorkerd(compatibilityFlags: string[] = []): Promise<Outcome> {
  const runtime = `Cloudflare workerd${compatibilityFlags.length > 0 ? ` (${compatibilityFlags.join(', ')})` : ''}`;
  const require = createRequire(import.meta.url);
  let miniflarePath: string;
  try {
    miniflarePath = require.resolve('miniflare');
  } catch {
    return { runtime, version: 'not installed', ok: false, detail: 'miniflare is a devDependency: run npm install' };
  }
  const versionAt = (from: string, name: string) => {
    try {
      return (JSON.parse(readFileSync(createRequire(from).resolve(`${name}/package.json`), 'utf8')) as { version: string }).version;
    } catch {
      return '?';
    }
  };
  const version = `workerd ${versionAt(miniflarePath, 'workerd')} (miniflare ${versionAt(miniflarePath, 'miniflare')})`;
  const { config, seen } = newRun();
  // biome-ignore lint/suspicious/noExplicitAny: miniflare is optional, so it has no types at compile time.
  let mf: any;
  try {
    // A module worker, as wrangler would bundle it (workerd conditions); the smoke runs in its fetch handler.
    const bundle = await esbuild.build({
      stdin: {
        contents:
          "import { runSmoke } from './smoke.ts';\n" +
          'export default { async fetch(request) { try { return Response.json(await runSmoke(await request.json())); } ' +
          'catch (error) { return new Response(String(error), { status: 500 }); } } };',
        resolveDir: consumer,
        loader: 'js',
      },
      bundle: true,
      format: 'esm',
      platform: 'browser',
      conditions: ['workerd', 'worker', 'browser'],
      target: 'es2022',
      define: { 'import.meta.main': 'false' },
      tsconfigRaw: {},
      write: false,
      logLevel: 'silent',
    });
    const { Miniflare } = (await import(miniflarePath)) as { Miniflare: new (options: object) => unknown };
    mf = new Miniflare({ modules: true, script: bundle.outputFiles[0]?.text ?? '', compatibilityDate: '2026-01-01', compatibilityFlags });
    const response = await mf.dispatchFetch('http://smoke.local/', {
      method: 'POST',
      body: JSON.stringify(config),
      signal: AbortSignal.timeout(RUN_TIMEOUT_MS),
    });
    const text = await response.text();
    if (response.status !== 200) return { runtime, version, ok: false, detail: text };
    const result = JSON.parse(text) as { runtime: string; checks: string[] };
    const inside = result.runtime.startsWith('workerd') ? undefined : `ran outside workerd? (${result.runtime})`;
    // With nodejs_compat the SDK signs and verifies with node:crypto: the row exists to test that path.
    const nodeCrypto =
      compatibilityFlags.includes('nodejs_compat') && !result.checks.some((c) => c.includes('(node:crypto)'))
        ? 'nodejs_compat gave no node:crypto: the row does not test its path'
        : undefined;
    const problem = [serverVerdict(seen), inside, nodeCrypto].filter(Boolean).join('; ');
    if (problem) return { runtime, version, ok: false, detail: problem };
    return { runtime, version, ok: true, detail: passDetail(result.checks, seen) };
  } catch (error) {
    return { runtime, version, ok: false, detail: [String(error), serverVerdict(seen)].filter(Boolean).join('; ') };
  } finally {
    await mf?.dispose();
  }
}

/** A passing row's detail: how many checks, the User-Agent and exchange the server saw, the HMAC's path. */
function passDetail(checks: string[], seen: Seen): string {
  const hmac = /signWebhookPayload \(([^)]+)\)/.exec(checks.join('\n'))?.[1] ?? '?';
  return `${checks.length} checks; UA ${seen.userAgent}; ${seen.exchange}; HMAC ${hmac}`;
}

const outcomes: Outcome[] = [];
let routeSizes: Awaited<ReturnType<typeof measureRoutes>> = [];
try {
  prepareConsumer();
  for (const run of processRuns) outcomes.push(await runProcess(run));
  outcomes.push(await runEdge());
  outcomes.push(await runWorkerd());
  // Cloudflare's Node.js compatibility, a common setting: the webhook code then takes node:crypto.
  outcomes.push(await runWorkerd(['nodejs_compat']));
  outcomes.push(...(await runExamples(consumer)));
  routeSizes = await measureRoutes(consumer);
} catch (error) {
  outcomes.push({ runtime: 'setup', version: '—', ok: false, detail: String(error) });
} finally {
  server.closeAllConnections();
  server.close();
  rmSync(consumer, { recursive: true, force: true });
}

const header = ['runtime', 'version', 'result', 'detail'];
const rows = outcomes.map((o) => [o.runtime, o.version, o.skipped ? 'skipped' : o.ok ? 'pass' : 'FAIL', o.detail]);
const widths = header.map((h, i) => Math.max(h.length, ...rows.map((row) => (row[i] ?? '').length)));
const line = (cells: string[]) => `| ${cells.map((cell, i) => cell.padEnd(widths[i] ?? 0)).join(' | ')} |`;
console.log(`Runtime smoke of the packed package against ${baseUrl}:\n`);
console.log(line(header));
console.log(`|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`);
for (const row of rows) console.log(line(row));

if (routeSizes.length > 0) {
  console.log('\nWhat each route costs in a Worker bundle (esbuild, workerd conditions, minified; gzip as wrangler reports it):\n');
  for (const { route, minified, gzip } of routeSizes) {
    console.log(
      `  ${route.padEnd(48)} ${(minified / 1000).toFixed(1).padStart(6)} KB minified  ${(gzip / 1000).toFixed(1).padStart(5)} KB gzip`,
    );
  }
}

if (outcomes.some((o) => !o.ok)) {
  console.error('\nruntime smoke failed');
  process.exitCode = 1;
}
