/**
 * The response parser and the error mapper, fed arbitrary answers: whatever the body (JSON of any
 * shape, text, HTML, nothing), status and headers, a call resolves or rejects with one of the SDK's
 * own errors, never a TypeError from deep inside. Driven through the real client twice: with a
 * custom `fetch` answering `new Response(...)`, and with the same answers, plus any reason phrase,
 * sent by a real server on 127.0.0.1 and read by the platform's fetch; and by calling
 * `makeAPIError` / `connectionError` directly.
 */
import fc from 'fast-check';
import {
  APIConnectionError,
  APIError,
  AuthenticationError,
  BadRequestError,
  IdempotencyConflictError,
  InternalServerError,
  NotFoundError,
  PaymentsClient,
  PaymentsError,
  PermissionDeniedError,
  RateLimitError,
  ResponseValidationError,
  UnprocessableEntityError,
} from 'payments-sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeAPIError } from '../../src/core/errors.js';
import { connectionError } from '../../src/internal/transport.js';
import { API_KEY, API_URL, checkoutSession, envelope, ORIGIN, payment } from '../helpers/fixtures.js';
import { startServer, type TestServer } from '../network/server.js';

const RUNS = Number(process.env.FUZZ_RUNS ?? 300);

const NULL_BODY_STATUSES = new Set([204, 205, 304]);

// Keys that trip naive object handling: prototype names, coercion hooks, and the members the
// error mapper reads. Mixed into generated objects so the fuzzer reaches them.
const HOSTILE_KEYS = [
  '__proto__',
  'constructor',
  'prototype',
  'toString',
  'valueOf',
  'toJSON',
  'then',
  'message',
  'error',
  'errors',
  'failure_reason',
  'data',
  'links',
  'meta',
  'next',
];

/** JSON values whose object keys are drawn partly from {@link HOSTILE_KEYS}. */
const hostileJson: fc.Arbitrary<unknown> = fc.letrec<{ value: unknown }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.oneof(fc.string(), fc.integer(), fc.double({ noNaN: true, noDefaultInfinity: true }), fc.boolean(), fc.constant(null)),
    fc.array(tie('value'), { maxLength: 4 }),
    fc.dictionary(fc.oneof(fc.constantFrom(...HOSTILE_KEYS), fc.string({ maxLength: 8 })), tie('value'), { maxKeys: 5 }),
  ),
})).value;

/** Bodies shaped like what the service sends, with any member replaced by anything. */
const nearValidJson: fc.Arbitrary<unknown> = fc.oneof(
  fc.record({ data: fc.constant(payment()) }),
  fc.record({ data: fc.constant(checkoutSession()) }),
  fc.constant(envelope([payment(), payment()], { page: 1, lastPage: 1 })),
  fc
    .tuple(
      fc.constantFrom<Record<string, unknown>>(payment(), checkoutSession()),
      fc.constantFrom(...Object.keys(payment()), ...Object.keys(checkoutSession())),
      hostileJson,
    )
    .map(([base, key, value]) => ({ data: { ...base, [key]: value } })),
  fc.tuple(fc.constantFrom('data', 'links', 'meta'), hostileJson).map(([key, value]) => ({ ...envelope([payment()]), [key]: value })),
  fc.record({ message: hostileJson, errors: hostileJson, failure_reason: hostileJson }, { requiredKeys: [] }),
  fc.record({
    message: fc.string(),
    errors: fc.dictionary(fc.string({ maxLength: 8 }), fc.oneof(hostileJson, fc.array(hostileJson, { maxLength: 3 })), { maxKeys: 3 }),
  }),
);

/** Any body text: nothing, arbitrary JSON, hostile or near-valid JSON, arbitrary or binary-ish text, HTML, cut JSON. */
const bodyText: fc.Arbitrary<string> = fc.oneof(
  fc.constant(''),
  fc.json({ maxDepth: 4 }),
  hostileJson.map((v) => JSON.stringify(v) ?? 'null'),
  nearValidJson.map((v) => JSON.stringify(v)),
  fc.string({ unit: 'grapheme', maxLength: 200 }),
  fc.string({ unit: 'binary', maxLength: 200 }),
  fc.constant('<html><body><h1>502 Bad Gateway</h1></body></html>'),
  nearValidJson.chain((v) => {
    const text = JSON.stringify(v);
    return fc.nat({ max: text.length }).map((cut) => text.slice(0, cut));
  }),
  fc.constant('['.repeat(20_000)),
);

const headerValue = fc.stringMatching(/^[\x21-\x7e]([\x20-\x7e]{0,40}[\x21-\x7e])?$/);
const retryAfter = fc.oneof(
  fc.nat().map(String),
  fc.constantFrom(
    '0',
    '-1',
    '1.5',
    '1e400',
    '99999999999999999999',
    'soon',
    '',
    'Wed, 21 Oct 2015 07:28:00 GMT',
    'Fri, 31 Dec 9999 23:59:59 GMT',
  ),
  fc.date({ noInvalidDate: true }).map((d) => d.toUTCString()),
  headerValue,
);
const headers: fc.Arbitrary<Record<string, string>> = fc.record(
  {
    'content-type': fc.oneof(
      fc.constantFrom(
        'application/json',
        'application/json; charset=utf-8',
        'application/problem+json',
        'text/html',
        'text/plain',
        'application/octet-stream',
      ),
      headerValue,
    ),
    'retry-after': retryAfter,
    'x-request-id': headerValue,
  },
  { requiredKeys: [] },
);

const CALLS = ['payments.create', 'payments.retrieve', 'payments.list', 'checkoutSessions.create', 'wallets.list', 'list.pages'] as const;
type Call = (typeof CALLS)[number];

/** Fields the SDK does not know (prefixed, so they never replace a known one) with any JSON value. */
const unknownFields = fc.dictionary(
  fc.string({ maxLength: 8 }).map((k) => `x_${k}`),
  hostileJson,
  { maxKeys: 3 },
);
/** A status value the SDK does not know yet (enums are open: a new value never breaks a merchant). */
const anyStatusText = fc.oneof(fc.constantFrom('pending', 'succeeded', 'created'), fc.string({ maxLength: 12 }));

/** A body the call must accept, with unknown fields and unknown status values mixed in. */
function validBody(call: Call): fc.Arbitrary<string> {
  const item = (base: Record<string, unknown>) =>
    fc.tuple(unknownFields, anyStatusText).map(([extra, status]) => ({ ...base, ...extra, status }));
  switch (call) {
    case 'payments.create':
    case 'payments.retrieve':
      return fc.tuple(item(payment()), unknownFields).map(([data, extra]) => JSON.stringify({ ...extra, data }));
    case 'checkoutSessions.create':
      return fc.tuple(item(checkoutSession()), unknownFields).map(([data, extra]) => JSON.stringify({ ...extra, data }));
    case 'payments.list':
    case 'list.pages':
      return fc
        .tuple(fc.array(item(payment()), { maxLength: 3 }), unknownFields)
        .map(([data, extra]) => JSON.stringify({ ...envelope(data), ...extra }));
    case 'wallets.list':
      return fc
        .array(unknownFields, { maxLength: 3 })
        .chain((wallets) => fc.constantFrom(JSON.stringify(wallets), JSON.stringify({ data: wallets })));
  }
}

/** A call, and an answer to it: status 200–599 (what `Response` accepts), any body and headers. */
const exchange = fc.constantFrom(...CALLS).chain((call) =>
  fc
    .record({
      call: fc.constant(call),
      status: fc.oneof(fc.constantFrom(200, 201), fc.integer({ min: 200, max: 599 })),
      valid: fc.boolean(),
      headers,
    })
    .chain((x) => (x.valid ? validBody(call) : bodyText).map((body) => ({ ...x, body }))),
);

function clientAnswering(a: { status: number; body: string; headers: Record<string, string> }): PaymentsClient {
  return new PaymentsClient({
    apiKey: API_KEY,
    baseUrl: `${ORIGIN}/`,
    maxRetries: 0, // a retried status would only answer the same again
    fetch: async () => new Response(NULL_BODY_STATUSES.has(a.status) ? null : a.body, { status: a.status, headers: a.headers }),
  });
}

async function invoke(client: PaymentsClient, call: Call): Promise<unknown> {
  switch (call) {
    case 'payments.create':
      return client.payments.create({ amount: 5000, currency: 'XOF', country: 'SEN', provider: 'orange', phone: '221771234567' });
    case 'payments.retrieve':
      return client.payments.retrieve('9b2f8a1e-3c4d-4e5f-8a9b-0c1d2e3f4a5b');
    case 'payments.list':
      return client.payments.list({ per_page: 2 });
    case 'checkoutSessions.create':
      return client.checkoutSessions.create({ amount: 5000, currency: 'XOF' });
    case 'wallets.list':
      return client.wallets.list();
    case 'list.pages': {
      // Every page answers the same: a body with a links.next loops, and the SDK must stop it itself.
      const seen: unknown[] = [];
      for await (const page of client.payments.list().pages()) {
        seen.push(page);
        if (seen.length > 3) throw new Error('pagination did not stop on a repeated links.next');
      }
      return seen;
    }
  }
}

/** The class `makeAPIError` must pick for a non-2xx status. */
function expectedClass(status: number): typeof APIError {
  const byStatus: Record<number, typeof APIError> = {
    400: BadRequestError,
    401: AuthenticationError,
    403: PermissionDeniedError,
    404: NotFoundError,
    409: IdempotencyConflictError,
    422: UnprocessableEntityError,
    429: RateLimitError,
  };
  return byStatus[status] ?? (status >= 500 ? InternalServerError : APIError);
}

function describeError(error: unknown): string {
  return error instanceof Error ? `${error.constructor.name}: ${error.message}\n${error.stack}` : String(error);
}

type Answer = { call: Call; status: number; valid: boolean; body: string; headers: Record<string, string> };

/** The property both drivers hold the client to: the call resolves only on a matching 2xx, else rejects with the SDK's error of the status's class. */
async function checkOutcome(a: Answer, client: PaymentsClient, overFetch = false): Promise<void> {
  const { call } = a;
  let outcome: { ok: true } | { ok: false; error: unknown };
  try {
    await invoke(client, call);
    outcome = { ok: true };
  } catch (error) {
    outcome = { ok: false, error };
  }
  const ok = a.status >= 200 && a.status < 300;
  // A valid body (whatever unknown fields and status values it carries) on a 2xx must resolve.
  if (ok && a.valid && !NULL_BODY_STATUSES.has(a.status))
    expect(outcome, describeError(!outcome.ok && outcome.error)).toEqual({ ok: true });
  if (outcome.ok) {
    // Only a 2xx whose body matches the schema may resolve.
    expect(ok).toBe(true);
    return;
  }
  const { error } = outcome;
  expect(error instanceof PaymentsError, describeError(error)).toBe(true);
  expect(typeof (error as Error).message).toBe('string');
  if (ok) {
    // A 2xx that does not parse or does not match; or pagination refusing a loop.
    expect(
      error instanceof ResponseValidationError || (call === 'list.pages' && (error as Error).message.includes('already visited')),
      describeError(error),
    ).toBe(true);
  } else if (overFetch && a.status === 407) {
    // The Fetch standard turns a 407 received without a proxy into a network error.
    expect(error, describeError(error)).toBeInstanceOf(APIConnectionError);
  } else {
    expect(error, describeError(error)).toBeInstanceOf(expectedClass(a.status));
    expect((error as APIError).status).toBe(a.status);
  }
  if (call === 'payments.create' || call === 'checkoutSessions.create') {
    expect((error as PaymentsError).idempotencyKey).toEqual(expect.any(String));
  }
}

describe('the response parser, fed arbitrary answers through the real client', () => {
  it('resolves, or rejects with a PaymentsError of the class the status calls for', async () => {
    await fc.assert(
      fc.asyncProperty(exchange, (a) => checkOutcome(a, clientAnswering(a))),
      { numRuns: RUNS },
    );
  });
});

describe('the same answers sent by a real server on 127.0.0.1, read through fetch', () => {
  // The answer the server sends next; a reason phrase of any latin-1 text goes with it.
  let next: (Answer & { reason: string }) | undefined;
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer(({ res }) => {
      const a = next as Answer & { reason: string };
      res.writeHead(a.status, a.reason, a.headers);
      res.end(NULL_BODY_STATUSES.has(a.status) ? undefined : a.body);
    });
  });
  afterAll(() => server.close());

  it('resolves, or rejects with a PaymentsError of the class the status calls for', async () => {
    const client = new PaymentsClient({ apiKey: API_KEY, baseUrl: server.origin, maxRetries: 0, timeout: 5_000 });
    const reason = fc.stringMatching(/^[\t\x20-\x7e\x80-\xff]{0,24}$/);
    await fc.assert(
      fc.asyncProperty(exchange, reason, async (a, phrase) => {
        next = { ...a, reason: phrase };
        await checkOutcome(a, client, true);
      }),
      { numRuns: Math.ceil(RUNS / 2) },
    );
  });
});

/** Things a custom `fetch` (or the platform) may throw, including duck-typed look-alikes of ky's errors. */
const thrown: fc.Arbitrary<unknown> = fc.oneof(
  fc.anything({ withBigInt: true, withDate: true, withMap: true, withSet: true, withNullPrototype: true, withTypedArray: true }),
  fc.string().map((m) => new Error(m)),
  fc.string().map((m) => new TypeError(m)),
  fc.constantFrom('fetch failed', 'terminated', 'Failed to fetch', 'Network connection lost').map((m) => new TypeError(m)),
  fc.constant(new DOMException('The operation was aborted.', 'AbortError')),
  fc.constant(new DOMException('The operation timed out.', 'TimeoutError')),
  // ky recognises its errors by `name` too: another library's HTTPError (got, a wrapped ky) may come from a custom fetch.
  fc
    .record(
      {
        name: fc.constantFrom('HTTPError', 'TimeoutError', 'NetworkError', 'KyError', 'AbortError'),
        message: fc.string(),
        response: fc.anything(),
        data: fc.anything(),
      },
      { requiredKeys: ['name'] },
    )
    .chain((fields) => fc.constantFrom<unknown>(fields, Object.assign(new Error(String(fields.message ?? '')), fields))),
);

describe('the error mapper, fed arbitrary errors and bodies', () => {
  it('the client rejects with a PaymentsError whatever its fetch throws', async () => {
    await fc.assert(
      fc.asyncProperty(thrown, async (value) => {
        const client = new PaymentsClient({
          apiKey: API_KEY,
          baseUrl: `${ORIGIN}/`,
          maxRetries: 0,
          fetch: async () => {
            throw value;
          },
        });
        const error = await client.payments.retrieve('x').then(
          () => undefined,
          (e: unknown) => e,
        );
        expect(error instanceof PaymentsError, describeError(error)).toBe(true);
        expect(error).toBeInstanceOf(APIConnectionError);
      }),
      { numRuns: RUNS },
    );
  });

  it('connectionError maps anything a fetch throws to a PaymentsError', () => {
    fc.assert(
      fc.property(thrown, (value) => {
        const mapped = connectionError(value, 'GET', `${API_URL}/payments/x`, [API_KEY]);
        expect(mapped instanceof PaymentsError, describeError(mapped)).toBe(true);
        expect(typeof mapped.message).toBe('string');
      }),
      { numRuns: RUNS },
    );
  });

  it('makeAPIError builds the class of the status from any body and headers', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 100, max: 599 }),
        fc.oneof(hostileJson, bodyText, fc.anything({ withBigInt: true, withNullPrototype: true, withMap: true })),
        headers,
        (status, body, headerInit) => {
          let error: unknown;
          try {
            error = makeAPIError({ status, body, headers: new Headers(headerInit) });
          } catch (thrownError) {
            throw new Error(`makeAPIError threw for status ${status} and body ${safeShow(body)}: ${describeError(thrownError)}`);
          }
          expect(error).toBeInstanceOf(expectedClass(status));
          const apiError = error as APIError;
          expect(apiError.status).toBe(status);
          expect(typeof apiError.message).toBe('string');
          expect(apiError.message.length).toBeGreaterThan(0);
          if (apiError.errors) {
            for (const messages of Object.values(apiError.errors)) for (const m of messages) expect(typeof m).toBe('string');
          }
          if (apiError instanceof RateLimitError && apiError.retryAfter !== undefined) {
            expect(apiError.retryAfter).toBeGreaterThanOrEqual(0);
          }
        },
      ),
      { numRuns: RUNS * 3 },
    );
  });
});

// Bugs the fuzzer found in src/ (fixed: safeString, transport.ts `instanceof HTTPError`), kept as regressions.
describe('inputs that once escaped as bare TypeErrors', () => {
  const rejection = (fetchImpl: typeof fetch) =>
    new PaymentsClient({ apiKey: API_KEY, baseUrl: `${ORIGIN}/`, maxRetries: 0, fetch: fetchImpl }).payments
      .create({ amount: 5000, currency: 'XOF', country: 'SEN', provider: 'orange', phone: '221771234567' })
      .then(
        () => undefined,
        (e: unknown) => e,
      );

  it('a 422 whose errors member holds {"toString": 0} rejects with a PaymentsError (errors.ts fieldErrorsFromBody)', async () => {
    const body = '{"message":"The given data was invalid.","errors":{"amount":[{"toString":0}]}}';
    const error = await rejection(async () => new Response(body, { status: 422, headers: { 'content-type': 'application/json' } }));
    expect(error).toBeInstanceOf(UnprocessableEntityError);
  });

  it('a custom fetch throwing a null-prototype object rejects with a PaymentsError (transport.ts connectionError)', async () => {
    const error = await rejection(async () => {
      throw Object.create(null);
    });
    expect(error).toBeInstanceOf(APIConnectionError);
  });

  it("a custom fetch throwing another library's HTTPError rejects with a PaymentsError (transport.ts connectionError)", async () => {
    // An error named 'HTTPError' without ky's `response` (a wrapper library's, thrown before any answer).
    const error = await rejection(async () => {
      throw Object.assign(new Error('Request failed'), { name: 'HTTPError' });
    });
    expect(error).toBeInstanceOf(PaymentsError);
  });
});

function safeShow(value: unknown): string {
  try {
    return JSON.stringify(value)?.slice(0, 200) ?? String(value);
  } catch {
    return '(unprintable)';
  }
}
