/**
 * Secrets (README "Errors"): the API key never appears in an error message, a log line,
 * `JSON.stringify` or `util.inspect` of the client or of any error (causes included). The logger
 * is off by default and redacts Authorization at every level.
 */
import { inspect } from 'node:util';
import { delay, HttpResponse, http } from 'msw';
import { PaymentsClient, PaymentsError } from 'payments-sdk';
import { describe, expect, it } from 'vitest';
import { caught } from '../helpers/caught.js';
import { makeClient } from '../helpers/client.js';
import { API_KEY, API_URL, chargeParams, ORIGIN, payment } from '../helpers/fixtures.js';
import { recordingLogger } from '../helpers/logger.js';
import { useMswServer } from '../helpers/msw.js';

const server = useMswServer();
const WEBHOOK_SECRET = 'whsec_FixtureWebhookSecretThatMustNeverLeak';
// The distinctive part of the key: what a leak would show even if the prefix were cut.
const KEY_BODY = API_KEY.slice('sk_test_'.length);

/** Every way a merchant might print `value`: JSON, inspect (deep, hidden), String, and each cause. */
function renderings(value: unknown): string[] {
  const out: string[] = [];
  const seen = new Set<unknown>();
  let current: unknown = value;
  // A cause chain is short; the bound keeps a cyclic one from looping.
  for (let depth = 0; depth < 10 && current !== undefined && current !== null && !seen.has(current); depth += 1) {
    seen.add(current);
    out.push(inspect(current, { depth: Number.POSITIVE_INFINITY, showHidden: true, getters: true }));
    out.push(inspect(current, { depth: Number.POSITIVE_INFINITY }));
    out.push(String(current));
    try {
      out.push(JSON.stringify(current) ?? '');
    } catch {
      // A cyclic cause cannot be stringified: nothing leaks that way.
    }
    if (current instanceof Error) {
      out.push(current.message, current.stack ?? '');
      out.push(JSON.stringify(Object.getOwnPropertyNames(current).map((k) => String((current as unknown as Record<string, unknown>)[k]))));
    }
    current = (current as { cause?: unknown }).cause;
  }
  return out;
}

function expectNoSecret(value: unknown) {
  for (const text of renderings(value)) {
    expect(text).not.toContain(KEY_BODY);
    expect(text).not.toContain(WEBHOOK_SECRET);
  }
}

describe('the client', () => {
  it('never shows the key or the webhook secret in JSON.stringify, util.inspect or String', () => {
    const client = new PaymentsClient({ apiKey: API_KEY, baseUrl: ORIGIN, webhookSecret: WEBHOOK_SECRET, headers: { 'X-Tenant': 't' } });
    expectNoSecret(client);
    expect(JSON.stringify(client)).toContain(ORIGIN);
    expect(inspect(client)).toContain('sandbox');
    expectNoSecret(client.payments);
    expectNoSecret(client.webhooks);
    expect(Object.values(client).some((v) => typeof v === 'string' && v.includes(KEY_BODY))).toBe(false);
  });

  it('never shows a key read from a function either, before or after a call read it', async () => {
    server.use(http.get(`${API_URL}/wallets`, () => HttpResponse.json({ data: [] })));
    const client = new PaymentsClient({ apiKey: async () => API_KEY, baseUrl: ORIGIN, webhookSecret: WEBHOOK_SECRET });
    expectNoSecret(client);
    await client.wallets.list();
    expectNoSecret(client);
    expectNoSecret(client.withOptions({ apiKey: () => API_KEY }));
    expect(inspect(client)).toContain('sandbox');
  });
});

describe('every error class', () => {
  const cases: [string, () => Promise<unknown>][] = [];
  const client = () => makeClient({ webhookSecret: WEBHOOK_SECRET, maxRetries: 1 });

  for (const status of [400, 401, 403, 404, 409, 418, 422, 429, 500, 502, 503]) {
    cases.push([
      `APIError ${status}`,
      async () => {
        server.use(
          http.post(`${API_URL}/payments`, () => HttpResponse.json({ message: `answer ${status}`, errors: { phone: ['x'] } }, { status })),
        );
        return caught(() => client().payments.create(chargeParams));
      },
    ]);
  }
  cases.push([
    'APIConnectionError',
    async () => {
      server.use(http.post(`${API_URL}/payments`, () => HttpResponse.error()));
      return caught(() => client().payments.create(chargeParams));
    },
  ]);
  cases.push([
    'APITimeoutError',
    async () => {
      server.use(
        http.get(`${API_URL}/payments/:uuid`, async () => {
          await delay(5_000);
          return HttpResponse.json({ data: payment() });
        }),
      );
      return caught(() => makeClient({ timeout: 30, maxRetries: 0 }).payments.retrieve('p-1'));
    },
  ]);
  cases.push([
    'APIUserAbortError',
    async () => caught(() => client().payments.create(chargeParams, { signal: AbortSignal.abort(new Error('stop')) })),
  ]);
  cases.push([
    'ResponseValidationError',
    async () => {
      server.use(http.get(`${API_URL}/payments/:uuid`, () => HttpResponse.json({ data: payment({ gross_amount: 1.5 }) })));
      return caught(() => client().payments.retrieve('p-1'));
    },
  ]);
  cases.push(['InvalidParamsError', async () => caught(() => client().payments.create({ ...chargeParams, phone: '+221 77' }))]);
  cases.push(['PaymentsError (construction)', async () => caught(() => new PaymentsClient({ apiKey: API_KEY, baseUrl: 'ftp://x' }))]);
  cases.push([
    'PaymentsError (whitespace in the key)',
    async () => caught(() => new PaymentsClient({ apiKey: ` ${API_KEY}`, baseUrl: ORIGIN })),
  ]);
  cases.push([
    'WebhookVerificationError or PaymentsError (webhooks.verify)',
    async () => caught(() => client().webhooks.verify({ payload: '{"id":"evt"}', signature: 'ab' })),
  ]);

  it.each(cases)('%s holds neither the key nor the webhook secret, causes included', async (_label, make) => {
    const error = await make();
    expect(error).toBeInstanceOf(PaymentsError);
    expectNoSecret(error);
  });

  it('redacts the key when the service echoes it back in an error', async () => {
    server.use(
      http.get(`${API_URL}/payments/:uuid`, ({ request }) => {
        const auth = request.headers.get('authorization') ?? '';
        return HttpResponse.json({ message: `Invalid key: ${auth}`, errors: { key: [auth] } }, { status: 401 });
      }),
    );
    const error = await caught(() => makeClient().payments.retrieve('p-1'));
    expect((error as Error).message).toMatch(/Invalid key/);
    expectNoSecret(error);
  });

  it('redacts the key when an HTML error page echoes it back', async () => {
    server.use(
      http.get(
        `${API_URL}/payments/:uuid`,
        ({ request }) =>
          new HttpResponse(`<pre>${request.headers.get('authorization')}</pre>`, { status: 400, headers: { 'Content-Type': 'text/html' } }),
      ),
    );
    expectNoSecret(await caught(() => makeClient().payments.retrieve('p-1')));
  });
});

describe('logger', () => {
  const capture = recordingLogger;

  async function exercise(client: PaymentsClient) {
    let posts = 0;
    server.use(
      http.post(`${API_URL}/payments`, () => {
        posts += 1;
        return posts === 1
          ? HttpResponse.json({ message: 'busy' }, { status: 503 })
          : HttpResponse.json({ data: payment() }, { status: 201 });
      }),
      http.get(`${API_URL}/payments/:uuid`, () => HttpResponse.json({ message: 'Introuvable.' }, { status: 404 })),
    );
    await client.payments.create(chargeParams);
    await caught(() => client.payments.retrieve('p-1'));
  }

  it('logs nothing by default', async () => {
    const { lines, logger } = capture();
    await exercise(makeClient({ logger }));
    expect(lines).toEqual([]);
  });

  it('at debug, logs requests, retries and failures with Authorization redacted and never the key', async () => {
    const { lines, logger } = capture();
    await exercise(makeClient({ logger, logLevel: 'debug', headers: { 'X-Tenant': 'shop-42' } }));
    expect(lines.map((l) => l.level)).toEqual(expect.arrayContaining(['debug', 'info', 'warn']));
    const all = inspect(lines, { depth: Number.POSITIVE_INFINITY });
    expect(all).not.toContain(KEY_BODY);
    expect(all).toContain('[redacted]');
    expect(all).toContain('shop-42');
    expect(all).toMatch(/retry 1/);
    const request = lines.find((l) => l.level === 'debug' && String(l.args[0]).includes('POST'));
    expect(request?.args[1]).toMatchObject({ headers: { authorization: '[redacted]' } });
  });

  it("at 'error', logs a call that failed for good (5xx after retries), not a refusal (404)", async () => {
    const { lines, logger } = capture();
    server.use(
      http.get(`${API_URL}/payments/:uuid`, ({ params }) =>
        params.uuid === 'gone'
          ? HttpResponse.json({ message: 'Introuvable.' }, { status: 404 })
          : HttpResponse.json({ message: 'down' }, { status: 503, headers: { 'Retry-After': '0' } }),
      ),
    );
    const client = makeClient({ logger, logLevel: 'error', maxRetries: 1 });
    await caught(() => client.payments.retrieve('gone'));
    expect(lines).toEqual([]);
    await caught(() => client.payments.retrieve('p-1'));
    expect(lines).toHaveLength(1);
    expect(lines[0]?.level).toBe('error');
    expect(String(lines[0]?.args[0])).toMatch(/failed: InternalServerError/);
  });

  it('drops lines below the chosen level', async () => {
    const { lines, logger } = capture();
    await exercise(makeClient({ logger, logLevel: 'warn' }));
    expect(lines.length).toBeGreaterThan(0);
    expect(lines.every((l) => l.level === 'warn' || l.level === 'error')).toBe(true);
  });
});
