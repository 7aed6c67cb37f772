/**
 * Ids beyond 2^53 never lose digits: a webhook event id or a payout id sent as a JSON number is kept
 * exact (as its digits, a string), so two different ids never read as one. Numbers that are not ids
 * (amounts) stay numbers, and amounts are still refused unless they are safe integers.
 */
import { InvalidParamsError, PaymentsClient, ResponseValidationError } from 'payments-sdk';
import { memoryStore } from 'payments-sdk/stores';
import { webhookHandler } from 'payments-sdk/webhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseJson } from '../../src/internal/json.js';
import { toWebhookEvent } from '../../src/webhooks/events.js';
import { caught } from '../helpers/caught.js';
import { API_KEY } from '../helpers/fixtures.js';
import { deliveryHeaders, eventBody, SECRET } from '../helpers/webhook-deliveries.js';
import { startServer, type TestServer } from '../network/server.js';

const ID_A = '1234567890123456789';
const ID_B = '1234567890123456788';

/** A signed delivery whose `id` is the bare JSON number `id` (JSON.stringify cannot write one this long). */
function deliveryWithNumericId(id: string, type: 'payout.completed' | 'payout.failed') {
  const body = eventBody({ id: 'PLACEHOLDER', type, data: { id: 7, status: type.slice('payout.'.length) } }).replace('"PLACEHOLDER"', id);
  return new Request('http://127.0.0.1/webhooks', { method: 'POST', body, headers: deliveryHeaders(body) });
}

describe('webhook event ids beyond 2^53', () => {
  it('two events whose ids differ in the last digit are both handled, each with its exact id', async () => {
    const seen: { id: string; type: string }[] = [];
    const handle = webhookHandler({
      secret: SECRET,
      onEvent: (event) => void seen.push({ id: event.id, type: event.type }),
      store: memoryStore(),
    });
    const first = await handle(deliveryWithNumericId(ID_A, 'payout.completed'));
    const second = await handle(deliveryWithNumericId(ID_B, 'payout.failed'));
    expect(await first.json()).toEqual({ received: true });
    expect(await second.json()).toEqual({ received: true });
    expect(seen).toEqual([
      { id: ID_A, type: 'payout.completed' },
      { id: ID_B, type: 'payout.failed' },
    ]);
    // A real redelivery of the first is still recognised.
    expect(await (await handle(deliveryWithNumericId(ID_A, 'payout.completed'))).json()).toEqual({ received: true, duplicate: true });
  });
});

describe('where the runtime cannot read an id exactly', () => {
  it('an event whose id is a number beyond 2^53 is refused (invalid_payload), not rounded', () => {
    // What a body parsed without source-text access gives: the rounded number.
    expect(() => toWebhookEvent({ id: Number(ID_A), type: 'payout.completed', data: {} })).toThrow(
      expect.objectContaining({ reason: 'invalid_payload', message: expect.stringMatching(/id: must be a string or a safe integer/) }),
    );
  });
});

describe('parseJson', () => {
  it('keeps ids (id, …_id) beyond 2^53 as their digits, anywhere in the body, and leaves other numbers alone', () => {
    const text = `{"data":[{"id":${ID_A},"amount":5000,"meta":{"order_id":-${ID_B}}},{"id":42,"ratio":1.5}],"total":${ID_A}}`;
    expect(parseJson(text)).toEqual({
      data: [
        { id: ID_A, amount: 5000, meta: { order_id: `-${ID_B}` } },
        { id: 42, ratio: 1.5 },
      ],
      total: Number(ID_A),
    });
    // A fraction or an exponent in an id is kept as written too.
    expect(parseJson('{"id":1e400}')).toEqual({ id: '1e400' });
    expect(parseJson('{"id":12.5}')).toEqual({ id: '12.5' });
    expect(parseJson('{"id": 9007199254740991}')).toEqual({ id: 9007199254740991 });
  });
});

describe('payout ids beyond 2^53, from a real server on 127.0.0.1', () => {
  let server: TestServer;
  /** Two payouts whose ids differ in the last digit, as the service would send them (bare numbers). */
  const payouts: Record<string, string> = {
    [ID_A]: `{"id":${ID_A},"amount":5000,"currency":"XOF","status":"pending"}`,
    [ID_B]: `{"id":${ID_B},"amount":7000,"currency":"XOF","status":"sent"}`,
  };
  const send = (res: import('node:http').ServerResponse, status: number, text: string) => {
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(text);
  };

  beforeAll(async () => {
    server = await startServer(({ req, res }) => {
      const path = (req.url ?? '').split('?')[0] ?? '';
      if (req.method === 'POST' && path === '/api/v1/payouts') return send(res, 201, `{"data":${payouts[ID_A]}}`);
      if (req.method === 'GET' && path === '/api/v1/payouts') {
        return send(
          res,
          200,
          `{"data":[${payouts[ID_A]},${payouts[ID_B]}],"links":{"next":null},"meta":{"current_page":1,"last_page":1,"per_page":15,"total":2}}`,
        );
      }
      const id = decodeURIComponent(path.slice('/api/v1/payouts/'.length));
      const known = payouts[id];
      return known ? send(res, 200, `{"data":${known}}`) : send(res, 404, '{"message":"Not found."}');
    });
  });
  afterAll(() => server.close());

  describe('a real server', () => {
    const client = () => new PaymentsClient({ apiKey: API_KEY, baseUrl: server.origin, maxRetries: 0 });

    it('payouts.retrieve(payout.id) reads the same payout the creation returned', async () => {
      const created = await client().payouts.create({ amount: 5000, currency: 'XOF', destination: { type: 'mobile_money' } });
      expect(created.id).toBe(ID_A);
      const read = await client().payouts.retrieve(created.id as string);
      expect(read).toEqual({ id: ID_A, amount: 5000, currency: 'XOF', status: 'pending' });
      expect(server.requests.at(-1)?.url).toBe(`/api/v1/payouts/${ID_A}`);
    });

    it('a listed payout keeps its id, distinct from its neighbour', async () => {
      const page = await client().payouts.list();
      expect(page.data.map((p) => p.id)).toEqual([ID_A, ID_B]);
      expect((await client().payouts.retrieve(page.data[1]?.id as string)).amount).toBe(7000);
    });
  });

  it('a number id that is not a safe integer is refused before anything is sent (pass its digits as a string)', async () => {
    const before = server.requests.length;
    const error = await caught(() => new PaymentsClient({ apiKey: API_KEY, baseUrl: server.origin }).payouts.retrieve(Number(ID_A)));
    expect(error).toBeInstanceOf(InvalidParamsError);
    expect((error as InvalidParamsError).message).toMatch(/safe integer/);
    expect(server.requests.length).toBe(before);
  });

  it('an id under a key written with \\u escapes ("\\u0069d", as some encoders write letters) keeps its digits too', async () => {
    const escaped = await startServer(({ res }) =>
      send(res, 200, `{"data":{"\\u0069d":${ID_A},"amount":5000,"currency":"XOF","status":"pending","wallet_i\\u0064":${ID_B}}}`),
    );
    try {
      const read = await new PaymentsClient({ apiKey: API_KEY, baseUrl: escaped.origin, maxRetries: 0 }).payouts.retrieve(1);
      expect(read).toMatchObject({ id: ID_A, wallet_id: ID_B });
    } finally {
      await escaped.close();
    }
  });

  it('amounts stay safe integers: an amount beyond 2^53 is refused, not kept as text', async () => {
    const bad = await startServer(({ res }) => send(res, 200, `{"data":{"id":1,"amount":${ID_A}}}`));
    try {
      const error = await caught(() => new PaymentsClient({ apiKey: API_KEY, baseUrl: bad.origin, maxRetries: 0 }).payouts.retrieve(1));
      expect(error).toBeInstanceOf(ResponseValidationError);
      expect((error as ResponseValidationError).issues.map((issue) => issue.path.join('.'))).toEqual(['data.amount']);
    } finally {
      await bad.close();
    }
  });
});
