/**
 * The command line as a merchant first meets it: `npx payments-sdk …` in a new project that installed
 * the packed tarball (scripts/check-consumer.ts makes that project and calls this). Every command runs
 * once, end to end, on 127.0.0.1 only:
 *
 *   --help                 lists the four commands
 *   mock                   started with a seed; its ready line gives the base URL, keys and secret
 *   trigger                one signed delivery to a local endpoint, whose signature is checked here
 *   export payments        a CSV file with the seeded payment
 *   payouts bulk           two rows paid, then the same command again: both skipped, none paid twice
 *
 * No key or secret may appear in any output or file written. Throws on the first failure.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { createHmac, timingSafeEqual } from 'node:crypto';
import { once } from 'node:events';
import { readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { createInterface } from 'node:readline';

interface Ran {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * Starts `npx --no-install payments-sdk <args>` in `project`, in a process group of its own (see
 * {@link killGroup}), with no inherited PAYMENTS_* variable, plus `env`.
 */
function spawnCli(project: string, args: string[], env: Record<string, string> = {}) {
  return spawn('npx', ['--no-install', 'payments-sdk', ...args], {
    cwd: project,
    env: { ...withoutPaymentsVariables(), ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
}

/** `npx --no-install payments-sdk <args>` in `project`, to its end (60 s at most). */
async function npx(project: string, args: string[], env: Record<string, string> = {}): Promise<Ran> {
  const child = spawnCli(project, args, env);
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    stdout += chunk;
  });
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
    stderr += chunk;
  });
  const timer = setTimeout(() => killGroup(child, 'SIGKILL'), 60_000);
  const [code] = (await once(child, 'close')) as [number | null];
  clearTimeout(timer);
  return { code, stdout, stderr };
}

function withoutPaymentsVariables(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { NO_COLOR: '1', npm_config_update_notifier: 'false' };
  for (const [name, value] of Object.entries(process.env)) if (!name.startsWith('PAYMENTS_') && name !== 'CI') env[name] = value;
  return env;
}

/** npx runs the bin in a child of its own: the signal goes to the whole process group. */
function killGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  try {
    if (child.pid !== undefined) process.kill(-child.pid, signal);
  } catch {
    // Already gone.
  }
}

function expect(condition: boolean, what: string, ran?: Ran): void {
  if (!condition) {
    throw new Error(`consumer-cli: ${what}${ran ? `\n(exit ${ran.code})\nstdout:\n${ran.stdout}\nstderr:\n${ran.stderr}` : ''}`);
  }
}

/** Starts `payments-sdk mock --json` and resolves with its ready line. */
async function startMock(project: string, seed: string): Promise<{ child: ChildProcess; ready: Record<string, string> }> {
  const child = spawnCli(project, ['mock', '--port', '0', '--settle-after', '0', '--seed', seed, '--json']);
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
    stderr += chunk;
  });
  const lines = createInterface({ input: child.stdout });
  const timer = setTimeout(() => killGroup(child, 'SIGKILL'), 30_000);
  try {
    for await (const line of lines) {
      if (line.includes('"ready"')) return { child, ready: JSON.parse(line) as Record<string, string> };
    }
  } finally {
    clearTimeout(timer);
  }
  throw new Error(`consumer-cli: mock ended without a ready line; stderr:\n${stderr}`);
}

/** Runs every command from the installed tarball in `project` (its node_modules holds payments-sdk). */
export async function checkCliFromTarball(project: string): Promise<void> {
  const help = await npx(project, ['--help']);
  expect(
    help.code === 0 && ['mock', 'trigger', 'export', 'payouts'].every((c) => help.stdout.includes(c)),
    '--help lists the commands',
    help,
  );

  const seed = join(project, 'cli-seed.json');
  writeFileSync(
    seed,
    JSON.stringify({
      payments: [{ gross_amount: 1000, currency: 'XOF', status: 'succeeded' }],
      live: { wallets: [{ currency: 'XOF', balance: 1_000_000 }] },
    }),
  );
  const { child: mock, ready } = await startMock(project, seed);
  const deliveries: Array<{ body: string; signature: string }> = [];
  const endpoint = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      deliveries.push({ body: Buffer.concat(chunks).toString('utf8'), signature: String(req.headers['x-service-signature'] ?? '') });
      res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
    });
  });
  try {
    const secrets = [ready.sandboxKey, ready.liveKey, ready.webhookSecret] as string[];
    expect(
      secrets.every((s) => typeof s === 'string' && s.length > 8) && /^http:\/\/127\.0\.0\.1:\d+$/.test(ready.baseUrl ?? ''),
      'mock ready line',
    );
    const noSecret = (ran: Ran, what: string) => {
      expect(!secrets.some((s) => ran.stdout.includes(s) || ran.stderr.includes(s)), `${what} printed a key or the webhook secret`);
    };

    endpoint.listen(0, '127.0.0.1');
    await once(endpoint, 'listening');
    const url = `http://127.0.0.1:${(endpoint.address() as AddressInfo).port}/webhooks`;
    const trigger = await npx(project, ['trigger', 'payment.succeeded', '--forward-to', url], {
      PAYMENTS_WEBHOOK_SECRET: ready.webhookSecret as string,
    });
    noSecret(trigger, 'trigger');
    expect(trigger.code === 0 && deliveries.length === 1, 'trigger delivers one event and exits 0', trigger);
    const delivery = deliveries[0] as { body: string; signature: string };
    const mac = createHmac('sha256', ready.webhookSecret as string)
      .update(delivery.body)
      .digest();
    const given = Buffer.from(delivery.signature, 'hex');
    expect(given.length === mac.length && timingSafeEqual(given, mac), 'the delivery is signed with the webhook secret');
    expect((JSON.parse(delivery.body) as { type?: string }).type === 'payment.succeeded', 'the delivery is payment.succeeded');

    const sandbox = { PAYMENTS_API_KEY: ready.sandboxKey as string, PAYMENTS_BASE_URL: ready.baseUrl as string };
    const csv = join(project, 'payments.csv');
    const exported = await npx(project, ['export', 'payments', '--out', csv], sandbox);
    noSecret(exported, 'export');
    const rows = readFileSync(csv, 'utf8').trim().split('\n');
    expect(
      exported.code === 0 && rows[0]?.startsWith('uuid,') === true && rows.length >= 2,
      'export writes a CSV of the payments',
      exported,
    );
    expect(!secrets.some((s) => rows.join('\n').includes(s)), 'the exported file holds no key');

    const live = { PAYMENTS_API_KEY: ready.liveKey as string, PAYMENTS_BASE_URL: ready.baseUrl as string };
    const payroll = join(project, 'payroll.csv');
    writeFileSync(
      payroll,
      'key,amount,currency,country,provider,phone\nemp-1,1500,XOF,SEN,wave,221771234567\nemp-2,900,XOF,SEN,orange,221771234568\n',
    );
    const args = ['payouts', 'bulk', payroll, '--batch-id', 'consumer-1', '--results', '-'];
    const first = await npx(project, args, live);
    noSecret(first, 'payouts bulk');
    expect(first.code === 0 && (first.stdout.match(/,created,/g) ?? []).length === 2, 'payouts bulk creates both rows', first);
    const again = await npx(project, args, live);
    noSecret(again, 'payouts bulk (rerun)');
    // The rerun sends nothing; its results read each row's latest state: created, with its payout.
    expect(
      again.code === 0 && again.stderr.includes('skipped 2') && (again.stdout.match(/,created,/g) ?? []).length === 2,
      'the rerun skips both rows',
      again,
    );
    // The default store: a file named after the batch id, in .payments-sdk/ of the directory it ran in.
    const store = readFileSync(join(project, '.payments-sdk', 'consumer-1.store'), 'utf8');
    expect(!secrets.some((s) => store.includes(s)), 'the store holds no key');
  } finally {
    endpoint.close();
    // Stopped and waited for, so that it never outlives the project it runs in.
    if (mock.exitCode === null && mock.signalCode === null) {
      const exited = once(mock, 'exit');
      killGroup(mock, 'SIGINT');
      const timer = setTimeout(() => killGroup(mock, 'SIGKILL'), 10_000);
      await exited;
      clearTimeout(timer);
    }
  }
}
