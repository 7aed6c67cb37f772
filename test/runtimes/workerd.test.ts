/**
 * In Cloudflare's workerd (through Miniflare, a devDependency), where variables and secrets arrive
 * as bindings in the `env` of `fetch`: "no API key" and "no webhook secret" say so, and the fixes
 * they name work.
 */
import { Miniflare } from 'miniflare';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { bundle } from '../helpers/bundle.js';

let script: string;
const running: Miniflare[] = [];

beforeAll(async () => {
  script = await bundle(`
    import { PaymentsClient } from 'payments-sdk';
    import { webhookHandler } from 'payments-sdk/webhooks';
    const message = (build: () => unknown) => { try { build(); return 'built'; } catch (error) { return (error as Error).message; } };
    // A missing key fails the first call, not construction: a call that reached the network had its key.
    const firstCall = async (client: PaymentsClient) => {
      try { await client.wallets.list({ maxRetries: 0 }); return 'built'; }
      catch (error) { return (error as Error).name === 'APIConnectionError' ? 'built' : (error as Error).message; }
    };
    export default {
      async fetch(request: Request, env: Record<string, string>) {
        const fromEnv = new URL(request.url).searchParams.has('env');
        return Response.json({
          client: await firstCall(new PaymentsClient(fromEnv ? { apiKey: env.PAYMENTS_API_KEY, baseUrl: 'http://127.0.0.1:9' } : { baseUrl: 'http://127.0.0.1:9' })),
          handler: message(() => webhookHandler(fromEnv ? { secret: env.PAYMENTS_WEBHOOK_SECRET, onEvent: () => {} } : { onEvent: () => {} })),
        });
      },
    };
  `);
}, 60_000);

afterEach(async () => {
  for (const mf of running.splice(0)) await mf.dispose();
});

async function ask(compatibilityFlags: string[], path = '/'): Promise<Record<string, string>> {
  const mf = new Miniflare({
    modules: true,
    script,
    compatibilityDate: '2026-01-01',
    compatibilityFlags,
    bindings: { PAYMENTS_API_KEY: 'sk_test_from_binding', PAYMENTS_WEBHOOK_SECRET: 'whsec_from_binding' },
  });
  running.push(mf);
  const response = await mf.dispatchFetch(`http://worker.local${path}`);
  return (await response.json()) as Record<string, string>;
}

describe('settings on Cloudflare Workers', () => {
  it('without nodejs_compat, "no API key" and "no webhook secret" point to env and nodejs_compat', async () => {
    const result = await ask([]);
    expect(result.client).toBe(
      'No API key: on Cloudflare Workers, variables and secrets arrive in the env of your fetch handler, not in process.env. ' +
        'Build it there, new PaymentsClient({ apiKey: env.PAYMENTS_API_KEY }), or enable the nodejs_compat compatibility flag ' +
        '(compatibility date 2025-04-01 or later), which fills process.env from them.',
    );
    expect(result.handler).toMatch(
      /^webhookHandler: no webhook secret: on Cloudflare Workers.*webhookHandler\(\{ secret: env\.PAYMENTS_WEBHOOK_SECRET \}\)/,
    );
  });

  it('both fixes work: the values from env, or nodejs_compat', async () => {
    expect(await ask([], '/?env')).toEqual({ client: 'built', handler: 'built' });
    expect(await ask(['nodejs_compat'])).toEqual({ client: 'built', handler: 'built' });
  });
});
