/**
 * Where the API key comes from, against a real server on 127.0.0.1: a string, a function read at
 * each call (a secret manager, a rotation), the environment; `client.mode` from the key read;
 * `withOptions({ apiKey })` for a platform acting for one of its merchants; `appInfo` in the
 * `User-Agent`. A key from a function never shows in an error, a log line, `JSON.stringify` or
 * `util.inspect`.
 */
import { inspect } from 'node:util';
import { PaymentsClient, PaymentsError } from 'payments-sdk';
import { afterEach, describe, expect, it } from 'vitest';
import { recordingLogger } from '../helpers/logger.js';
import { everythingIn, startServer, type TestServer } from './server.js';

const LIVE = 'sk_live_RotatedKeyOne4242';
const NEXT = 'sk_live_RotatedKeyTwo4343';
const SANDBOX = 'sk_test_SellerSandboxKey77';

let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** Answers every request with an empty wallet list, and a 401 that echoes the key for `/payments/echo`. */
function walletServer(): Promise<TestServer> {
  return startServer(({ res, seen, server: s }) => {
    if (seen.url === '/api/v1/payments/echo') {
      return s.json(res, 401, { message: `Invalid key: ${String(seen.headers.authorization)}` });
    }
    s.json(res, 200, { data: [] });
  });
}

const bearer = (s: TestServer) => s.requests.map((r) => r.headers.authorization);

describe('apiKey as a function', () => {
  it('is read at each call: a rotated key is used from the next call on, sync or async', async () => {
    server = await walletServer();
    let current = LIVE;
    const client = new PaymentsClient({ apiKey: async () => current, baseUrl: server.origin });
    expect(client.mode).toBe('unknown');
    await client.wallets.list();
    expect(client.mode).toBe('live');
    current = NEXT;
    await client.wallets.list();
    const sync = new PaymentsClient({ apiKey: () => SANDBOX, baseUrl: server.origin });
    await sync.wallets.list();
    expect(sync.mode).toBe('sandbox');
    expect(bearer(server)).toEqual([`Bearer ${LIVE}`, `Bearer ${NEXT}`, `Bearer ${SANDBOX}`]);
  });

  it('is read once per call, its retries all sending the same key', async () => {
    let calls = 0;
    let failures = 2;
    server = await startServer(({ res, server: s }) => {
      if (failures-- > 0) return s.json(res, 503, { message: 'busy' });
      s.json(res, 200, { data: [] });
    });
    const client = new PaymentsClient({
      apiKey: () => `${LIVE}${++calls}`,
      baseUrl: server.origin,
      retryBackoff: { initialMs: 1, maxMs: 2 },
    });
    await client.wallets.list();
    expect(calls).toBe(1);
    expect(bearer(server)).toEqual([`Bearer ${LIVE}1`, `Bearer ${LIVE}1`, `Bearer ${LIVE}1`]);
  });

  it.each([
    ['throws', () => Promise.reject(new Error('vault sealed'))],
    ['resolves to an empty string', async () => ''],
    ['returns undefined', () => undefined as unknown as string],
    ['returns a key with a line break', () => `${LIVE}\nX`],
    ['returns a key with a trailing newline', () => `${LIVE}\n`],
  ])('fails the call with a PaymentsError when it %s, sends nothing, and never quotes the key', async (_, apiKey) => {
    server = await walletServer();
    const { logger, text } = recordingLogger();
    const client = new PaymentsClient({ apiKey, baseUrl: server.origin, logger, logLevel: 'debug' });
    const error = await client.payments
      .create({ amount: 1000, currency: 'XOF', country: 'SEN', provider: 'orange', phone: '221771234567' })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PaymentsError);
    expect((error as PaymentsError).idempotencyKey).toBeDefined();
    expect(server.requests).toHaveLength(0);
    expect(everythingIn(error)).not.toContain('RotatedKeyOne');
    expect(text()).not.toContain('RotatedKeyOne');
  });

  it('never shows the key in errors, logs, JSON.stringify or util.inspect, even when the service echoes it', async () => {
    server = await walletServer();
    const { logger, text } = recordingLogger();
    const client = new PaymentsClient({ apiKey: async () => LIVE, baseUrl: server.origin, logger, logLevel: 'debug' });
    const error = await client.payments.retrieve('echo').catch((e: unknown) => e);
    expect(error).toMatchObject({ status: 401 });
    for (const rendering of [everythingIn(error), everythingIn(client), JSON.stringify(client), inspect(client), text()]) {
      expect(rendering).not.toContain('RotatedKeyOne');
    }
    expect(JSON.stringify(client)).toContain('"mode":"live"');
  });

  it('refuses anything but a string or a function at construction', () => {
    expect(() => new PaymentsClient({ apiKey: 42 as never, baseUrl: 'http://127.0.0.1:9' })).toThrow(
      /apiKey: must be a string or a function that returns one, got a number/,
    );
  });
});

describe('withOptions({ apiKey }): a platform acting for one of its merchants', () => {
  it('sends the other key with every other setting the same; the first client keeps its own', async () => {
    server = await walletServer();
    const platform = new PaymentsClient({ apiKey: LIVE, baseUrl: server.origin, headers: { 'X-Platform': 'p1' }, timeout: 4_000 });
    const seller = platform.withOptions({ apiKey: SANDBOX });
    await seller.wallets.list();
    await platform.wallets.list();
    expect(bearer(server)).toEqual([`Bearer ${SANDBOX}`, `Bearer ${LIVE}`]);
    expect(server.requests.map((r) => r.headers['x-platform'])).toEqual(['p1', 'p1']);
    expect([seller.mode, seller.timeout, seller.baseUrl]).toEqual(['sandbox', 4_000, platform.baseUrl]);
    expect(platform.mode).toBe('live');
    const rotating = platform.withOptions({ apiKey: () => NEXT });
    await rotating.wallets.list();
    expect(bearer(server).at(-1)).toBe(`Bearer ${NEXT}`);
    // Other defaults changed later keep the seller's key.
    await seller.withOptions({ maxRetries: 0 }).wallets.list();
    expect(bearer(server).at(-1)).toBe(`Bearer ${SANDBOX}`);
  });
});

describe('appInfo', () => {
  it('is added to the User-Agent after the SDK and runtime', async () => {
    server = await walletServer();
    const client = new PaymentsClient({
      apiKey: LIVE,
      baseUrl: server.origin,
      appInfo: { name: 'shop-plugin', version: '1.4.0', url: 'https://shop.example.com/plugin' },
    });
    await client.wallets.list();
    await new PaymentsClient({ apiKey: LIVE, baseUrl: server.origin, appInfo: { name: 'bare' } }).wallets.list();
    const agents = server.requests.map((r) => String(r.headers['user-agent']));
    expect(agents[0]).toMatch(/^payments-sdk\/\S+ \(node\/[^)]+\) shop-plugin\/1\.4\.0 \(\+https:\/\/shop\.example\.com\/plugin\)$/);
    expect(agents[1]).toMatch(/\) bare$/);
  });

  it.each([
    [{ name: 'two words' }, /appInfo\.name: must be a string without spaces or line breaks, got "two words"/],
    [{ name: 'plugin\r\nX-Injected: 1' }, /appInfo\.name: must be a string without spaces or line breaks/],
    [{ name: '' }, /appInfo\.name: must have at least 1 character/],
    [{ name: 'ok', version: '1.0\n' }, /appInfo\.version: must be a string without spaces or line breaks/],
    [{ name: 'ok', url: 'https://a.example/\nb' }, /appInfo\.url: must be a string without spaces or line breaks/],
    ['shop', /appInfo: must be an object, got string/],
    [{ name: 'ok', url: 'https://a.example/\u0000' }, /appInfo\.url: must be a string without spaces or line breaks/],
    [{ name: 'ok', version: 2 }, /appInfo\.version: must be a string, got number/],
  ])('refuses %j at construction', (appInfo, message) => {
    expect(() => new PaymentsClient({ apiKey: LIVE, baseUrl: 'http://127.0.0.1:9', appInfo: appInfo as never })).toThrow(message);
  });
});
