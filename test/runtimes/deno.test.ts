/**
 * Under the real Deno binary (a devDependency), with and without its permissions: a denied
 * environment read is told apart from an unset variable, and `mock.listen()` without `--allow-net`
 * rejects its promise instead of throwing where no `try`/`catch` reaches.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bundle, root } from '../helpers/bundle.js';

const deno = join(root, 'node_modules', '.bin', 'deno');
const dir = mkdtempSync(join(tmpdir(), 'payments-sdk-deno-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Runs `script` under Deno with `flags`; its stdout, one JSON line. */
function run(script: string, flags: string[], env: Record<string, string> = {}): Promise<Record<string, unknown>> {
  return new Promise((resolve, reject) => {
    execFile(
      deno,
      ['run', '--no-prompt', ...flags, script],
      {
        cwd: dir,
        timeout: 60_000,
        env: { PATH: process.env.PATH ?? '', HOME: dir, DENO_DIR: join(dir, '.deno'), DENO_NO_UPDATE_CHECK: '1', NO_COLOR: '1', ...env },
      },
      (error, stdout, stderr) => {
        const line = stdout.trim().split('\n').at(-1) ?? '';
        try {
          resolve(JSON.parse(line) as Record<string, unknown>);
        } catch {
          reject(new Error(`deno ${flags.join(' ')}: ${error?.message ?? ''}\n${stdout}\n${stderr}`));
        }
      },
    );
  });
}

let envScript: string;
let listenScript: string;

beforeAll(async () => {
  envScript = join(dir, 'env.js');
  writeFileSync(
    envScript,
    await bundle(`
      import { PaymentsClient } from 'payments-sdk';
      import { webhookHandler } from 'payments-sdk/webhooks';
      const message = (build: () => unknown) => { try { build(); return 'built'; } catch (error) { return (error as Error).message; } };
      // A missing key fails the first call, not construction: a call that reached the network had its key.
      const firstCall = async (client: PaymentsClient) => {
        try { await client.wallets.list({ maxRetries: 0 }); return 'built'; }
        catch (error) { return (error as Error).name === 'APIConnectionError' ? 'built' : (error as Error).message; }
      };
      console.log(JSON.stringify({
        client: await firstCall(new PaymentsClient({ baseUrl: 'http://127.0.0.1:9' })),
        handler: message(() => webhookHandler({ onEvent: () => {} })),
        baseUrl: message(() => new PaymentsClient({ apiKey: 'sk_test_x' })),
      }));
    `),
  );
  listenScript = join(dir, 'listen.js');
  writeFileSync(
    listenScript,
    await bundle(
      `
      import { createMockService } from 'payments-sdk/testing';
      const mock = createMockService();
      try {
        const server = await mock.listen();
        const answer = await fetch(server.url + '/api/v1/wallets');
        await answer.body?.cancel();
        await server.close();
        console.log(JSON.stringify({ listened: answer.status }));
      } catch (error) {
        console.log(JSON.stringify({ caught: (error as Error).name, message: (error as Error).message }));
      }
    `,
      'node',
    ),
  );
}, 60_000);

describe('environment variables on Deno', () => {
  it('without --allow-env, "no API key" and "no webhook secret" say to allow the read, not to set the variable', async () => {
    const result = await run(envScript, [], { PAYMENTS_API_KEY: 'sk_test_set_but_unreadable', PAYMENTS_WEBHOOK_SECRET: 'whsec_x' });
    expect(result.client).toBe(
      'No API key: Deno denied reading the PAYMENTS_API_KEY environment variable. Run with --allow-env=PAYMENTS_API_KEY ' +
        '(or a wider --allow-env), or pass { apiKey } to new PaymentsClient().',
    );
    expect(result.handler).toMatch(/^webhookHandler: no webhook secret: Deno denied reading .*--allow-env=PAYMENTS_WEBHOOK_SECRET/);
    expect(result.baseUrl).toMatch(
      /^No base URL: Deno denied reading the PAYMENTS_BASE_URL environment variable\. Run with --allow-env=PAYMENTS_BASE_URL/,
    );
  });

  it('an --allow-env list without the variable is a denial too', async () => {
    const result = await run(envScript, ['--allow-env=HOME']);
    expect(result.client).toMatch(/--allow-env=PAYMENTS_API_KEY/);
  });

  it('with --allow-env, an unset variable is "not set", and a set one is used', async () => {
    const unset = await run(envScript, ['--allow-env']);
    expect(unset.client).toBe('No API key: pass { apiKey } to new PaymentsClient() or set the PAYMENTS_API_KEY environment variable.');
    expect(unset.baseUrl).toBe('No base URL: pass { baseUrl } to new PaymentsClient() or set the PAYMENTS_BASE_URL environment variable.');
    const set = await run(envScript, ['--allow-env'], {
      PAYMENTS_API_KEY: 'sk_test_from_env',
      PAYMENTS_WEBHOOK_SECRET: 'whsec_from_env',
      PAYMENTS_BASE_URL: 'http://127.0.0.1:9',
    });
    expect(set).toEqual({ client: 'built', handler: 'built', baseUrl: 'built' });
  });
});

describe('mock.listen() on Deno', () => {
  it('without --allow-net, rejects its promise with the flag to add', async () => {
    const result = await run(listenScript, []);
    expect(result.caught).toBe('MockServiceError');
    expect(result.message).toMatch(/^listen\(\): Deno denied network access to 127\.0\.0\.1:0\. Run with --allow-net=127\.0\.0\.1/);
  });

  it('with --allow-net=127.0.0.1, serves', async () => {
    expect(await run(listenScript, ['--allow-net=127.0.0.1'])).toEqual({ listened: 401 });
  });
});
