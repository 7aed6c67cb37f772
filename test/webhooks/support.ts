/** Shared pieces of the webhook tests: secrets, event bodies, signed deliveries, a real redis-server. */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { createHmac } from 'node:crypto';
import { createServer, Socket } from 'node:net';
import { payment } from '../helpers/fixtures.js';

export const SECRET = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
export const OTHER_SECRET = 'whsec_0ldSecretBeforeRotation000000000';

/** A body as the service sends it (service-api.md §6.2): `{ id, type, data }`. */
export function eventBody(overrides: { id?: unknown; type?: string; data?: unknown } = {}): string {
  return JSON.stringify({
    id: 'evt_01JD3Z8Q4X5Y6Z7A8B9C0D1E2F',
    type: 'payment.succeeded',
    data: payment({ status: 'succeeded' }),
    ...overrides,
  });
}

/**
 * The signature computed independently of the SDK, with node:crypto: the SDK's Web Crypto code is
 * checked against it rather than against itself.
 */
export function nodeSignature(body: string | Uint8Array, secret = SECRET): string {
  return createHmac('sha256', secret).update(body).digest('hex');
}

/** Headers of a delivery of `body` (service-api.md §6.2). */
export function deliveryHeaders(body: string, opts: { secret?: string; type?: string | null } = {}): Record<string, string> {
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    'x-service-signature': nodeSignature(body, opts.secret ?? SECRET),
  };
  const type = opts.type === undefined ? typeOf(body) : opts.type;
  if (type) headers['x-service-event'] = type;
  return headers;
}

function typeOf(body: string): string | undefined {
  try {
    const type = (JSON.parse(body) as { type?: unknown }).type;
    return typeof type === 'string' ? type : undefined;
  } catch {
    return undefined;
  }
}

/** A free TCP port on 127.0.0.1. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

/** A redis-server started for the test run, on a free loopback port, without persistence. */
export interface RedisServer {
  port: number;
  url: string;
  stop(): Promise<void>;
}

/**
 * Starts a real redis-server. When it is not installed this throws, so the Redis tests FAIL with
 * the way to fix it (they never skip silently): `apt-get install -y redis-server`.
 */
export async function startRedisServer(): Promise<RedisServer> {
  const which = spawnSync('redis-server', ['--version'], { encoding: 'utf8' });
  if (which.error || which.status !== 0) {
    throw new Error(
      'redis-server is not installed, and the Redis dedupe store is tested against a real one. ' +
        'Install it with `apt-get update && apt-get install -y redis-server` (.ci/run does this in CI).',
    );
  }
  const port = await freePort();
  const child: ChildProcess = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout?.on('data', (chunk) => (output += chunk));
  child.stderr?.on('data', (chunk) => (output += chunk));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));

  // Wait until it answers PING: at most 100 tries, 50 ms apart (5 s).
  for (let attempt = 0; ; attempt++) {
    if (child.exitCode !== null) throw new Error(`redis-server exited with ${child.exitCode}: ${output}`);
    if (await pings(port)) break;
    if (attempt >= 100) {
      child.kill('SIGKILL');
      throw new Error(`redis-server did not answer on 127.0.0.1:${port} within 5 s: ${output}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return {
    port,
    url: `redis://127.0.0.1:${port}`,
    async stop() {
      if (child.exitCode === null) child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 2000);
      await exited;
      clearTimeout(timer);
    },
  };
}

function pings(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = new Socket();
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(500, () => done(false));
    socket.once('error', () => done(false));
    socket.connect(port, '127.0.0.1', () => socket.write('PING\r\n'));
    socket.once('data', (data) => done(data.toString().startsWith('+PONG')));
  });
}
