/**
 * One test per recipe: start the app as its own process on 127.0.0.1 (port 0), send it signed
 * deliveries made by the testing kit, and check the answers and how many times the handler ran
 * (each app appends every handleEvent call to EVENTS_FILE, shared/orders.ts).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PaymentsClient } from 'payments-sdk';
import { createMockService, type MockService, type WebhookDelivery } from 'payments-sdk/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

export interface Recipe {
  /** The folder under examples/frameworks. */
  dir: string;
  /** How the app starts, run in its folder with the pinned Node: e.g. ['server.ts']. */
  args: string[];
  /** The webhook route of the recipe. */
  path: string;
  /** A route of the same app with the framework's body-parsing mistake in front of the handler. */
  mistakePath: string;
  /** What the SDK's 400 answer to the mistake says: the fix for this framework. */
  mistakeMessage: RegExp;
  /** Other webhook routes of the app that must handle a genuine delivery too (another way to wire it). */
  otherPaths?: string[];
}

const frameworks = join(import.meta.dirname, '..');

interface RunningApp {
  url: string;
  output: () => string;
  stop: () => Promise<void>;
}

/** Starts the app and resolves once it printed the URL it listens on. */
function startApp(recipe: Recipe, env: Record<string, string>): Promise<RunningApp> {
  const child: ChildProcess = spawn(process.execPath, recipe.args, {
    cwd: join(frameworks, recipe.dir),
    env: { ...process.env, ...env, PORT: '0', NODE_ENV: 'production', NEXT_TELEMETRY_DISABLED: '1' },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true, // its own process group: stop() ends next start's workers too
  });
  let output = '';
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    process.kill(-(child.pid as number), 'SIGTERM');
    await exited;
  };
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      void stop();
      reject(new Error(`${recipe.dir} did not print its URL within 30 s:\n${output}`));
    }, 30_000);
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const match = /http:\/\/127\.0\.0\.1:(\d+)/.exec(output);
      if (match) {
        clearTimeout(timer);
        resolve({ url: `http://127.0.0.1:${match[1]}`, output: () => output, stop });
      }
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`${recipe.dir} exited with ${code} before listening:\n${output}`));
    });
  });
}

/** The test of one recipe: genuine, duplicate, tampered, a handler that throws, and the framework's mistake. */
export function testRecipe(recipe: Recipe): void {
  describe(recipe.dir, () => {
    const scratch = mkdtempSync(join(tmpdir(), `recipe-${recipe.dir}-`));
    const eventsFile = join(scratch, 'events.ndjson');
    let mock: MockService;
    let client: PaymentsClient;
    let app: RunningApp;
    /** Ids of the events the handler ran for, one per run, in order. */
    const handled = (): string[] => {
      try {
        return readFileSync(eventsFile, 'utf8')
          .split('\n')
          .filter(Boolean)
          .map((line) => (JSON.parse(line) as { id: string }).id);
      } catch {
        return [];
      }
    };
    const paid = async (): Promise<WebhookDelivery> => {
      const session = await client.checkoutSessions.create({
        amount: 5000,
        currency: 'XOF',
        description: 'Order 1042',
        success_url: 'https://shop.example/thanks',
      });
      return mock.paySession(session.reference);
    };
    const send = async (delivery: WebhookDelivery, path: string, body?: string) => {
      const response = await mock.deliver(delivery, `${app.url}${path}`, body === undefined ? {} : { body });
      return { status: response.status, body: (await response.json()) as Record<string, unknown> };
    };
    const expected: string[] = [];

    beforeAll(async () => {
      mock = createMockService();
      client = new PaymentsClient({ apiKey: mock.apiKey, baseUrl: mock.baseUrl, fetch: mock.fetch });
      app = await startApp(recipe, { PAYMENTS_WEBHOOK_SECRET: mock.webhookSecret, EVENTS_FILE: eventsFile });
    });

    afterAll(async () => {
      await app?.stop();
      rmSync(scratch, { recursive: true, force: true });
    });

    it('answers 200 to a genuine delivery, after running the handler once', async () => {
      const delivery = await paid();
      expect(await send(delivery, recipe.path)).toEqual({ status: 200, body: { received: true } });
      expected.push(delivery.event.id);
      expect(handled()).toEqual(expected);
    });

    it('answers 200 to a duplicate without running the handler again', async () => {
      const delivery = await paid();
      expect((await send(delivery, recipe.path)).status).toBe(200);
      expect(await send(delivery, recipe.path)).toEqual({ status: 200, body: { received: true, duplicate: true } });
      expected.push(delivery.event.id);
      expect(handled()).toEqual(expected);
    });

    it('answers 400 to a tampered delivery, without running the handler', async () => {
      const delivery = await paid();
      const tampered = delivery.body.replace('"gross_amount":5000', '"gross_amount":50000');
      expect(tampered).not.toBe(delivery.body);
      expect(await send(delivery, recipe.path, tampered)).toEqual({
        status: 400,
        body: { error: 'Webhook signature mismatch.', reason: 'signature_mismatch' },
      });
      expect(handled()).toEqual(expected);
    });

    it('answers 500 when the handler throws, so the service delivers again', async () => {
      const delivery = await mock.createDelivery({ type: 'shop.unprocessable', data: {} });
      expect(await send(delivery, recipe.path)).toMatchObject({ status: 500 });
      expected.push(delivery.event.id);
      expect(handled()).toEqual(expected);
    });

    for (const path of recipe.otherPaths ?? []) {
      it(`answers 200 to a genuine delivery on ${path} too, after running the handler once`, async () => {
        const delivery = await paid();
        expect(await send(delivery, path)).toEqual({ status: 200, body: { received: true } });
        expected.push(delivery.event.id);
        expect(handled()).toEqual(expected);
      });
    }

    it("answers the framework's body-parsing mistake with 400 naming its fix, without running the handler", async () => {
      const delivery = await paid();
      const answer = await send(delivery, recipe.mistakePath);
      expect(answer).toMatchObject({ status: 400, body: { reason: 'invalid_payload' } });
      expect(answer.body.error).toMatch(recipe.mistakeMessage);
      expect(handled()).toEqual(expected);
    });
  });
}
