/**
 * The examples of docs/runtimes.md (examples/runtimes/), run as a merchant runs them against the
 * packed package, under each runtime's own binary: the Worker in workerd (Miniflare, with its D1
 * persisted across a restart), the Deno server with exactly the permission flags the guide gives,
 * the Bun server, and `bun test` with the testing kit. The host plays the service with the testing
 * kit's `mock.listen()` on 127.0.0.1. Also measures what each route costs in a Worker bundle, the
 * way wrangler ships it (esbuild, workerd conditions, minified; gzip).
 *
 * Used by scripts/test-runtimes.ts, after the consumer directory is prepared.
 */
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import * as esbuild from 'esbuild';
import { Miniflare } from 'miniflare';
import { createMockService, type MockHttpServer, type MockService } from 'payments-sdk/testing';
import { root } from './install-packed.ts';

/** One row of the runtime table. */
export interface ExampleOutcome {
  runtime: string;
  version: string;
  ok: boolean;
  detail: string;
}

/** The permission flags docs/runtimes.md gives for the Deno example, but the service's host. */
export const DENO_ENV_FLAG = '--allow-env=PAYMENTS_API_KEY,PAYMENTS_BASE_URL,PAYMENTS_WEBHOOK_SECRET,PORT';

const TIMEOUT_MS = 60_000;
const bin = (...path: string[]) => join(root, 'node_modules', ...path);

function check(condition: unknown, what: string, checks: string[]): void {
  if (!condition) throw new Error(`failed: ${what}`);
  checks.push(what);
}

/** The last path segment of a checkout URL: the session's reference. */
const referenceOf = (checkoutUrl: string) => new URL(checkoutUrl).pathname.split('/').at(-1) ?? '';

/** A free port on 127.0.0.1. */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      probe.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

/** Bundles `entry` (in the consumer directory) as wrangler would: esbuild, workerd conditions, minified. */
async function workerBundle(consumer: string, contents: string): Promise<string> {
  const result = await esbuild.build({
    stdin: { contents, resolveDir: consumer, loader: 'ts', sourcefile: 'worker-entry.ts' },
    bundle: true,
    minify: true,
    format: 'esm',
    platform: 'browser',
    conditions: ['workerd', 'worker', 'browser'],
    target: 'es2022',
    tsconfigRaw: {},
    write: false,
    logLevel: 'silent',
  });
  return result.outputFiles[0]?.text ?? '';
}

/** What each route costs in a Worker bundle: minified and gzipped bytes. */
export async function measureRoutes(consumer: string): Promise<Array<{ route: string; minified: number; gzip: number }>> {
  const routes: Array<[string, string]> = [
    ['verifyWebhook alone', "import { verifyWebhook } from 'payments-sdk/webhooks';\nexport { verifyWebhook };"],
    [
      'webhook route: webhookHandler (memory store)',
      "import { webhookHandler } from 'payments-sdk/webhooks';\nexport default { fetch: (r: Request, env: { S: string }) => webhookHandler({ secret: env.S, onEvent: () => {} })(r) };",
    ],
    [
      'webhook route: webhookHandler + d1Store',
      "import { d1Store } from 'payments-sdk/stores';\nimport { webhookHandler } from 'payments-sdk/webhooks';\nexport default { fetch: (r: Request, env: { S: string; DB: any }) => webhookHandler({ secret: env.S, store: d1Store(env.DB), onEvent: () => [] })(r) };",
    ],
    [
      'checkout route: PaymentsClient',
      "import { PaymentsClient } from 'payments-sdk';\nexport default { fetch: async (r: Request, env: { K: string; B: string }) => Response.json(await new PaymentsClient({ apiKey: env.K, baseUrl: env.B }).checkoutSessions.create({ amount: 1, currency: 'XOF' })) };",
    ],
    ['the example Worker (both routes)', "export { default } from './worker.ts';"],
  ];
  const rows = [];
  for (const [route, code] of routes) {
    const text = await workerBundle(consumer, code);
    rows.push({ route, minified: Buffer.byteLength(text), gzip: gzipSync(text).length });
  }
  return rows;
}

/** The Worker in workerd, its D1 persisted: checkout, a delivery posted 3 times, a restart, once more. */
async function runWorker(consumer: string, mock: MockService, server: MockHttpServer): Promise<ExampleOutcome> {
  const runtime = 'Example: Cloudflare Worker + D1 (workerd)';
  const version = `miniflare ${(JSON.parse(readFileSync(bin('miniflare', 'package.json'), 'utf8')) as { version: string }).version}`;
  const persist = mkdtempSync(join(tmpdir(), 'payments-sdk-d1-example-'));
  const checks: string[] = [];
  let mf: Miniflare | undefined;
  const start = async (script: string) => {
    mf = new Miniflare({
      modules: true,
      script,
      compatibilityDate: '2026-01-01',
      d1Databases: ['DB'],
      d1Persist: persist,
      bindings: { PAYMENTS_API_KEY: mock.apiKey, PAYMENTS_BASE_URL: server.url, PAYMENTS_WEBHOOK_SECRET: mock.webhookSecret },
    });
    return { mf, db: await mf.getD1Database('DB') };
  };
  try {
    const script = await workerBundle(consumer, "export { default } from './worker.ts';");
    let { mf: worker, db } = await start(script);
    await db.prepare('CREATE TABLE IF NOT EXISTS paid_orders (payment_uuid TEXT PRIMARY KEY, amount INTEGER)').run();

    const checkout = await worker.dispatchFetch('http://worker.local/checkout', { method: 'POST', redirect: 'manual' });
    const location = checkout.headers.get('location') ?? '';
    check(checkout.status === 303 && location.startsWith(server.url), 'POST /checkout → 303 to the checkout page', checks);

    const delivery = await mock.paySession(referenceOf(location));
    const post = (target: Miniflare) =>
      target.dispatchFetch('http://worker.local/webhooks', { method: 'POST', headers: delivery.headers, body: delivery.body });
    const statuses = [];
    for (let i = 0; i < 3; i++) statuses.push((await post(worker)).status);
    check(statuses.join() === '200,200,200', 'one delivery posted 3 times → 200 each', checks);
    const count = async () => ((await db.prepare('SELECT COUNT(*) AS n FROM paid_orders').first()) as { n: number }).n;
    check((await count()) === 1, 'the order recorded once in D1', checks);

    await worker.dispose();
    ({ mf: worker, db } = await start(script));
    const afterRestart = await post(worker);
    check(
      afterRestart.status === 200 && ((await afterRestart.json()) as { duplicate?: boolean }).duplicate === true,
      'after a restart, the same delivery is a duplicate',
      checks,
    );
    check((await count()) === 1, 'still recorded once', checks);
    return { runtime, version, ok: true, detail: checks.join('; ') };
  } catch (error) {
    return { runtime, version, ok: false, detail: [...checks, String(error)].join('; ') };
  } finally {
    await mf?.dispose();
    rmSync(persist, { recursive: true, force: true });
  }
}

/** A server example under its binary: checkout, a delivery twice, then what it recorded. */
async function runServer(
  runtime: string,
  binary: string,
  args: string[],
  consumer: string,
  mock: MockService,
  server: MockHttpServer,
): Promise<ExampleOutcome> {
  const version = await output(binary, ['--version'], consumer).then(
    (text) => text.split('\n')[0]?.trim() ?? '?',
    () => 'not runnable',
  );
  const port = await freePort();
  const checks: string[] = [];
  let stderr = '';
  const child: ChildProcess = spawn(binary, args, {
    cwd: consumer,
    stdio: ['ignore', 'ignore', 'pipe'],
    env: {
      PATH: process.env.PATH ?? '',
      HOME: consumer,
      DENO_DIR: join(consumer, '.deno'),
      DENO_NO_UPDATE_CHECK: '1',
      DO_NOT_TRACK: '1',
      NO_COLOR: '1',
      PORT: String(port),
      PAYMENTS_API_KEY: mock.apiKey,
      PAYMENTS_BASE_URL: server.url,
      PAYMENTS_WEBHOOK_SECRET: mock.webhookSecret,
    },
  });
  child.stderr?.on('data', (data: Buffer) => {
    stderr += data.toString();
  });
  const base = `http://127.0.0.1:${port}`;
  try {
    const deadline = Date.now() + TIMEOUT_MS;
    for (;;) {
      if (child.exitCode !== null) throw new Error(`exited ${child.exitCode}: ${stderr.trim().split('\n').slice(-5).join(' | ')}`);
      const up = await fetch(`${base}/paid`).then(
        (r) => r.ok,
        () => false,
      );
      if (up) break;
      if (Date.now() > deadline) throw new Error('did not start listening');
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const checkout = await fetch(`${base}/checkout`, { method: 'POST', redirect: 'manual' });
    const location = checkout.headers.get('location') ?? '';
    check(checkout.status === 303 && location.startsWith(server.url), 'POST /checkout → 303 to the checkout page', checks);
    const delivery = await mock.paySession(referenceOf(location));
    const first = await mock.deliver(delivery, `${base}/webhooks`);
    const second = await mock.deliver(delivery, `${base}/webhooks`);
    check(first.status === 200 && second.status === 200, 'one delivery posted twice → 200 each', checks);
    const paid = (await (await fetch(`${base}/paid`)).json()) as string[];
    check(paid.length === 1 && paid[0] === delivery.event.data.uuid, 'the payment handled once', checks);
    return { runtime, version, ok: true, detail: checks.join('; ') };
  } catch (error) {
    return { runtime, version, ok: false, detail: [...checks, String(error)].join('; ') };
  } finally {
    child.kill('SIGKILL');
  }
}

/** Runs `binary args` in `cwd`; its stdout, or a rejection with both outputs. */
function output(binary: string, args: string[], cwd: string): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(
      binary,
      args,
      { cwd, timeout: TIMEOUT_MS, env: { ...process.env, DENO_DIR: join(cwd, '.deno'), DENO_NO_UPDATE_CHECK: '1', NO_COLOR: '1' } },
      (error, stdout, stderr) => (error ? reject(new Error(`${error.message}\n${stdout}\n${stderr}`)) : resolve(`${stdout}${stderr}`)),
    );
  });
}

/** `deno check` of the Deno example (Deno's own types), then `bun test` of the testing-kit example. */
async function runChecks(consumer: string): Promise<ExampleOutcome[]> {
  const outcomes: ExampleOutcome[] = [];
  try {
    await output(bin('.bin', 'deno'), ['check', 'deno-server.ts'], consumer);
    outcomes.push({ runtime: 'Example: deno check deno-server.ts', version: '', ok: true, detail: 'type-checks with Deno’s types' });
  } catch (error) {
    outcomes.push({ runtime: 'Example: deno check deno-server.ts', version: '', ok: false, detail: String(error).slice(0, 600) });
  }
  try {
    const text = await output(bin('.bin', 'bun'), ['test', './checkout_test.ts'], consumer);
    const passed = /\b1 pass\b/.test(text) && /\b0 fail\b/.test(text);
    outcomes.push({
      runtime: 'Example: bun test checkout_test.ts',
      version: '',
      ok: passed,
      detail: passed ? '1 pass, 0 fail' : text.slice(-600),
    });
  } catch (error) {
    outcomes.push({ runtime: 'Example: bun test checkout_test.ts', version: '', ok: false, detail: String(error).slice(-600) });
  }
  return outcomes;
}

/** Copies the examples into the consumer directory and runs every one. */
export async function runExamples(consumer: string): Promise<ExampleOutcome[]> {
  cpSync(join(root, 'examples', 'runtimes'), consumer, { recursive: true });
  const mock = createMockService();
  const server = await mock.listen();
  try {
    const outcomes = [await runWorker(consumer, mock, server)];
    outcomes.push(
      await runServer(
        'Example: Deno.serve (least permissions)',
        bin('.bin', 'deno'),
        ['run', '--no-prompt', DENO_ENV_FLAG, '--allow-net=127.0.0.1', 'deno-server.ts'],
        consumer,
        mock,
        server,
      ),
    );
    outcomes.push(await runServer('Example: Bun.serve', bin('.bin', 'bun'), ['bun-server.ts'], consumer, mock, server));
    outcomes.push(...(await runChecks(consumer)));
    return outcomes;
  } finally {
    await server.close();
  }
}
