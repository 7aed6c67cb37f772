/**
 * A real redis-server for the tests that need one (the Redis dedupe store, Redis journals).
 *
 * - `findRedisServer()` looks for the binary without root: `REDIS_SERVER` (a path), then every
 *   directory of PATH, then /usr/bin, /usr/sbin and /usr/local/bin (Debian puts it in /usr/bin,
 *   outside a restricted PATH). No npm package ships a redis-server binary (redis-memory-server
 *   downloads and compiles the sources from outside the registry), so none is fetched.
 * - `describeRedis(name, fn)` is `describe` when one is found. When none is: under `CI=true` a
 *   failing test says how to install it (CI must test Redis, never skip it); elsewhere the block is
 *   skipped, and `redisGlobalSetup` (vitest globalSetup) prints one line saying why and how to run it.
 * - `startRedisServer()` starts one on 127.0.0.1 on a free port, without persistence; `pause()`
 *   (SIGSTOP) and `resume()` (SIGCONT) simulate a server that stops answering; `stop()` kills it
 *   even when paused. Call `stop()` in afterAll; every server started is also killed at exit.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { createServer, Socket } from 'node:net';
import { FALLBACK_DIRS, findExecutable } from './executables.js';
import { describeWithServer, type MissingServer, reportMissingServer, withoutServer } from './server-plan.js';

/** Directories searched after PATH: where Debian, Fedora and Homebrew-on-Linux put redis-server. */
export const REDIS_FALLBACK_DIRS = FALLBACK_DIRS;

/** How to get the Redis tests to run, for messages. */
export const REDIS_INSTALL_HINT =
  'install it (Debian/Ubuntu: `apt-get install -y redis-server`; macOS: `brew install redis`) or set REDIS_SERVER=/path/to/redis-server';

/** The redis-server binary to use, or `undefined` when there is none. Synchronous: `describe` needs it at collection. */
export function findRedisServer(
  env: NodeJS.ProcessEnv = process.env,
  fallbackDirs: readonly string[] = REDIS_FALLBACK_DIRS,
): string | undefined {
  return findExecutable(['redis-server'], env.REDIS_SERVER, env, fallbackDirs);
}

/** What to do without a redis-server: run (found), fail (CI), or skip with the reason. */
export function redisPlan(binary: string | undefined, env: NodeJS.ProcessEnv = process.env): { run: true; binary: string } | MissingServer {
  if (binary) return { run: true, binary };
  return withoutServer(env, 'Redis', `no redis-server on PATH or in ${REDIS_FALLBACK_DIRS.join(', ')}`, REDIS_INSTALL_HINT);
}

const plan = redisPlan(findRedisServer());

/** `true` when the Redis tests run in this process. */
export const hasRedisServer = plan.run;

/**
 * `describe` for a block that needs a real redis-server (started in its `beforeAll` with
 * {@link startRedisServer}). Without one: skipped, or, under CI=true, one failing test.
 */
export function describeRedis(name: string, body: () => void): void {
  describeWithServer(plan, 'needs a redis-server', name, body);
}

/**
 * vitest globalSetup: prints the one line that says the Redis tests are skipped, and why. Under
 * CI=true without a server it throws, which fails the run before any test.
 */
export default function redisGlobalSetup(): void {
  reportMissingServer(plan);
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

/** A redis-server started for a test file, on a free loopback port, without persistence. */
export interface RedisServer {
  port: number;
  /** `redis://127.0.0.1:<port>`, for node-redis's `createClient({ url })`. */
  url: string;
  /** Freezes the process (SIGSTOP): connections stay open and nothing answers. */
  pause(): void;
  /** Resumes a paused server (SIGCONT). */
  resume(): void;
  /** Kills the server (resumed first when paused) and waits for its exit. */
  stop(): Promise<void>;
}

const running = new Set<ChildProcess>();
let exitHookInstalled = false;

function killAllAtExit(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  // A test file that dies before its afterAll must not leave a server behind (paused ones included).
  process.once('exit', () => {
    for (const child of running) {
      child.kill('SIGCONT');
      child.kill('SIGKILL');
    }
  });
}

/**
 * Starts a real redis-server (see {@link describeRedis} for when there is none: this throws, with
 * the way to install one). Binds 127.0.0.1 only, on a free port, with no RDB or AOF file.
 */
export async function startRedisServer(): Promise<RedisServer> {
  const binary = findRedisServer();
  if (!binary) throw new Error(`No redis-server on PATH or in ${REDIS_FALLBACK_DIRS.join(', ')}: ${REDIS_INSTALL_HINT}.`);
  for (let attempt = 0; ; attempt++) {
    try {
      return await startOn(binary, await freePort());
    } catch (error) {
      // Another process may take the free port between its probe and redis-server's bind.
      if (attempt >= 2 || !(error instanceof PortTakenError)) throw error;
    }
  }
}

class PortTakenError extends Error {}

async function startOn(binary: string, port: number): Promise<RedisServer> {
  const child = spawn(
    binary,
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', '/tmp', '--protected-mode', 'yes'],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  running.add(child);
  killAllAtExit();
  let output = '';
  child.stdout?.on('data', (chunk) => (output += chunk));
  child.stderr?.on('data', (chunk) => (output += chunk));
  let spawnError: Error | undefined;
  child.once('error', (error) => (spawnError = error));
  const exited = new Promise<void>((resolve) => {
    child.once('exit', () => {
      running.delete(child);
      resolve();
    });
    child.once('error', () => resolve());
  });

  // Wait until it answers PING: at most 100 tries, 50 ms apart (5 s).
  for (let attempt = 0; ; attempt++) {
    if (spawnError) throw new Error(`redis-server could not be started (${binary}): ${spawnError.message}`);
    if (child.exitCode !== null) {
      if (/Address already in use/i.test(output)) throw new PortTakenError(output);
      throw new Error(`redis-server exited with ${child.exitCode}: ${output}`);
    }
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
    pause() {
      child.kill('SIGSTOP');
    },
    resume() {
      child.kill('SIGCONT');
    },
    async stop() {
      if (child.exitCode === null && child.signalCode === null) {
        // A stopped process does not act on SIGTERM until continued.
        child.kill('SIGCONT');
        child.kill('SIGTERM');
      }
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
