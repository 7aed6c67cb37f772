/**
 * Secret hygiene across EVERY error class of src/core/errors.ts (README "Errors": the API key
 * never appears in an error message, a log line, `JSON.stringify` or `util.inspect`; the same for
 * the webhook secret). Each class is produced the way a merchant meets it — through the client
 * against a real 127.0.0.1 server (real resets, real stalls, real cut bodies), or through webhook
 * verification — with `logLevel: 'debug'` and a logger that keeps every line. The list of classes
 * is read from the module, so a class added later without a case here fails the suite.
 *
 * Complements test/core/secrets.test.ts (msw, hand-picked statuses): here the server also
 * echoes the key back in every place an error keeps from a response (JSON body, HTML body,
 * headers, a 2xx of the wrong shape, a 2xx that is not JSON).
 */
import { inspect } from 'node:util';
import { type Logger, PaymentsClient, PaymentsError } from 'payments-sdk';
import { signWebhookPayload, verifyWebhook, webhookHandler } from 'payments-sdk/webhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as errorsModule from '../../src/core/errors.js';
import { API_KEY, payment } from '../helpers/fixtures.js';
import { type Exchange, startServer, type TestServer } from '../network/server.js';

const WEBHOOK_SECRET = 'whsec_ReliabilitySuiteSigningSecret9f3a7c';
// The distinctive parts: what a leak shows even with the prefix cut or the text truncated.
const KEY_PART = API_KEY.slice('sk_test_'.length, 'sk_test_'.length + 12);
const SECRET_PART = WEBHOOK_SECRET.slice('whsec_'.length, 'whsec_'.length + 12);

/**
 * Every way a merchant (or an error tracker) prints a value: deep inspect with hidden and
 * non-enumerable properties and getters, plain inspect, String, JSON, message, stack, and the
 * same for every `cause` (and AggregateError member) down the chain.
 */
function renderings(root: unknown): string[] {
  const out: string[] = [];
  const seen = new Set<unknown>();
  const queue: unknown[] = [root];
  // Bounded: a cause chain is short; a cyclic one stops at the first repeat.
  while (queue.length > 0 && seen.size < 50) {
    const value = queue.shift();
    if (value === null || value === undefined || seen.has(value)) continue;
    seen.add(value);
    out.push(inspect(value, { depth: Number.POSITIVE_INFINITY, showHidden: true, getters: true }));
    out.push(inspect(value, { depth: Number.POSITIVE_INFINITY, customInspect: false, showHidden: true }));
    try {
      out.push(String(value), JSON.stringify(value) ?? '');
    } catch {
      // A cyclic or unconvertible value prints nothing that way.
    }
    if (typeof value === 'object') {
      for (const name of Object.getOwnPropertyNames(value)) {
        const field = (value as Record<string, unknown>)[name];
        out.push(typeof field === 'string' ? field : '');
        if (name === 'cause' || name === 'errors') queue.push(field);
      }
    }
  }
  return out;
}

function expectClean(value: unknown, where: string) {
  for (const text of renderings(value)) {
    expect(text.includes(KEY_PART), `${where} shows the API key:\n${text.slice(0, 600)}`).toBe(false);
    expect(text.includes(SECRET_PART), `${where} shows the webhook secret:\n${text.slice(0, 600)}`).toBe(false);
  }
}

/** A logger that keeps every line, at every level. */
function capturingLogger() {
  const lines: unknown[][] = [];
  const keep =
    (level: string) =>
    (...args: unknown[]) =>
      lines.push([level, ...args]);
  const logger: Logger = { error: keep('error'), warn: keep('warn'), info: keep('info'), debug: keep('debug') };
  return { lines, logger };
}

// --- the server: what it does is chosen per request by the X-Scenario header -----------------

const HTML_ECHO = (auth: string) =>
  `<html><body><h1>Whoops</h1><table><tr><td>Authorization</td><td>${auth}</td></tr></table></body></html>`;

function scenario({ req, res, seen, server }: Exchange): void {
  const name = String(seen.headers['x-scenario'] ?? '');
  const auth = String(seen.headers.authorization ?? '');
  const [kind, statusText] = name.split(':');
  const status = Number(statusText ?? 200);
  switch (kind) {
    case 'status':
      server.json(
        res,
        status,
        { message: `answer ${status}`, errors: { phone: ['invalid'] }, failure_reason: 'insufficient_funds' },
        { 'retry-after': '0' },
      );
      return;
    case 'echo-json':
      // A service that repeats what it received ("Invalid key: Bearer sk_…") in message, errors and any member.
      server.json(res, status, {
        message: `Invalid key: ${auth}`,
        errors: { authorization: [auth] },
        debug: { headers: seen.headers },
      });
      return;
    case 'echo-html':
      // Laravel's debug page or a proxy's error page listing the request headers.
      res.writeHead(status, { 'content-type': 'text/html' });
      res.end(HTML_ECHO(auth));
      return;
    case 'echo-header':
      // A gateway that puts the rejected token back in a response header.
      server.json(
        res,
        status,
        { message: 'Unauthenticated.' },
        { 'www-authenticate': `Bearer error="invalid_token" token="${auth}"`, 'x-debug-auth': auth },
      );
      return;
    case 'echo-2xx-shape':
      // A 2xx that echoes the key in a field of the wrong type: ResponseValidationError quotes values.
      server.json(res, 200, { data: { ...payment(), gross_amount: auth, debug: auth } });
      return;
    case 'echo-2xx-html':
      // A 2xx that is not JSON (a captive portal, a WAF page) echoing the request.
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end(HTML_ECHO(auth));
      return;
    case 'bad-shape':
      server.json(res, 200, { data: { ...payment(), gross_amount: 12.5 } });
      return;
    case 'reset':
      req.socket.destroy();
      return;
    case 'cut': {
      const text = JSON.stringify({ data: payment() });
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) + 40 });
      res.write(text.slice(0, 30));
      setImmediate(() => req.socket.destroy());
      return;
    }
    case 'stall':
      return; // never answers; the client's timeout or signal ends it, server.close() drops the socket
    default:
      server.json(res, 200, { data: payment() });
      return;
  }
}

let server: TestServer;
let closedOrigin: string;

beforeAll(async () => {
  server = await startServer(scenario);
  // An origin where nothing listens: a real "connection refused".
  const spare = await startServer(() => {});
  closedOrigin = spare.origin;
  await spare.close();
});

afterAll(async () => {
  await server?.close();
});

const charge = { amount: 5000, currency: 'XOF', country: 'SEN', provider: 'orange', phone: '221771234567' };

function client(logger: Logger, extra: Partial<ConstructorParameters<typeof PaymentsClient>[0]> = {}) {
  return new PaymentsClient({
    apiKey: API_KEY,
    baseUrl: server.origin,
    webhookSecret: WEBHOOK_SECRET,
    maxRetries: 1,
    timeout: 2_000,
    retryBackoff: { initialMs: 1, maxMs: 2 },
    logger,
    logLevel: 'debug',
    ...extra,
  });
}

const on = (name: string) => ({ headers: { 'X-Scenario': name } });

async function rejection(run: () => unknown): Promise<unknown> {
  try {
    await run();
  } catch (error) {
    return error;
  }
  throw new Error('expected a rejection, but the call succeeded');
}

async function signed(body: string, secret = WEBHOOK_SECRET) {
  return {
    payload: body,
    headers: { 'x-service-signature': await signWebhookPayload(body, secret), 'x-service-event': 'payment.succeeded' },
  };
}

const EVENT = JSON.stringify({ id: 'evt_1', type: 'payment.succeeded', data: payment({ status: 'succeeded' }) });

type Case = { label: string; expected: string; make: (logger: Logger) => Promise<unknown> };

const CASES: Case[] = [
  // Every APIError subclass, from a JSON answer; a status without its own class gives APIError.
  ...(
    [
      [400, 'BadRequestError'],
      [401, 'AuthenticationError'],
      [403, 'PermissionDeniedError'],
      [404, 'NotFoundError'],
      [409, 'IdempotencyConflictError'],
      [418, 'APIError'],
      [422, 'UnprocessableEntityError'],
      [429, 'RateLimitError'],
      [500, 'InternalServerError'],
      [503, 'InternalServerError'],
    ] as const
  ).map(
    ([status, expected]): Case => ({
      label: `${status} JSON on a creation`,
      expected,
      make: (logger) => rejection(() => client(logger).payments.create(charge, on(`status:${status}`))),
    }),
  ),
  {
    label: 'connection refused',
    expected: 'APIConnectionError',
    make: (logger) => rejection(() => client(logger, { baseUrl: closedOrigin }).payments.retrieve('p-1')),
  },
  {
    label: 'socket reset',
    expected: 'APIConnectionError',
    make: (logger) => rejection(() => client(logger).payments.create(charge, on('reset'))),
  },
  {
    label: 'body cut short',
    expected: 'APIConnectionError',
    make: (logger) => rejection(() => client(logger).payments.retrieve('p-1', on('cut'))),
  },
  {
    label: 'stall past the timeout',
    expected: 'APITimeoutError',
    make: (logger) => rejection(() => client(logger, { timeout: 60 }).payments.create(charge, on('stall'))),
  },
  {
    label: "the caller's signal",
    expected: 'APIUserAbortError',
    make: (logger) => rejection(() => client(logger).payments.retrieve('p-1', { ...on('stall'), signal: AbortSignal.timeout(40) })),
  },
  {
    label: 'a 2xx of the wrong shape',
    expected: 'ResponseValidationError',
    make: (logger) => rejection(() => client(logger).payments.retrieve('p-1', on('bad-shape'))),
  },
  {
    label: 'bad params',
    expected: 'InvalidParamsError',
    make: (logger) => rejection(() => client(logger).payments.create({ ...charge, phone: '+221 77' })),
  },
  {
    label: 'a key with whitespace around it',
    expected: 'PaymentsError',
    make: async () => rejection(() => new PaymentsClient({ apiKey: `${API_KEY}\n`, baseUrl: server.origin })),
  },
  {
    label: 'webhooks.verify without a secret',
    expected: 'PaymentsError',
    make: (logger) => rejection(() => client(logger, { webhookSecret: undefined }).webhooks.verify({ payload: EVENT, signature: 'ab' })),
  },
  // Every WebhookVerificationError reason, through the client's verify and the standalone function.
  {
    label: 'webhook: missing_signature',
    expected: 'WebhookVerificationError',
    make: (logger) => rejection(() => client(logger).webhooks.verify({ payload: EVENT, headers: {} })),
  },
  {
    label: 'webhook: malformed_signature',
    expected: 'WebhookVerificationError',
    make: (logger) => rejection(() => client(logger).webhooks.verify({ payload: EVENT, signature: 'zz' })),
  },
  {
    label: 'webhook: signature_mismatch (secret rotation, two secrets, one with a stray newline)',
    expected: 'WebhookVerificationError',
    make: async () =>
      rejection(async () => verifyWebhook({ ...(await signed(EVENT, 'whsec_other')), secret: [WEBHOOK_SECRET, `${WEBHOOK_SECRET}\n`] })),
  },
  {
    label: 'webhook: signature_mismatch with the API key given as the secret',
    expected: 'WebhookVerificationError',
    make: async () => rejection(async () => verifyWebhook({ ...(await signed(EVENT)), secret: API_KEY })),
  },
  {
    label: 'webhook: invalid_payload',
    expected: 'WebhookVerificationError',
    make: async () => rejection(async () => verifyWebhook({ ...(await signed('not json')), secret: WEBHOOK_SECRET })),
  },
  {
    label: 'webhook: event_type_mismatch',
    expected: 'WebhookVerificationError',
    make: async () => {
      const delivery = await signed(EVENT);
      return rejection(() =>
        verifyWebhook({ ...delivery, headers: { ...delivery.headers, 'x-service-event': 'payment.failed' }, secret: WEBHOOK_SECRET }),
      );
    },
  },
];

// The service (or something in front of it) repeats the key back: every place an error keeps from
// a response must have it redacted.
const ECHO_CASES: Case[] = [
  {
    label: 'echoed in a 401 JSON message, errors and body',
    expected: 'AuthenticationError',
    make: (logger) => rejection(() => client(logger).payments.retrieve('p-1', on('echo-json:401'))),
  },
  {
    label: 'echoed in a 500 HTML debug page (retried, then thrown)',
    expected: 'InternalServerError',
    make: (logger) => rejection(() => client(logger).payments.create(charge, on('echo-html:500'))),
  },

  // Found by this suite: the transport (internal/transport.ts, withRedactedHeaders) redacts header
  // values once, for every status.
  {
    label: 'echoed in 401 response headers (APIError.headers)',
    expected: 'AuthenticationError',
    make: (logger) => rejection(() => client(logger).payments.retrieve('p-1', on('echo-header:401'))),
  },
  // Found by this suite, fixed in bufferingFetch: the 2xx body text is redacted before it is parsed.
  {
    label: 'echoed in a 2xx field of the wrong type (ResponseValidationError.body)',
    expected: 'ResponseValidationError',
    make: (logger) => rejection(() => client(logger).payments.retrieve('p-1', on('echo-2xx-shape'))),
  },
  // Found by this suite, fixed in bufferingFetch (MalformedBodyError keeps the redacted text).
  {
    label: 'echoed in a 2xx that is not JSON (ResponseValidationError.body)',
    expected: 'ResponseValidationError',
    make: (logger) => rejection(() => client(logger).payments.retrieve('p-1', on('echo-2xx-html'))),
  },
  // Found by this suite, fixed in client.ts normalizeBaseUrl: the raw value is not quoted.
  {
    label: 'apiKey and baseUrl swapped by mistake (PaymentsError.message)',
    expected: 'PaymentsError',
    make: async () => rejection(() => new PaymentsClient({ apiKey: server.origin, baseUrl: API_KEY })),
  },
];

/** Each error class exported by src/core/errors.ts, by name. */
const ERROR_CLASSES = Object.entries(errorsModule)
  .filter(([, value]) => typeof value === 'function' && value.prototype instanceof Error)
  .map(([name]) => name);

describe('over ky and the platform fetch', () => {
  describe('secret hygiene across every error class (debug logging on)', () => {
    const produced = new Set<string>();

    it.each(CASES)('$label → $expected: neither secret in the error, its causes or any log line', async ({ expected, make }) => {
      const { lines, logger } = capturingLogger();
      const error = await make(logger);
      expect(error).toBeInstanceOf(PaymentsError);
      expect((error as Error).name, (error as Error).message).toBe(expected);
      expect((error as object).constructor.name).toBe(expected);
      produced.add(expected);
      expectClean(error, `${expected}`);
      expectClean(lines, 'the log');
    });

    it('covered every error class exported by src/core/errors.ts', () => {
      expect(ERROR_CLASSES.length).toBeGreaterThan(10);
      expect([...produced].sort()).toEqual([...ERROR_CLASSES].sort());
    });

    it('debug logging actually logged the requests, retries and failures it was given', async () => {
      const { lines, logger } = capturingLogger();
      await rejection(() => client(logger).payments.create(charge, on('status:503')));
      const text = inspect(lines, { depth: Number.POSITIVE_INFINITY });
      expect(text).toMatch(/→ POST/);
      expect(text).toMatch(/retry 1/);
      expect(text).toMatch(/failed: InternalServerError/);
      expect(text).toContain('[redacted]');
      expectClean(lines, 'the log');
    });

    it('the client itself and its resources show neither secret', () => {
      const { logger } = capturingLogger();
      const c = client(logger);
      for (const value of [c, c.payments, c.checkoutSessions, c.webhooks, c.wallets]) expectClean(value, 'the client');
    });

    it('a webhook handler answers bad deliveries and reports them without either secret', async () => {
      const reported: unknown[] = [];
      const handle = webhookHandler({ secret: WEBHOOK_SECRET, onEvent: () => {}, onError: (error, info) => reported.push(error, info) });
      const delivery = await signed(EVENT, 'whsec_wrong');
      const answer = await handle(
        new Request(`${server.origin}/hooks`, { method: 'POST', body: delivery.payload, headers: delivery.headers }),
      );
      expect(answer.status).toBe(400);
      expect(reported.length).toBeGreaterThan(0);
      expectClean(await answer.text(), 'the answer');
      expectClean(reported, 'onError');
    });
  });

  describe('secret hygiene when the service echoes the key back', () => {
    it.each(ECHO_CASES)('$label → $expected', async ({ expected, make }) => {
      const { lines, logger } = capturingLogger();
      const error = await make(logger);
      expect((error as Error).name, (error as Error).message).toBe(expected);
      expectClean(error, expected);
      expectClean(lines, 'the log');
    });
  });
});
