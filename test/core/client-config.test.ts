/**
 * Client construction (README "Configuration"): base URL normalisation, env defaults, the missing-key
 * error, `client.mode`, option checks and the browser guard.
 */
import { HttpResponse, http } from 'msw';
import { PaymentsClient, PaymentsError } from 'payments-sdk';
import { signWebhookPayload } from 'payments-sdk/webhooks';
import { afterEach, describe, expect, it } from 'vitest';
import { withEnv } from '../helpers/env.js';
import { API_KEY, API_URL, LIVE_KEY, ORIGIN, payment } from '../helpers/fixtures.js';
import { useMswServer } from '../helpers/msw.js';

const server = useMswServer();

// Every test here starts from an environment without the SDK's variables, and gets it back after.
let restore: () => void = () => {};
function env(vars: Record<string, string | undefined>) {
  restore = withEnv({ PAYMENTS_API_KEY: undefined, PAYMENTS_BASE_URL: undefined, PAYMENTS_WEBHOOK_SECRET: undefined, ...vars });
}
afterEach(() => restore());

describe('base URL', () => {
  it.each([
    ['http://127.0.0.1:4010', 'http://127.0.0.1:4010'],
    ['http://127.0.0.1:4010/', 'http://127.0.0.1:4010'],
    ['http://127.0.0.1:4010/api/v1', 'http://127.0.0.1:4010'],
    ['http://127.0.0.1:4010/api/v1/', 'http://127.0.0.1:4010'],
    ['http://127.0.0.1:4010//', 'http://127.0.0.1:4010'],
    ['  http://127.0.0.1:4010/  ', 'http://127.0.0.1:4010'],
    ['http://127.0.0.1:4010/pay', 'http://127.0.0.1:4010/pay'],
    ['http://127.0.0.1:4010/pay/', 'http://127.0.0.1:4010/pay'],
    ['http://127.0.0.1:4010/pay/api/v1', 'http://127.0.0.1:4010/pay'],
    ['http://127.0.0.1:4010/pay/api/v1/', 'http://127.0.0.1:4010/pay'],
    ['https://localhost', 'https://localhost'],
  ])('%j is normalised to %j', (given, expected) => {
    env({});
    expect(new PaymentsClient({ apiKey: API_KEY, baseUrl: given }).baseUrl).toBe(expected);
  });

  it.each([['http://127.0.0.1:4010/api/v1/'], ['http://127.0.0.1:4010'], ['http://127.0.0.1:4010/']])(
    'requests from %j go to <root>/api/v1/<path>, never /api/v1/api/v1',
    async (baseUrl) => {
      env({});
      const seen: string[] = [];
      server.use(
        http.get(`${API_URL}/payments/:uuid`, ({ request }) => {
          seen.push(request.url);
          return HttpResponse.json({ data: payment() });
        }),
      );
      await new PaymentsClient({ apiKey: API_KEY, baseUrl }).payments.retrieve('p-1');
      expect(seen).toEqual([`${API_URL}/payments/p-1`]);
    },
  );

  it('keeps a path prefix before /api/v1 (a service behind a reverse-proxy path)', async () => {
    env({});
    const seen: string[] = [];
    server.use(
      http.get(`${ORIGIN}/pay/api/v1/payments/:uuid`, ({ request }) => {
        seen.push(request.url);
        return HttpResponse.json({ data: payment() });
      }),
    );
    await new PaymentsClient({ apiKey: API_KEY, baseUrl: `${ORIGIN}/pay/api/v1/` }).payments.retrieve('p-1');
    expect(seen).toEqual([`${ORIGIN}/pay/api/v1/payments/p-1`]);
  });

  it.each([['ftp://127.0.0.1/'], ['file:///etc/passwd'], ['127.0.0.1:4010'], ['not a url'], ['/api/v1']])(
    'refuses %j with a PaymentsError naming http(s)',
    (baseUrl) => {
      env({});
      expect(() => new PaymentsClient({ apiKey: API_KEY, baseUrl })).toThrowError(PaymentsError);
      expect(() => new PaymentsClient({ apiKey: API_KEY, baseUrl })).toThrowError(/http/);
    },
  );

  it('throws a PaymentsError naming PAYMENTS_BASE_URL when no base URL is given nor set', () => {
    env({});
    expect(() => new PaymentsClient({ apiKey: API_KEY })).toThrowError(PaymentsError);
    expect(() => new PaymentsClient({ apiKey: API_KEY })).toThrowError(
      'No base URL: pass { baseUrl } to new PaymentsClient() or set the PAYMENTS_BASE_URL environment variable.',
    );
    expect(() => new PaymentsClient({ apiKey: API_KEY, baseUrl: '   ' })).toThrowError(PaymentsError);
  });
});

describe('environment defaults', () => {
  it('reads PAYMENTS_API_KEY and PAYMENTS_BASE_URL when no option is given', async () => {
    env({ PAYMENTS_API_KEY: LIVE_KEY, PAYMENTS_BASE_URL: `${ORIGIN}/api/v1/` });
    const auth: (string | null)[] = [];
    server.use(
      http.get(`${API_URL}/payments/:uuid`, ({ request }) => {
        auth.push(request.headers.get('authorization'));
        return HttpResponse.json({ data: payment() });
      }),
    );
    const client = new PaymentsClient();
    expect(client.baseUrl).toBe(ORIGIN);
    expect(client.mode).toBe('live');
    await client.payments.retrieve('p-1');
    expect(auth).toEqual([`Bearer ${LIVE_KEY}`]);
  });

  it('prefers the options over the environment', async () => {
    env({ PAYMENTS_API_KEY: LIVE_KEY, PAYMENTS_BASE_URL: 'http://127.0.0.1:4999' });
    const auth: (string | null)[] = [];
    server.use(
      http.get(`${API_URL}/payments/:uuid`, ({ request }) => {
        auth.push(request.headers.get('authorization'));
        return HttpResponse.json({ data: payment() });
      }),
    );
    const client = new PaymentsClient({ apiKey: API_KEY, baseUrl: ORIGIN });
    expect(client.baseUrl).toBe(ORIGIN);
    expect(client.mode).toBe('sandbox');
    await client.payments.retrieve('p-1');
    expect(auth).toEqual([`Bearer ${API_KEY}`]);
  });

  it('treats an empty PAYMENTS_API_KEY as missing', async () => {
    env({ PAYMENTS_API_KEY: '', PAYMENTS_BASE_URL: ORIGIN });
    await expect(new PaymentsClient().wallets.list()).rejects.toThrowError(/PAYMENTS_API_KEY/);
  });

  it('reads PAYMENTS_WEBHOOK_SECRET when no webhookSecret is given', async () => {
    const payload = JSON.stringify({ id: 'evt_1', type: 'payment.succeeded', data: payment({ status: 'succeeded' }) });
    // Without a secret, client.webhooks.verify refuses at once, naming the variable.
    env({ PAYMENTS_API_KEY: API_KEY, PAYMENTS_BASE_URL: ORIGIN });
    const withoutSecret = new PaymentsClient();
    await expect(withoutSecret.webhooks.verify({ payload, signature: 'ab' })).rejects.toThrowError(/PAYMENTS_WEBHOOK_SECRET/);
    // With it, a delivery signed with that secret verifies, and one signed with another does not.
    restore();
    env({ PAYMENTS_API_KEY: API_KEY, PAYMENTS_BASE_URL: ORIGIN, PAYMENTS_WEBHOOK_SECRET: 'whsec_from_env' });
    const client = new PaymentsClient();
    const event = await client.webhooks.verify({ payload, signature: await signWebhookPayload(payload, 'whsec_from_env') });
    expect(event.id).toBe('evt_1');
    await expect(client.webhooks.verify({ payload, signature: await signWebhookPayload(payload, 'whsec_other') })).rejects.toMatchObject({
      reason: 'signature_mismatch',
    });
    // An explicit option wins over the variable.
    const explicit = new PaymentsClient({ webhookSecret: 'whsec_other' });
    expect((await explicit.webhooks.verify({ payload, signature: await signWebhookPayload(payload, 'whsec_other') })).id).toBe('evt_1');
  });
});

describe('API key', () => {
  it('builds without a key (a module-level client survives a build step); the first call fails naming PAYMENTS_API_KEY, and sends nothing', async () => {
    env({ PAYMENTS_BASE_URL: ORIGIN });
    const sent: string[] = [];
    server.use(
      http.all(`${API_URL}/*`, ({ request }) => {
        sent.push(request.url);
        return HttpResponse.json({ data: [] });
      }),
    );
    for (const client of [new PaymentsClient(), new PaymentsClient({ apiKey: '' }), new PaymentsClient({ apiKey: '   ' })]) {
      expect(client.mode).toBe('unknown');
      const error = await client.payments.retrieve('p-1').catch((e: unknown) => e);
      expect(error).toBeInstanceOf(PaymentsError);
      expect((error as Error).message).toMatch(/PAYMENTS_API_KEY/);
      // A creation's error carries its Idempotency-Key, as every other failure of a creation.
      const created = await client.payments
        .create({ amount: 1000, currency: 'XOF', country: 'SEN', provider: 'orange', phone: '221771234567' })
        .catch((e: unknown) => e);
      expect((created as Error).message).toMatch(/PAYMENTS_API_KEY/);
      expect((created as PaymentsError).idempotencyKey).toMatch(/^[0-9a-f-]{36}$/);
    }
    expect(sent).toEqual([]);
    // The variable set later is read by the next call.
    restore();
    env({ PAYMENTS_BASE_URL: ORIGIN });
    const late = new PaymentsClient();
    process.env.PAYMENTS_API_KEY = API_KEY;
    await late.wallets.list();
    expect(sent).toHaveLength(1);
    expect(late.mode).toBe('sandbox');
  });

  it('refuses a key with surrounding whitespace (a newline from a secret file) without printing it', () => {
    env({ PAYMENTS_BASE_URL: ORIGIN });
    let message = '';
    try {
      new PaymentsClient({ apiKey: `${API_KEY}\n` });
    } catch (e) {
      message = (e as Error).message;
    }
    expect(message).toMatch(/whitespace/);
    expect(message).not.toContain(API_KEY);
  });

  it.each([
    ['a line break inside', 'sk_live_51Abc\nDef789'],
    ['a carriage return inside', 'sk_live_51Abc\rDef789'],
    ['a NUL inside', 'sk_live_51Abc\u0000Def789'],
  ])('refuses a key with %s at construction, naming neither half of it', (_, key) => {
    env({ PAYMENTS_BASE_URL: ORIGIN });
    let error: unknown;
    try {
      new PaymentsClient({ apiKey: key });
    } catch (e) {
      error = e;
    }
    // Left to the first request, undici's TypeError would quote the whole Authorization value.
    expect(error).toBeInstanceOf(PaymentsError);
    expect((error as Error).message).toMatch(/line break, a NUL/);
    expect((error as Error).message).not.toContain('sk_live_51Abc');
    expect((error as Error).message).not.toContain('Def789');
  });
});

describe('client.mode', () => {
  it.each([
    ['sk_live_51abc', 'live'],
    ['pk_live_xyz', 'live'],
    ['LIVE-KEY-123', 'live'],
    ['sk_test_51abc', 'sandbox'],
    ['sk_sandbox_51abc', 'sandbox'],
    ['sandbox-key', 'sandbox'],
    ['TEST_abc', 'sandbox'],
    ['3f9a0c1b2d4e5f60', 'unknown'],
    ['sk_abc_123', 'unknown'],
  ])('%j → %s', (apiKey, mode) => {
    env({});
    expect(new PaymentsClient({ apiKey, baseUrl: ORIGIN }).mode).toBe(mode);
  });
});

describe('options', () => {
  it('defaults to a 30 s timeout per attempt and 2 retries', () => {
    env({});
    const client = new PaymentsClient({ apiKey: API_KEY, baseUrl: ORIGIN });
    expect(client.timeout).toBe(30_000);
    expect(client.maxRetries).toBe(2);
  });

  it.each([
    [{ timeout: 0 }, /timeout: must be ≥ 1, got 0/],
    [{ timeout: -5 }, /timeout: must be ≥ 1, got -5/],
    [{ timeout: Number.NaN }, /timeout: must be a number, got NaN/],
    [{ timeout: 3_000_000_000 }, /timeout: must be ≤ 2147483647, got 3000000000/],
    [{ maxRetries: -1 }, /maxRetries: must be ≥ 0, got -1/],
    [{ maxRetries: 1.5 }, /maxRetries: must be an integer, got 1.5/],
    [{ maxRetries: 11 }, /maxRetries: must be ≤ 10, got 11/],
    [{ logLevel: 'verbose' as never }, /logLevel/],
    [{ logLevel: 'toString' as never }, /logLevel/],
    [{ retryBackoff: 'fast' as never }, /retryBackoff: must be an object, got string/],
    [{ retryBackoff: { initialMs: -1 } }, /retryBackoff\.initialMs: must be ≥ 0, got -1/],
    [{ retryBackoff: { maxMs: Number.POSITIVE_INFINITY } }, /retryBackoff\.maxMs: must be a number, got Infinity/],
    [
      { retryBackoff: { initialMs: '500' as never, maxMs: Number.NaN } },
      /initialMs: must be a number, got string; retryBackoff\.maxMs: must be a number, got NaN/,
    ],
  ])('refuses %o with a PaymentsError naming the option', (bad, name) => {
    env({});
    expect(() => new PaymentsClient({ apiKey: API_KEY, baseUrl: ORIGIN, ...bad })).toThrowError(PaymentsError);
    expect(() => new PaymentsClient({ apiKey: API_KEY, baseUrl: ORIGIN, ...bad })).toThrowError(name);
  });

  it('names every bad option in one error', () => {
    env({});
    let error: unknown;
    try {
      new PaymentsClient({
        apiKey: API_KEY,
        baseUrl: ORIGIN,
        timeout: 0,
        maxRetries: 11,
        headers: { 'X-Token': 'secret-value\nInjected: yes' },
        maxResponseBytes: 10,
        telemetry: {} as never,
      });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(PaymentsError);
    const message = (error as Error).message;
    expect(message).toMatch(/^Invalid PaymentsClient options: /);
    for (const part of [
      'timeout: must be ≥ 1, got 0',
      'maxRetries: must be ≤ 10, got 11',
      'headers: invalid HTTP header name or value for "X-Token"',
      'maxResponseBytes: must be ≥ 1024, got 10',
      'telemetry: must be an object with an onCall hook',
    ]) {
      expect(message).toContain(part);
    }
    expect(message).not.toContain('secret-value');
  });

  it('accepts a retryBackoff of zeros (retry at once)', () => {
    env({});
    const backoff = { initialMs: 0, maxMs: 0 };
    expect(() => new PaymentsClient({ apiKey: API_KEY, baseUrl: ORIGIN, retryBackoff: backoff })).not.toThrow();
  });

  it('refuses a bad per-request timeout or maxRetries before sending anything', async () => {
    env({});
    // No handler: a request that left would fail as unhandled, not with these messages.
    const client = new PaymentsClient({ apiKey: API_KEY, baseUrl: ORIGIN });
    await expect(client.payments.retrieve('p-1', { timeout: 0 })).rejects.toThrowError(
      /^Invalid request options: timeout: must be ≥ 1, got 0\.$/,
    );
    await expect(client.payments.retrieve('p-1', { maxRetries: -1 })).rejects.toThrowError(
      /request options: maxRetries: must be ≥ 0, got -1/,
    );
    // Every bad option of the call in one error.
    await expect(client.payments.retrieve('p-1', { timeout: Number.NaN, maxRetries: 11 })).rejects.toThrowError(
      /timeout: must be a number, got NaN; maxRetries: must be ≤ 10, got 11/,
    );
  });
});

describe('browser guard', () => {
  const g = globalThis as Record<string, unknown>;
  function browserLike() {
    const had = { window: Object.hasOwn(g, 'window'), document: Object.hasOwn(g, 'document') };
    g.window = globalThis;
    g.document = { createElement() {} };
    return () => {
      if (!had.window) delete g.window;
      if (!had.document) delete g.document;
    };
  }

  it('throws at construction in a browser-like global (window === globalThis with a document)', () => {
    env({});
    const undo = browserLike();
    try {
      expect(() => new PaymentsClient({ apiKey: API_KEY, baseUrl: ORIGIN })).toThrowError(PaymentsError);
      expect(() => new PaymentsClient({ apiKey: API_KEY, baseUrl: ORIGIN })).toThrowError(/dangerouslyAllowBrowser/);
    } finally {
      undo();
    }
  });

  it('allows it with dangerouslyAllowBrowser: true', () => {
    env({});
    const undo = browserLike();
    try {
      expect(new PaymentsClient({ apiKey: API_KEY, baseUrl: ORIGIN, dangerouslyAllowBrowser: true }).baseUrl).toBe(ORIGIN);
    } finally {
      undo();
    }
  });

  it('does not mistake a server runtime that defines window without a document for a browser', () => {
    env({});
    const had = Object.hasOwn(g, 'window');
    g.window = globalThis;
    try {
      expect(new PaymentsClient({ apiKey: API_KEY, baseUrl: ORIGIN }).baseUrl).toBe(ORIGIN);
    } finally {
      if (!had) delete g.window;
    }
  });
});
