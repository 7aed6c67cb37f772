/**
 * A real PostgreSQL server for the tests that need one (the Postgres inbox and journal).
 *
 * - `findPostgresBin()` finds the directory holding `initdb` and `postgres` without root:
 *   `PG_BINDIR` (a directory), then what `pg_config --bindir` prints, then Debian's
 *   `/usr/lib/postgresql/<major>/bin` (newest first).
 * - `describePostgres(name, fn)` is `describe` when one is found. When none is: under `CI=true` a
 *   failing test says how to install it (CI must test Postgres, never skip it); elsewhere the block is
 *   skipped, and `postgresGlobalSetup` (vitest globalSetup) prints one line saying why.
 * - `startPostgresServer()` runs `initdb` into a new temporary directory and starts `postgres` on
 *   127.0.0.1 on a free port (trust authentication, no fsync: a test server). PostgreSQL refuses to
 *   run as root, so a root process runs it as the `postgres` user (or `nobody`). `pause()` (SIGSTOP)
 *   and `resume()` (SIGCONT) simulate a database that stops answering; `stop()` ends it even when
 *   paused and removes its directory. Every server started is also killed at exit.
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isExecutableFile } from './executables.js';
import { freePort } from './redis.js';
import { describeWithServer, type MissingServer, reportMissingServer, withoutServer } from './server-plan.js';

/** How to get the Postgres tests to run, for messages. */
export const POSTGRES_INSTALL_HINT =
  'install the server (Debian/Ubuntu: `apt-get install -y postgresql`; macOS: `brew install postgresql`) or set PG_BINDIR=/path/to/postgresql/bin';

/** The directory holding `initdb` and `postgres`, or `undefined`. Synchronous: `describe` needs it at collection. */
export function findPostgresBin(env: NodeJS.ProcessEnv = process.env): string | undefined {
  const holds = (dir: string) => isExecutableFile(join(dir, 'initdb')) && isExecutableFile(join(dir, 'postgres'));
  if (env.PG_BINDIR) return holds(env.PG_BINDIR) ? env.PG_BINDIR : undefined;
  try {
    const dir = execFileSync('pg_config', ['--bindir'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
    if (dir && holds(dir)) return dir;
  } catch {
    // No pg_config on PATH: look where Debian installs the server.
  }
  const debian = '/usr/lib/postgresql';
  if (!existsSync(debian)) return undefined;
  const majors = readdirSync(debian)
    .filter((name) => /^\d+$/.test(name))
    .sort((a, b) => Number(b) - Number(a));
  for (const major of majors) if (holds(join(debian, major, 'bin'))) return join(debian, major, 'bin');
  return undefined;
}

/** What to do without a server: run (found), fail (CI), or skip with the reason. */
export function postgresPlan(
  bindir: string | undefined,
  env: NodeJS.ProcessEnv = process.env,
): { run: true; bindir: string } | MissingServer {
  if (bindir) return { run: true, bindir };
  const where = 'no PostgreSQL server (initdb and postgres) from PG_BINDIR, pg_config --bindir or /usr/lib/postgresql/*/bin';
  return withoutServer(env, 'Postgres', where, POSTGRES_INSTALL_HINT);
}

const plan = postgresPlan(findPostgresBin());

/** `true` when the Postgres tests run in this process. */
export const hasPostgresServer = plan.run;

/**
 * `describe` for a block that needs a real PostgreSQL server (started in its `beforeAll` with
 * {@link startPostgresServer}). Without one: skipped, or, under CI=true, one failing test.
 */
export function describePostgres(name: string, body: () => void): void {
  describeWithServer(plan, 'needs a PostgreSQL server', name, body);
}

/**
 * vitest globalSetup: prints the one line that says the Postgres tests are skipped, and why. Under
 * CI=true without a server it throws, which fails the run before any test.
 */
export default function postgresGlobalSetup(): void {
  reportMissingServer(plan);
}

/** A PostgreSQL server started for a test file, on a free loopback port. */
export interface PostgresServer {
  port: number;
  /** `postgres://postgres@127.0.0.1:<port>/postgres`, for `new pg.Pool({ connectionString })` and postgres.js. */
  url: string;
  /** Freezes the postmaster and every backend (SIGSTOP): connections stay open and nothing answers. */
  pause(): void;
  /** Resumes a paused server (SIGCONT). */
  resume(): void;
  /** Stops the server (resumed first when paused), waits for its exit and removes its directory. */
  stop(): Promise<void>;
}

const running = new Set<ChildProcess>();
let exitHookInstalled = false;

function killAllAtExit(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.once('exit', () => {
    for (const child of running) signalGroup(child, 'SIGCONT');
    for (const child of running) signalGroup(child, 'SIGKILL');
  });
}

/**
 * Signals the postmaster and every process it forked. Each backend calls `setsid()` when it starts,
 * so a signal to the postmaster's process group would not reach them: they are found by parent pid.
 */
function signalGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  if (child.pid === undefined) return;
  for (const pid of [child.pid, ...childrenOf(child.pid)]) {
    try {
      process.kill(pid, signal);
    } catch {
      // Already gone.
    }
  }
}

/** The pids whose parent is `parent`, read from /proc (Linux). */
function childrenOf(parent: number): number[] {
  const pids: number[] = [];
  let entries: string[] = [];
  try {
    entries = readdirSync('/proc');
  } catch {
    return pids;
  }
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      // "pid (comm) state ppid …": the command may hold spaces and parentheses, so read after the last ')'.
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (ppid === parent) pids.push(Number(entry));
    } catch {
      // The process ended while being read.
    }
  }
  return pids;
}

/** The user a root process runs PostgreSQL as: `postgres` when it exists, else `nobody`. */
function unprivilegedUser(): { uid: number; gid: number } | undefined {
  if (typeof process.getuid !== 'function' || process.getuid() !== 0) return undefined;
  for (const name of ['postgres', 'nobody']) {
    try {
      const uid = Number(execFileSync('id', ['-u', name], { encoding: 'utf8' }).trim());
      const gid = Number(execFileSync('id', ['-g', name], { encoding: 'utf8' }).trim());
      if (Number.isInteger(uid) && Number.isInteger(gid)) return { uid, gid };
    } catch {
      // No such user: try the next.
    }
  }
  throw new Error('Running as root and neither a `postgres` nor a `nobody` user exists: PostgreSQL refuses to run as root.');
}

/**
 * Starts a real PostgreSQL server (see {@link describePostgres} for when there is none: this throws,
 * with the way to install one). Binds 127.0.0.1 only, on a free port.
 */
export async function startPostgresServer(): Promise<PostgresServer> {
  const bindir = findPostgresBin();
  if (!bindir) throw new Error(`No PostgreSQL server found: ${POSTGRES_INSTALL_HINT}.`);
  const user = unprivilegedUser();
  const dir = mkdtempSync(join(tmpdir(), 'payments-sdk-pg-'));
  chmodSync(dir, 0o700);
  if (user) chownSync(dir, user.uid, user.gid);
  const data = join(dir, 'data');
  execFileSync(join(bindir, 'initdb'), ['-D', data, '-U', 'postgres', '-A', 'trust', '--no-sync', '-E', 'UTF8', '--locale=C'], {
    stdio: ['ignore', 'pipe', 'pipe'],
    cwd: dir,
    ...user,
  });
  for (let attempt = 0; ; attempt++) {
    try {
      return await startOn(bindir, dir, data, await freePort(), user);
    } catch (error) {
      // Another process may take the free port between its probe and the server's bind.
      if (attempt >= 2 || !(error instanceof PortTakenError)) {
        rmSync(dir, { recursive: true, force: true });
        throw error;
      }
    }
  }
}

class PortTakenError extends Error {}

async function startOn(
  bindir: string,
  dir: string,
  data: string,
  port: number,
  user: { uid: number; gid: number } | undefined,
): Promise<PostgresServer> {
  const child = spawn(
    join(bindir, 'postgres'),
    [
      '-D',
      data,
      '-h',
      '127.0.0.1',
      '-p',
      String(port),
      '-k',
      dir,
      '-c',
      'fsync=off',
      '-c',
      'synchronous_commit=off',
      '-c',
      'full_page_writes=off',
      '-c',
      'max_connections=200',
    ],
    { stdio: ['ignore', 'pipe', 'pipe'], cwd: dir, ...user },
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

  // Ready once it logs so: at most 200 tries, 50 ms apart (10 s).
  for (let attempt = 0; ; attempt++) {
    if (spawnError) throw new Error(`postgres could not be started (${bindir}): ${spawnError.message}`);
    if (child.exitCode !== null) {
      if (/could not bind|Address already in use/i.test(output)) throw new PortTakenError(output);
      throw new Error(`postgres exited with ${child.exitCode}: ${output}`);
    }
    if (/ready to accept connections/.test(output)) break;
    if (attempt >= 200) {
      signalGroup(child, 'SIGKILL');
      throw new Error(`postgres did not start on 127.0.0.1:${port} within 10 s: ${output}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return {
    port,
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    pause() {
      signalGroup(child, 'SIGSTOP');
    },
    resume() {
      signalGroup(child, 'SIGCONT');
    },
    async stop() {
      if (child.exitCode === null && child.signalCode === null) {
        signalGroup(child, 'SIGCONT');
        // SIGINT: PostgreSQL's fast shutdown.
        child.kill('SIGINT');
      }
      const timer = setTimeout(() => signalGroup(child, 'SIGKILL'), 5000);
      await exited;
      clearTimeout(timer);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
