/**
 * Bad ids, idempotency keys and list filters are refused with an InvalidParamsError before anything
 * is sent; and, driven by fast-check, any id, key or filter either gives that error or a request
 * that a real server on 127.0.0.1 parses back to exactly the values given.
 */
import fc from 'fast-check';
import { InvalidParamsError, PaymentsClient } from 'payments-sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { caught } from '../helpers/caught.js';
import { API_KEY } from '../helpers/fixtures.js';
import { startServer, type TestServer } from '../network/server.js';

const RUNS = Number(process.env.FUZZ_RUNS ?? 150);
const payoutParams = { amount: 5000, currency: 'XOF', destination: { type: 'mobile_money' } };

let server: TestServer;
beforeAll(async () => {
  server = await startServer(({ req, res, server }) => {
    const path = (req.url ?? '').split('?')[0] ?? '';
    if (req.method === 'GET' && path === '/api/v1/payouts') {
      return server.json(res, 200, { data: [], links: { next: null }, meta: { current_page: 1, last_page: 1, per_page: 15, total: 0 } });
    }
    return server.json(res, req.method === 'POST' ? 201 : 200, { data: { id: 1, amount: 5000, currency: 'XOF', status: 'pending' } });
  });
});
afterAll(() => server.close());

const client = (options = {}) => new PaymentsClient({ apiKey: API_KEY, baseUrl: server.origin, maxRetries: 0, ...options });

/** The call's error, which must be an InvalidParamsError, with nothing sent. */
async function refused(call: () => Promise<unknown>): Promise<InvalidParamsError> {
  const before = server.requests.length;
  const error = await caught(call);
  expect(error).toBeInstanceOf(InvalidParamsError);
  expect(server.requests.length).toBe(before);
  return error as InvalidParamsError;
}

/**
 * Runs a call that must either be sent (`true`) or be refused with an InvalidParamsError before
 * anything was sent (`false`; `check` looks at the error).
 */
async function sentOrRefused(call: () => Promise<unknown>, check: (error: InvalidParamsError) => void = () => {}): Promise<boolean> {
  const before = server.requests.length;
  const outcome = await call().then(
    () => 'sent',
    (error: unknown) => error,
  );
  if (outcome === 'sent') return true;
  expect(outcome).toBeInstanceOf(InvalidParamsError);
  expect(server.requests.length).toBe(before);
  check(outcome as InvalidParamsError);
  return false;
}

describe('bad ids, keys and filters never reach the wire', () => {
  it('an id with a lone surrogate is an InvalidParamsError, not a URIError', async () => {
    for (const id of ['\uD800', 'evt\uDC00', '\uDBFF\uDBFF']) {
      const error = await refused(() => client().payments.retrieve(id));
      expect(error.issues).toEqual([{ path: ['id'], message: expect.stringMatching(/lone UTF-16 surrogate/) }]);
    }
    // A well-formed pair is an ordinary character.
    await client().payouts.retrieve('\uD83D\uDE00');
    expect(server.requests.at(-1)?.url).toBe('/api/v1/payouts/%F0%9F%98%80');
  });

  it('a number id must be a safe integer: NaN, Infinity, 1.5 and 2^53 are refused', async () => {
    for (const id of [Number.NaN, Number.POSITIVE_INFINITY, 1.5, 2 ** 53]) {
      const error = await refused(() => client().payouts.retrieve(id));
      expect(error.issues[0]?.message).toMatch(/safe integer/);
    }
  });

  it('an id is at most 255 characters: 100,000 are refused at once (not sent and retried)', async () => {
    const error = await refused(() => client().payouts.retrieve('x'.repeat(100_000)));
    expect(error.message).toMatch(/at most 255 characters, got 100000/);
    await client().payouts.retrieve('x'.repeat(255));
    expect(server.requests.at(-1)?.url).toBe(`/api/v1/payouts/${'x'.repeat(255)}`);
  });

  it('an idempotencyKey with CR/LF, a non-Latin-1 or any non-ASCII character is refused, and the error carries it', async () => {
    for (const key of ['key\r\nX-Injected: 1', 'line\nbreak', 'ключ', 'café', ' padded ', '', 'tab\there', 'x'.repeat(256)]) {
      const error = await refused(() => client().payouts.create(payoutParams, { idempotencyKey: key }));
      expect(error.idempotencyKey).toBe(key);
      expect(error.issues).toEqual([{ path: ['options', 'idempotencyKey'], message: expect.stringMatching(/printable ASCII/) }]);
    }
    // A bad key and a bad param are named together.
    const both = await refused(() => client().payouts.create({ ...payoutParams, amount: 0 }, { idempotencyKey: 'a\nb' }));
    expect(both.issues.map((issue) => issue.path.join('.'))).toEqual(['options.idempotencyKey', 'amount']);
  });

  it('pass-through filters take scalars only: an object, an array, a function, a bigint or an invalid Date is refused', async () => {
    const error = await refused(() => client().payouts.list({ nested: { a: 1 } }));
    expect(error.issues).toEqual([
      { path: ['nested'], message: 'must be a string, a number, a boolean or a Date (a filter is one query parameter), got object' },
    ]);
    const many = await refused(() =>
      client().payouts.list({
        list: [1, 2],
        fn: () => 1,
        big: 10n,
        when: new Date(Number.NaN),
        inf: Number.POSITIVE_INFINITY,
        s: '\uD800',
      }),
    );
    expect(many.issues.map((issue) => issue.path[0])).toEqual(['list', 'fn', 'big', 'when', 'inf', 's']);
    // Scalars pass, each as one parameter; null and undefined mean "no filter".
    await client().payouts.list({ q: 'a&b=c', n: 2.5, yes: true, day: new Date(Date.UTC(2026, 0, 31, 23)), none: null, gone: undefined });
    expect(server.requests.at(-1)?.url).toBe('/api/v1/payouts?q=a%26b%3Dc&n=2.5&yes=true&day=2026-01-31');
  });
});

// Strings with every kind of trouble: any code unit (lone surrogates included), ASCII controls,
// spaces at the ends, and lengths on both sides of the bounds.
const anyText = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.string({ unit: 'binary-ascii', maxLength: 40 }),
  fc.string({ unit: fc.integer({ min: 0xd7f0, max: 0xe010 }).map((c) => String.fromCharCode(c)), maxLength: 6 }),
  fc.string({ unit: fc.constantFrom('a', ' ', '.', '/', '%', '\r', '\n', '\t', '\u00e9', '\u0000'), maxLength: 8 }),
  fc.string({ minLength: 250, maxLength: 260 }),
  fc.constantFrom('.', '..', '', '   ', 'x'.repeat(2049)),
);
const anyNumber = fc.oneof(fc.integer(), fc.double(), fc.constantFrom(2 ** 53, -(2 ** 53), Number.MAX_SAFE_INTEGER, -0));

/** How a filter value travels, as the service reads it back. */
function sentAs(value: unknown): string {
  if (value instanceof Date) return value.toISOString().slice(0, 10);
  return String(value);
}

describe('properties, through a real server', () => {
  it('any id: an InvalidParamsError, or a request whose path segment decodes to exactly that id', async () => {
    await fc.assert(
      fc.asyncProperty(fc.oneof(anyText, anyNumber), async (id) => {
        if (!(await sentOrRefused(() => client().payouts.retrieve(id)))) return;
        const url = server.requests.at(-1)?.url ?? '';
        expect(url.startsWith('/api/v1/payouts/')).toBe(true);
        expect(decodeURIComponent(url.slice('/api/v1/payouts/'.length))).toBe(String(id));
      }),
      { numRuns: RUNS },
    );
  });

  it('any idempotencyKey: an InvalidParamsError carrying it, or a request whose Idempotency-Key is exactly it', async () => {
    await fc.assert(
      fc.asyncProperty(anyText, async (key) => {
        const call = () => client().payouts.create(payoutParams, { idempotencyKey: key });
        if (!(await sentOrRefused(call, (error) => expect(error.idempotencyKey).toBe(key)))) return;
        expect(server.requests.at(-1)?.headers['idempotency-key']).toBe(key);
      }),
      { numRuns: RUNS },
    );
  });

  it('any filters: an InvalidParamsError, or a query the server parses back to the same values', async () => {
    const value = fc.oneof(
      anyText,
      anyNumber,
      fc.boolean(),
      fc.date({ noInvalidDate: false }),
      fc.constantFrom(null, undefined),
      fc.object({ maxDepth: 1 }),
      fc.array(fc.integer(), { maxLength: 3 }),
    );
    // Keys: free text, plus the documented filters, whose own rules apply.
    const key = fc.oneof(anyText, fc.constantFrom('status', 'from', 'to', 'page', 'per_page'));
    await fc.assert(
      fc.asyncProperty(fc.dictionary(key, value, { maxKeys: 4 }), async (filters) => {
        if (!(await sentOrRefused(() => client().payouts.list(filters)))) return;
        const query = new URLSearchParams((server.requests.at(-1)?.url ?? '').split('?')[1] ?? '');
        const expected = Object.entries(filters)
          .filter(([, v]) => v !== undefined && v !== null)
          .map(([k, v]) => [k, sentAs(v)]);
        // Order aside (the documented filters come first): the same names with the same values.
        const byName = (a: string[], b: string[]) => ((a[0] ?? '') < (b[0] ?? '') ? -1 : (a[0] ?? '') > (b[0] ?? '') ? 1 : 0);
        expect([...query.entries()].sort(byName)).toEqual(expected.sort(byName));
      }),
      { numRuns: RUNS },
    );
  });
});
