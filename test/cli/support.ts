/**
 * Shared pieces of the CLI tests: the built bin run as a child process (one-shot or long-running),
 * and a real webhook endpoint on 127.0.0.1 that verifies every delivery with the SDK.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { verifyWebhook } from 'payments-sdk/webhooks';

export const root = fileURLToPath(new URL('../..', import.meta.url));
export const cliPath = fileURLToPath(new URL('../../dist/cli.js', import.meta.url));

/**
 * The Nodes a merchant may run the CLI on, each a devDependency: the pinned toolchain Node (this
 * process, under npm scripts) and the two older LTS lines, down to the runtime floor.
 */
export const nodes: Array<{ name: string; bin: string }> = [
  { name: 'the pinned Node', bin: process.execPath },
  { name: 'Node 24', bin: fileURLToPath(new URL('../../node_modules/node24/bin/node', import.meta.url)) },
  { name: 'Node 22', bin: fileURLToPath(new URL('../../node_modules/node22/bin/node', import.meta.url)) },
];

/** The environment of a child: no inherited PAYMENTS_* variable, plus `env`. */
export function childEnv(env: Record<string, string | undefined> = {}): NodeJS.ProcessEnv {
  const base: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(process.env)) if (!name.startsWith('PAYMENTS_') && name !== 'CI') base[name] = value;
  return { ...base, NO_COLOR: '1', ...env };
}

export interface CliResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** Runs `payments-sdk <args>` to its end (bounded: 60 s) on `node` (this one by default), stdout and stderr as pipes. */
export async function runCli(args: string[], env: Record<string, string | undefined> = {}, node = process.execPath): Promise<CliResult> {
  const child = spawn(node, [cliPath, ...args], { env: childEnv(env), stdio: ['ignore', 'pipe', 'pipe'] });
  return collect(child);
}

/** Waits for a child's end and collects its output; kills it after 60 s. */
export async function collect(child: ChildProcess): Promise<CliResult> {
  let stdout = '';
  let stderr = '';
  child.stdout?.setEncoding('utf8').on('data', (chunk: string) => {
    stdout += chunk;
  });
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
    stderr += chunk;
  });
  const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
  const [code, signal] = (await once(child, 'close')) as [number | null, NodeJS.Signals | null];
  clearTimeout(timer);
  return { code, signal, stdout, stderr };
}

/** A long-running CLI child (`mock`) whose stdout is read line by line. */
export class CliProcess {
  readonly child: ChildProcess;
  readonly lines: string[] = [];
  stderr = '';
  #waiters: Array<{ test: (line: string) => boolean; resolve: (line: string) => void }> = [];

  constructor(args: string[], env: Record<string, string | undefined> = {}) {
    this.child = spawn(process.execPath, [cliPath, ...args], { env: childEnv(env), stdio: ['ignore', 'pipe', 'pipe'] });
    this.child.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
      this.stderr += chunk;
    });
    createInterface({ input: this.child.stdout as NodeJS.ReadableStream }).on('line', (line) => {
      this.lines.push(line);
      this.#waiters = this.#waiters.filter((w) => {
        if (!w.test(line)) return true;
        w.resolve(line);
        return false;
      });
    });
  }

  /** The first line (already printed or to come) that passes `test`; fails after 15 s or when the child exits. */
  waitForLine(test: (line: string) => boolean, what = 'a line'): Promise<string> {
    const seen = this.lines.find(test);
    if (seen !== undefined) return Promise.resolve(seen);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`no ${what} within 15 s; stdout:\n${this.lines.join('\n')}\nstderr:\n${this.stderr}`)),
        15_000,
      );
      this.#waiters.push({
        test,
        resolve: (line) => {
          clearTimeout(timer);
          resolve(line);
        },
      });
      this.child.once('exit', (code) => {
        clearTimeout(timer);
        reject(new Error(`the CLI exited (${code}) before ${what}; stderr:\n${this.stderr}`));
      });
    });
  }

  /** The JSON lines printed so far (`--json`). */
  json(): Array<Record<string, unknown>> {
    return this.lines.filter((l) => l.startsWith('{')).map((l) => JSON.parse(l) as Record<string, unknown>);
  }

  /** Sends SIGINT and waits for the exit code. */
  async interrupt(): Promise<number | null> {
    if (this.child.exitCode !== null) return this.child.exitCode;
    const closed = once(this.child, 'exit');
    this.child.kill('SIGINT');
    const [code] = (await closed) as [number | null];
    return code;
  }
}

/** One delivery the endpoint received and verified. */
export interface Received {
  type: string;
  id: string;
  data: Record<string, unknown>;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** A webhook endpoint on 127.0.0.1 that verifies every delivery with `secret` and answers `status`. */
export class WebhookEndpoint {
  readonly received: Received[] = [];
  readonly rejected: string[] = [];
  status = 200;
  secret = '';
  #server: Server;
  #waiters: Array<() => void> = [];

  constructor() {
    this.#server = createServer(async (req, res) => {
      const chunks: Buffer[] = [];
      for await (const chunk of req) chunks.push(chunk as Buffer);
      const body = Buffer.concat(chunks).toString('utf8');
      try {
        const event = await verifyWebhook({ payload: body, headers: req.headers, secret: this.secret });
        this.received.push({ type: event.type, id: event.id, data: event.data as Record<string, unknown>, headers: req.headers, body });
        for (const wake of this.#waiters.splice(0)) wake();
        res.writeHead(this.status, { 'Content-Type': 'application/json' }).end(JSON.stringify({ received: event.id }));
      } catch (error) {
        this.rejected.push(String(error));
        res.writeHead(400, { 'Content-Type': 'application/json' }).end(JSON.stringify({ error: 'bad signature' }));
      }
    });
  }

  async listen(): Promise<string> {
    this.#server.listen(0, '127.0.0.1');
    await once(this.#server, 'listening');
    return `http://127.0.0.1:${(this.#server.address() as AddressInfo).port}/webhooks`;
  }

  /** Waits (15 s at most) until a verified delivery passes `test`. */
  async waitFor(test: (r: Received) => boolean, what: string): Promise<Received> {
    const deadline = Date.now() + 15_000;
    for (;;) {
      const found = this.received.find(test);
      if (found) return found;
      if (Date.now() > deadline)
        throw new Error(`no ${what} delivered within 15 s; got ${this.received.map((r) => r.type).join(', ') || 'nothing'}`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, 250);
        this.#waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  }

  close(): Promise<void> {
    return new Promise((resolve) => {
      this.#server.close(() => resolve());
      this.#server.closeAllConnections();
    });
  }
}
