/**
 * Create params are checked before anything is sent (README "Resources"; docs/service.md
 * "Endpoints"): one InvalidParamsError names every bad field, and the request log stays empty. Payments and
 * checkout sessions are fully specified, so an unknown key is an error.
 */
import { HttpResponse, http } from 'msw';
import { InvalidParamsError } from 'payments-sdk';
import { describe, expect, it } from 'vitest';
import { caught } from '../helpers/caught.js';
import { makeClient } from '../helpers/client.js';
import { API_URL, chargeParams, checkoutSession, payment, sessionParams } from '../helpers/fixtures.js';
import { useMswServer } from '../helpers/msw.js';
import { jsonOf, useRequestLog } from '../helpers/request-log.js';

const server = useMswServer();
const log = useRequestLog(server);

/** The issues of the InvalidParamsError `fn` throws, as `path → message`; asserts nothing was sent. */
async function issuesOf(fn: () => unknown): Promise<Record<string, string>> {
  const error = await caught(fn);
  expect(error).toBeInstanceOf(InvalidParamsError);
  expect(log).toHaveLength(0);
  return Object.fromEntries((error as InvalidParamsError).issues.map((i) => [i.path.join('.'), i.message]));
}

const charge = (overrides: Record<string, unknown>) => () => makeClient().payments.create({ ...chargeParams, ...overrides } as never);
const session = (overrides: Record<string, unknown>) => () =>
  makeClient().checkoutSessions.create({ ...sessionParams, ...overrides } as never);

describe('payments.create params (§4.1)', () => {
  it('names every bad field in one error, and sends nothing', async () => {
    const error = await caught(() =>
      makeClient().payments.create({
        amount: 12.5,
        currency: 'xof',
        country: 'SN',
        provider: '',
        phone: '+221 77 123 45 67',
        payer_name: 'x'.repeat(256),
        payer_email: 'awa@',
        description: 'd'.repeat(501),
      }),
    );
    expect(error).toBeInstanceOf(InvalidParamsError);
    const issues = (error as InvalidParamsError).issues;
    expect(issues.map((i) => i.path.join('.')).sort()).toEqual([
      'amount',
      'country',
      'currency',
      'description',
      'payer_email',
      'payer_name',
      'phone',
      'provider',
    ]);
    for (const field of ['amount', 'country', 'currency', 'description', 'payer_email', 'payer_name', 'phone', 'provider']) {
      expect((error as Error).message).toContain(field);
    }
    expect((error as Error).message).toContain('Nothing was sent');
    expect(log).toHaveLength(0);
  });

  it('names every missing required field', async () => {
    expect(await issuesOf(() => makeClient().payments.create({} as never))).toEqual({
      amount: 'is required',
      currency: 'is required',
      country: 'is required',
      provider: 'is required',
      phone: 'is required',
    });
  });

  it.each([
    ['0', 0],
    ['a negative amount', -100],
    ['a fraction', 99.5],
    ['a string', '5000'],
    ['NaN', Number.NaN],
    ['Infinity', Number.POSITIVE_INFINITY],
    ['beyond the safe integers', 2 ** 53],
  ])('amount: refuses %s', async (_label, amount) => {
    expect(Object.keys(await issuesOf(charge({ amount })))).toEqual(['amount']);
  });

  it.each(['xof', 'XO', 'XOFF', 'F CFA', 'X0F'])('currency: refuses %j (ISO 4217, 3 capital letters)', async (currency) => {
    expect(Object.keys(await issuesOf(charge({ currency })))).toEqual(['currency']);
  });

  it.each(['CFA', 'XYZ', 'XXX'])('currency: refuses %j, well formed but not an ISO 4217 currency, before sending', async (currency) => {
    expect(await issuesOf(charge({ currency }))).toEqual({ currency: expect.stringContaining('must be an ISO 4217 currency code') });
    expect(await issuesOf(session({ currency }))).toEqual({ currency: expect.stringContaining('must be an ISO 4217 currency code') });
  });

  it.each(['SN', 'sen', 'SENE', 'S3N'])('country: refuses %j (ISO 3166-1 alpha-3)', async (country) => {
    const issues = await issuesOf(charge({ country }));
    expect(Object.keys(issues)).toEqual(['country']);
    expect(issues.country).toMatch(/alpha-3/);
  });

  it.each(['+221771234567', '221 77 123 45 67', '221-771234567', '77abc', '12345', '1234567890123456'])(
    'phone: refuses %j (digits with calling code, no +)',
    async (phone) => {
      const issues = await issuesOf(charge({ phone }));
      expect(Object.keys(issues)).toEqual(['phone']);
      expect(issues.phone).toMatch(/no "\+"/);
    },
  );

  it.each(['awa', 'awa@', '@example.sn', 'awa diop@example.sn', 'awa@example'])('payer_email: refuses %j', async (payer_email) => {
    expect(Object.keys(await issuesOf(charge({ payer_email })))).toEqual(['payer_email']);
  });

  it('description 501 and payer_name 256 characters are refused, with the limit in the message', async () => {
    const issues = await issuesOf(charge({ description: 'd'.repeat(501), payer_name: 'n'.repeat(256) }));
    expect(issues.description).toBe('must be at most 500 characters, got 501');
    expect(issues.payer_name).toBe('must be at most 255 characters, got 256');
  });

  it('accepts the limits exactly, and sends the params unchanged', async () => {
    server.use(http.post(`${API_URL}/payments`, () => HttpResponse.json({ data: payment() }, { status: 201 })));
    const params = {
      ...chargeParams,
      amount: 1,
      description: 'd'.repeat(500),
      payer_name: 'n'.repeat(255),
      payer_email: 'awa.diop+shop@example.sn',
    };
    await makeClient().payments.create(params);
    expect(await jsonOf(log[0])).toEqual(params);
  });

  it('an unknown key is an error, with a snake_case hint for camelCase', async () => {
    const error = await caught(charge({ payerEmail: 'awa@example.sn', callback: 'x' }));
    expect(error).toBeInstanceOf(InvalidParamsError);
    expect((error as InvalidParamsError).issues).toEqual([
      { path: ['payerEmail'], message: 'unknown key (did you mean payer_email?)' },
      { path: ['callback'], message: 'unknown key' },
    ]);
    expect((error as Error).message).toContain('payerEmail: unknown key (did you mean payer_email?)');
    expect(log).toHaveLength(0);
  });

  it('bad params and an unknown key together are one error', async () => {
    const issues = await issuesOf(charge({ amount: 0, payerName: 'Awa' }));
    expect(Object.keys(issues).sort()).toEqual(['amount', 'payerName']);
  });

  it('params that are not an object are refused', async () => {
    await issuesOf(() => makeClient().payments.create(null as never));
    await issuesOf(() => makeClient().payments.create('amount=5000' as never));
  });
});

describe('checkoutSessions.create params (§4.4, §8)', () => {
  it.each([
    ['a Map', new Map([['order', 1042]])],
    ['a Date', new Date('2026-11-21')],
    ['an array', ['order', 1042]],
    ['a string', 'order=1042'],
  ])('metadata as %s is refused (JSON would mangle it), and nothing is sent', async (_label, metadata) => {
    const issues = await issuesOf(() => makeClient().checkoutSessions.create({ ...sessionParams, metadata } as never));
    expect(Object.keys(issues)).toEqual(['metadata']);
  });

  it('metadata as an object literal or a null-prototype object is sent as is', async () => {
    server.use(http.post(`${API_URL}/checkout-sessions`, () => HttpResponse.json({ data: checkoutSession() }, { status: 201 })));
    const bare = Object.assign(Object.create(null) as Record<string, unknown>, { order: 1042 });
    for (const metadata of [{ order: 1042, tags: ['a'] }, bare]) {
      await makeClient().checkoutSessions.create({ ...sessionParams, metadata });
    }
    expect(log).toHaveLength(2);
    expect(((await jsonOf(log[1])) as { metadata: unknown }).metadata).toEqual({ order: 1042 });
  });

  it('names every bad field in one error, and sends nothing', async () => {
    const issues = await issuesOf(() =>
      makeClient().checkoutSessions.create({
        amount: 0,
        currency: 'cfa',
        description: 'd'.repeat(501),
        payer_name: 'n'.repeat(256),
        payer_email: 'not-an-email',
        payer_phone: '2'.repeat(21),
        success_url: 'ftp://shop.example/ok',
        cancel_url: `https://shop.example/${'c'.repeat(2048)}`,
        metadata: ['order', 1042] as never,
      }),
    );
    expect(Object.keys(issues).sort()).toEqual([
      'amount',
      'cancel_url',
      'currency',
      'description',
      'metadata',
      'payer_email',
      'payer_name',
      'payer_phone',
      'success_url',
    ]);
    expect(issues.payer_phone).toBe('must be at most 20 characters, got 21');
    expect(issues.cancel_url).toMatch(/at most 2048 characters/);
    expect(issues.success_url).toMatch(/http\(s\) URL/);
  });

  it.each(['javascript:alert(1)', 'shop.example/ok', '/thanks', 'https://', 'mailto:shop@example.sn'])(
    'success_url: refuses %j',
    async (success_url) => {
      expect(Object.keys(await issuesOf(session({ success_url })))).toEqual(['success_url']);
    },
  );

  it('accepts localhost, IP and long URLs up to 2048 characters, and the other limits exactly', async () => {
    server.use(http.post(`${API_URL}/checkout-sessions`, () => HttpResponse.json({ data: checkoutSession() }, { status: 201 })));
    const long = `https://shop.example/${'a'.repeat(2048 - 'https://shop.example/'.length)}`;
    expect(long).toHaveLength(2048);
    const params = {
      ...sessionParams,
      description: 'd'.repeat(500),
      payer_name: 'n'.repeat(255),
      payer_phone: '+221 77 123 45 67',
      success_url: 'http://localhost:3000/thanks',
      cancel_url: long,
      metadata: {},
    };
    await makeClient().checkoutSessions.create(params);
    await makeClient().checkoutSessions.create({
      ...sessionParams,
      success_url: 'http://127.0.0.1:8080/ok',
      cancel_url: 'https://[::1]:8443/cancel',
    });
    expect(log).toHaveLength(2);
    expect(await jsonOf(log[0])).toEqual(params);
  });

  it('an unknown key is an error (successUrl → success_url)', async () => {
    expect(await issuesOf(session({ successUrl: 'https://shop.example/ok' }))).toEqual({
      successUrl: 'unknown key (did you mean success_url?)',
    });
  });

  it('amount and currency are required', async () => {
    expect(await issuesOf(() => makeClient().checkoutSessions.create({} as never))).toEqual({
      amount: 'is required',
      currency: 'is required',
    });
  });
});

describe('creation options', () => {
  it('an empty idempotency key is refused before sending', async () => {
    const error = await caught(() => makeClient().payments.create(chargeParams, { idempotencyKey: '' }));
    expect(error).toBeInstanceOf(InvalidParamsError);
    expect(log).toHaveLength(0);
  });
});
