/**
 * List params (README "Resources"; docs/service.md "Endpoints"): `status`, `from`/`to` as
 * 'YYYY-MM-DD' or a Date sent as its UTC date, `per_page` 1–100, `page`. Payments and checkout
 * sessions refuse unknown filters; payouts and payment links pass them through.
 */
import { HttpResponse, http } from 'msw';
import { InvalidParamsError, type PaymentsClient } from 'payments-sdk';
import { afterEach, describe, expect, it } from 'vitest';
import { caught } from '../helpers/caught.js';
import { makeClient } from '../helpers/client.js';
import { API_URL, envelope, ORIGIN } from '../helpers/fixtures.js';
import { useMswServer } from '../helpers/msw.js';
import { queryOf, useRequestLog } from '../helpers/request-log.js';

const server = useMswServer();
const log = useRequestLog(server);

const LISTS = ['payments', 'checkout-sessions', 'payouts', 'payment-links'] as const;
type ListPath = (typeof LISTS)[number];

function list(client: PaymentsClient, path: ListPath, params: Record<string, unknown>) {
  if (path === 'payments') return client.payments.list(params as never);
  if (path === 'checkout-sessions') return client.checkoutSessions.list(params as never);
  if (path === 'payouts') return client.payouts.list(params as never);
  return client.paymentLinks.list(params as never);
}

function answerEmpty() {
  for (const path of LISTS)
    server.use(http.get(`${API_URL}/${path}`, () => HttpResponse.json(envelope([], { origin: ORIGIN, path: `/api/v1/${path}` }))));
}

async function issuesOf(fn: () => unknown): Promise<Record<string, string>> {
  const error = await caught(fn);
  expect(error).toBeInstanceOf(InvalidParamsError);
  expect(log).toHaveLength(0);
  return Object.fromEntries((error as InvalidParamsError).issues.map((i) => [i.path.join('.'), i.message]));
}

describe.each(LISTS)('%s list params', (path) => {
  it('per_page 1 and 100 are sent; 0, 101 and 2.5 are refused before sending', async () => {
    answerEmpty();
    await list(makeClient(), path, { per_page: 1 });
    await list(makeClient(), path, { per_page: 100, page: 7 });
    expect(log.map(queryOf)).toEqual([{ per_page: '1' }, { per_page: '100', page: '7' }]);
    log.length = 0;
    for (const [per_page, message] of [
      [0, 'must be ≥ 1, got 0'],
      [101, 'must be ≤ 100, got 101'],
      [2.5, 'must be an integer, got 2.5'],
      ['20', 'must be a number, got string'],
    ]) {
      expect(await issuesOf(() => list(makeClient(), path, { per_page }))).toEqual({ per_page: message });
    }
  });

  it('page must be an integer ≥ 1', async () => {
    for (const page of [0, -1, 1.5]) {
      expect(Object.keys(await issuesOf(() => list(makeClient(), path, { page })))).toEqual(['page']);
    }
  });

  it('from/to: a wrong date string or an invalid Date is refused, naming both fields', async () => {
    const issues = await issuesOf(() => list(makeClient(), path, { from: '2026-02-30', to: new Date('not a date') }));
    expect(issues).toEqual({ from: 'must be a "YYYY-MM-DD" date or a valid Date', to: 'must be a "YYYY-MM-DD" date or a valid Date' });
    for (const from of ['2026-2-1', '01/11/2026', '2026-11-01T00:00:00Z', 20261101, 'yesterday']) {
      expect(Object.keys(await issuesOf(() => list(makeClient(), path, { from })))).toEqual(['from']);
    }
  });

  it('status: an empty string is refused; a state the SDK does not know yet is sent (enums are open)', async () => {
    expect(Object.keys(await issuesOf(() => list(makeClient(), path, { status: '' })))).toEqual(['status']);
    answerEmpty();
    await list(makeClient(), path, { status: 'on_hold' });
    expect(queryOf(log[0])).toEqual({ status: 'on_hold' });
  });
});

describe('Date filters are sent as their UTC date', () => {
  const savedTz = process.env.TZ;
  afterEach(() => {
    if (savedTz === undefined) delete process.env.TZ;
    else process.env.TZ = savedTz;
  });

  it('a Date just after local midnight in UTC+2 is the previous UTC day; one just before in UTC-5 is the next', async () => {
    answerEmpty();
    process.env.TZ = 'Africa/Johannesburg'; // UTC+2, no daylight saving
    const from = new Date('2026-03-01T00:30:00+02:00');
    // Precondition: the process really is in UTC+2, so a local-date implementation would send 03-01.
    expect(from.getDate()).toBe(1);
    process.env.TZ = 'America/Bogota'; // UTC-5, no daylight saving
    const to = new Date('2026-03-31T23:30:00-05:00');
    expect(to.getDate()).toBe(31);
    await makeClient().payments.list({ from, to });
    expect(queryOf(log[0])).toEqual({ from: '2026-02-28', to: '2026-04-01' });
  });

  it('the same for checkout sessions, payouts and payment links', async () => {
    answerEmpty();
    process.env.TZ = 'Africa/Johannesburg';
    const from = new Date('2026-01-01T01:00:00+02:00');
    for (const path of ['checkout-sessions', 'payouts', 'payment-links'] as const) await list(makeClient(), path, { from });
    expect(log.map(queryOf)).toEqual([{ from: '2025-12-31' }, { from: '2025-12-31' }, { from: '2025-12-31' }]);
  });
});

describe('unknown filters', () => {
  it('payments and checkout sessions refuse them (with a snake_case hint), sending nothing', async () => {
    expect(await issuesOf(() => makeClient().payments.list({ perPage: 50 } as never))).toEqual({
      perPage: 'unknown key (did you mean per_page?)',
    });
    expect(await issuesOf(() => makeClient().checkoutSessions.list({ currency: 'XOF' } as never))).toEqual({ currency: 'unknown key' });
  });

  it('payouts and payment links pass them through to the query', async () => {
    answerEmpty();
    await makeClient().payouts.list({ destination_type: 'mobile_money', currency: 'XOF' });
    await makeClient().paymentLinks.list({ search: 'tee shirt', active: true });
    expect(log.map(queryOf)).toEqual([
      { destination_type: 'mobile_money', currency: 'XOF' },
      { search: 'tee shirt', active: 'true' },
    ]);
  });

  it('a filter the URL cannot carry is refused, every one named: its name or its value too long or not well-formed', async () => {
    const long = 'n'.repeat(300);
    expect(
      await issuesOf(() =>
        makeClient().payouts.list({ [long]: 1, '\uD800': 1, note: 'v'.repeat(2049), tag: '\uDC00', nested: { a: 1 } } as never),
      ),
    ).toEqual({
      ['n'.repeat(60)]: 'its name must be at most 255 characters, got 300',
      '\uD800': 'its name must be well-formed text (it holds a lone UTF-16 surrogate)',
      note: 'must be at most 2048 characters, got 2049',
      tag: 'must be well-formed text (it holds a lone UTF-16 surrogate)',
      nested: 'must be a string, a number, a boolean or a Date (a filter is one query parameter), got object',
    });
  });
});

describe('status spelling (§3: payments are "canceled", sessions "cancelled")', () => {
  it('payments refuse "cancelled" with a hint; sessions refuse "canceled"', async () => {
    const forPayments = await issuesOf(() => makeClient().payments.list({ status: 'cancelled' }));
    expect(forPayments.status).toMatch(/"canceled"/);
    const forSessions = await issuesOf(() => makeClient().checkoutSessions.list({ status: 'canceled' }));
    expect(forSessions.status).toMatch(/"cancelled"/);
  });

  it('each resource spelling is sent as it is', async () => {
    answerEmpty();
    await makeClient().payments.list({ status: 'canceled' });
    await makeClient().checkoutSessions.list({ status: 'cancelled' });
    expect(log.map(queryOf)).toEqual([{ status: 'canceled' }, { status: 'cancelled' }]);
  });
});
