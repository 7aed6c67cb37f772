import { readFileSync } from 'node:fs';
import { inspect } from 'node:util';
import { PaymentsClient, PaymentsError } from 'payments-sdk';
import {
  type PaymentWebhookEvent,
  type PayoutWebhookEvent,
  signWebhookPayload,
  type UnknownWebhookEvent,
  type VerifyWebhookInput,
  verifyWebhook,
  type WebhookEvent,
  WebhookVerificationError,
  type WebhookVerificationReason,
} from 'payments-sdk/webhooks';
import { describe, expect, expectTypeOf, it, vi } from 'vitest';
import { payment } from '../helpers/fixtures.js';
import { deliveryHeaders, eventBody, nodeSignature, OTHER_SECRET, SECRET } from '../helpers/webhook-deliveries.js';

async function failure(input: VerifyWebhookInput): Promise<WebhookVerificationError> {
  const error = await verifyWebhook(input).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(WebhookVerificationError);
  return error as WebhookVerificationError;
}

async function reasonOf(input: VerifyWebhookInput): Promise<WebhookVerificationReason> {
  return (await failure(input)).reason;
}

describe('signWebhookPayload', () => {
  it('is the lowercase hex HMAC-SHA256 of the raw bytes keyed with the whole secret (checked against node:crypto)', async () => {
    const body = eventBody();
    const signature = await signWebhookPayload(body, SECRET);
    expect(signature).toMatch(/^[0-9a-f]{64}$/);
    expect(signature).toBe(nodeSignature(body));
    expect(await signWebhookPayload(new TextEncoder().encode(body), SECRET)).toBe(signature);
    expect(await signWebhookPayload(Buffer.from(body), SECRET)).toBe(signature);
    // The whole secret, whsec_ prefix included, is the key.
    expect(signature).not.toBe(nodeSignature(body, SECRET.slice('whsec_'.length)));
  });

  it('refuses to sign something that is not a raw body', async () => {
    await expect(signWebhookPayload({ id: 'x' } as never, SECRET)).rejects.toThrow(/raw body.*JSON\.stringify it once/);
  });
});

describe('verifyWebhook: accepted deliveries', () => {
  it('returns the typed payment event for every raw payload form', async () => {
    const body = eventBody();
    const headers = deliveryHeaders(body);
    const bytes = new TextEncoder().encode(body);
    const larger = new Uint8Array(bytes.length + 4);
    larger.set(bytes, 2);
    const forms: VerifyWebhookInput['payload'][] = [
      body,
      Buffer.from(body),
      bytes,
      bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength),
      // A view in the middle of a larger buffer: only its bytes count.
      larger.subarray(2, 2 + bytes.length),
    ];
    for (const payload of forms) {
      const event = await verifyWebhook({ payload, headers, secret: SECRET });
      expect(event).toEqual({ id: 'evt_01JD3Z8Q4X5Y6Z7A8B9C0D1E2F', type: 'payment.succeeded', data: payment({ status: 'succeeded' }) });
    }
  });

  it('reads headers from Headers and from Node header objects, in any case, with array values', async () => {
    const body = eventBody();
    const signature = nodeSignature(body);
    const variants: VerifyWebhookInput['headers'][] = [
      new Headers({ 'X-Service-Signature': signature, 'X-Service-Event': 'payment.succeeded' }),
      { 'x-service-signature': signature },
      { 'X-SERVICE-SIGNATURE': signature, 'x-Service-Event': 'payment.succeeded' },
      { 'x-service-signature': [signature] },
      { 'x-service-signature': ['0'.repeat(64), signature] },
      // node:http joins a repeated header with ", ".
      { 'x-service-signature': `${'f'.repeat(64)}, ${signature}` },
      { 'x-service-signature': ` ${signature} ` },
    ];
    for (const headers of variants) {
      await expect(verifyWebhook({ payload: body, headers, secret: SECRET })).resolves.toMatchObject({ type: 'payment.succeeded' });
    }
  });

  it('takes the signature directly, which wins over the headers', async () => {
    const body = eventBody();
    const event = await verifyWebhook({
      payload: body,
      signature: nodeSignature(body),
      headers: { 'x-service-signature': '0'.repeat(64) },
      secret: SECRET,
    });
    expect(event.type).toBe('payment.succeeded');
    // Read by hand from a Node request, a repeated header is an array or one value joined with ", ".
    const signature = nodeSignature(body);
    for (const given of [['0'.repeat(64), signature], `${'0'.repeat(64)}, ${signature}`]) {
      await expect(verifyWebhook({ payload: body, signature: given as string, secret: SECRET })).resolves.toMatchObject({
        type: 'payment.succeeded',
      });
    }
  });

  it('accepts the signature hex in uppercase (the same 32 bytes)', async () => {
    const body = eventBody();
    await expect(verifyWebhook({ payload: body, signature: nodeSignature(body).toUpperCase(), secret: SECRET })).resolves.toBeDefined();
  });

  it('accepts any of several secrets (rotation, several endpoints on one route)', async () => {
    const body = eventBody();
    for (const signingSecret of [SECRET, OTHER_SECRET]) {
      const headers = deliveryHeaders(body, { secret: signingSecret });
      await expect(verifyWebhook({ payload: body, headers, secret: [OTHER_SECRET, SECRET] })).resolves.toMatchObject({
        id: expect.any(String),
      });
    }
    expect(
      await reasonOf({ payload: body, headers: deliveryHeaders(body, { secret: 'whsec_third' }), secret: [OTHER_SECRET, SECRET] }),
    ).toBe('signature_mismatch');
  });

  it('types payout events and validates their data as a Payout', async () => {
    const body = eventBody({
      type: 'payout.completed',
      data: { id: 42, amount: 10_000, currency: 'XOF', status: 'completed', extra: { a: 1 } },
    });
    const event = await verifyWebhook({ payload: body, headers: deliveryHeaders(body), secret: SECRET });
    expect(event).toEqual({
      id: 'evt_01JD3Z8Q4X5Y6Z7A8B9C0D1E2F',
      type: 'payout.completed',
      data: { id: 42, amount: 10_000, currency: 'XOF', status: 'completed', extra: { a: 1 } },
    });
    const bad = eventBody({ type: 'payout.completed', data: { amount: 10.5 } });
    const error = await failure({ payload: bad, headers: deliveryHeaders(bad), secret: SECRET });
    expect(error.reason).toBe('invalid_payload');
    expect(error.message).toContain('data.amount');
  });

  it('returns an event of a type it does not know as a generic event, never an error', async () => {
    const body = eventBody({ type: 'checkout_session.completed', data: { reference: 'R1', anything: [1, 2] } });
    const event = await verifyWebhook({ payload: body, headers: deliveryHeaders(body), secret: SECRET });
    expect(event).toEqual({
      id: 'evt_01JD3Z8Q4X5Y6Z7A8B9C0D1E2F',
      type: 'checkout_session.completed',
      data: { reference: 'R1', anything: [1, 2] },
    });
    // A new payment.* type is not validated as a Payment either: its data may differ.
    const refunded = eventBody({ type: 'payment.refunded', data: 'whatever' });
    await expect(verifyWebhook({ payload: refunded, headers: deliveryHeaders(refunded), secret: SECRET })).resolves.toMatchObject({
      data: 'whatever',
    });
  });

  it('keeps unknown payment fields and new status values (forward compatibility)', async () => {
    const body = eventBody({ data: { ...payment(), status: 'partially_refunded', new_field: { x: 1 } } });
    const event = await verifyWebhook({ payload: body, headers: deliveryHeaders(body), secret: SECRET });
    expect(event.data).toMatchObject({ status: 'partially_refunded', new_field: { x: 1 } });
  });

  it('turns a numeric id into its text, so event ids are always strings', async () => {
    const body = eventBody({ id: 123456 });
    expect((await verifyWebhook({ payload: body, headers: deliveryHeaders(body), secret: SECRET })).id).toBe('123456');
  });
});

describe('verifyWebhook: every reason', () => {
  const body = eventBody();

  it('missing_signature: no header, an empty one, or no headers at all', async () => {
    expect(await reasonOf({ payload: body, headers: {}, secret: SECRET })).toBe('missing_signature');
    expect(await reasonOf({ payload: body, headers: new Headers(), secret: SECRET })).toBe('missing_signature');
    expect(await reasonOf({ payload: body, headers: { 'x-service-signature': '' }, secret: SECRET })).toBe('missing_signature');
    expect(await reasonOf({ payload: body, headers: { 'x-service-signature': [] }, secret: SECRET })).toBe('missing_signature');
    expect(await reasonOf({ payload: body, secret: SECRET })).toBe('missing_signature');
    expect(await reasonOf({ payload: body, signature: '', secret: SECRET })).toBe('missing_signature');
    const error = await failure({ payload: body, headers: {}, secret: SECRET });
    expect(error.message).toContain('X-Service-Signature');
  });

  it('missing_signature: headers that throw when read, on the object, in its get() or inside an array value', async () => {
    const boom = () => {
      throw new Error('boom');
    };
    const getter = Object.defineProperty({}, 'x-service-signature', { get: boom, enumerable: true });
    const lookup = { get: boom };
    const element = { 'x-service-signature': Object.defineProperty([nodeSignature(body)], 0, { get: boom }) };
    for (const headers of [getter, lookup, element]) {
      expect(await reasonOf({ payload: body, headers: headers as never, secret: SECRET })).toBe('missing_signature');
    }
  });

  it('malformed_signature: not 64 hexadecimal characters', async () => {
    const sig = nodeSignature(body);
    for (const signature of [sig.slice(0, 63), `${sig}0`, `${sig.slice(0, 63)}g`, `sha256=${sig}`, 'not-a-signature']) {
      expect(await reasonOf({ payload: body, signature, secret: SECRET })).toBe('malformed_signature');
    }
    expect((await failure({ payload: body, signature: `sha256=${sig}`, secret: SECRET })).message).toMatch(/64 hexadecimal.*prefix/);
    expect(await reasonOf({ payload: body, signature: 42 as never, secret: SECRET })).toBe('malformed_signature');
    // A signature passed by hand that is no string is named as such, not taken for a missing one.
    const notText = await failure({ payload: body, signature: {} as never, secret: SECRET });
    expect(notText.reason).toBe('malformed_signature');
    expect(notText.message).toContain('`signature` must be a string, got an object');
  });

  it('signature_mismatch: another body, another secret, another signature', async () => {
    const headers = deliveryHeaders(body);
    expect(await reasonOf({ payload: `${body} `, headers, secret: SECRET })).toBe('signature_mismatch');
    expect(await reasonOf({ payload: body, headers, secret: OTHER_SECRET })).toBe('signature_mismatch');
    expect(await reasonOf({ payload: body, signature: 'a'.repeat(64), secret: SECRET })).toBe('signature_mismatch');
    const error = await failure({ payload: body, headers, secret: OTHER_SECRET });
    expect(error.message).toMatch(/raw body exactly as received/);
    expect(error.message).not.toContain('Note:');
  });

  it('invalid_payload: a parsed object, with how to keep the raw body in Express and Next.js', async () => {
    const headers = deliveryHeaders(body);
    const received: [unknown, string][] = [
      [JSON.parse(body), 'got an object'],
      [[1, 2], 'got an array'],
      [null, 'got null'],
      [undefined, 'got nothing'],
      [42, 'got a number'],
      ['[object Object]', 'got the text "[object Object]", a parsed body turned into a string'],
    ];
    for (const [payload, got] of received) {
      const error = await failure({ payload: payload as string, headers, secret: SECRET });
      expect(error.reason).toBe('invalid_payload');
      expect(error.message).toContain(`must be the raw body (a string, Uint8Array/Buffer or ArrayBuffer), ${got}.`);
      expect(error.message).toContain("express.raw({ type: 'application/json' })");
      expect(error.message).toContain('await request.text()');
    }
    // The other frameworks' fixes are in the guide the message names, shipped in the package.
    const error = await failure({ payload: JSON.parse(body), headers, secret: SECRET });
    const guide = /see "([^"]+)" in node_modules\/payments-sdk\/(docs\/webhooks\.md)/.exec(error.message);
    expect(guide).not.toBeNull();
    const text = readFileSync(new URL(`../../${guide?.[2]}`, import.meta.url), 'utf8');
    expect(text).toContain(`## ${guide?.[1]}`);
    for (const framework of ['Next.js Pages Router', 'Fastify', 'Koa']) expect(text).toContain(`| ${framework} |`);
    expect((JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { files: string[] }).files).toContain(
      'docs',
    );
  });

  it('invalid_payload: a correctly signed body that is not an event', async () => {
    const cases: [string, RegExp][] = [
      ['not json', /not JSON/],
      ['[1,2]', /JSON object \{ id, type, data \}/],
      ['"text"', /JSON object/],
      [JSON.stringify({ type: 'payment.succeeded', data: {} }), /id: must be a non-empty string or a number, got nothing/],
      [JSON.stringify({ id: '', type: 'payment.succeeded', data: {} }), /id: must be a non-empty string or a number, got an empty string/],
      [JSON.stringify({ id: 'e', type: 7, data: {} }), /type: must be a string, got number/],
      [JSON.stringify({ id: 'e', type: '', data: {} }), /type: must have at least 1 character/],
      [JSON.stringify({ id: 'e', type: 'payment.succeeded' }), /data: is required/],
      [eventBody({ data: { ...payment(), gross_amount: 50.5 } }), /data\.gross_amount: must be an integer/],
      [eventBody({ data: { ...payment(), uuid: undefined } }), /data\.uuid: is required/],
      [eventBody({ type: 'payment.failed', data: 'nope' }), /must be a Payment/],
    ];
    for (const [payload, message] of cases) {
      const error = await failure({ payload, signature: nodeSignature(payload), secret: SECRET });
      expect(error.reason).toBe('invalid_payload');
      expect(error.message).toMatch(message);
    }
    const notUtf8 = new Uint8Array([0x7b, 0xff, 0xfe, 0x7d]);
    const error = await failure({ payload: notUtf8, signature: nodeSignature(notUtf8), secret: SECRET });
    expect(error.reason).toBe('invalid_payload');
    expect(error.message).toContain('UTF-8');
  });

  it('event_type_mismatch: X-Service-Event differs from the body type', async () => {
    const headers = { ...deliveryHeaders(body), 'x-service-event': 'payment.failed' };
    const error = await failure({ payload: body, headers, secret: SECRET });
    expect(error.reason).toBe('event_type_mismatch');
    expect(error.message).toContain('"payment.failed"');
    expect(error.message).toContain('"payment.succeeded"');
    // Absent header: nothing to compare.
    await expect(verifyWebhook({ payload: body, headers: deliveryHeaders(body, { type: null }), secret: SECRET })).resolves.toBeDefined();
    // The two types are compared before the body is checked: a body whose data is also bad is refused for the mismatch.
    const bad = JSON.stringify({ id: 'evt_bad', type: 'payment.succeeded', data: { uuid: 7 } });
    const mismatch = await failure({
      payload: bad,
      headers: { ...deliveryHeaders(bad), 'x-service-event': 'payout.paid' },
      secret: SECRET,
    });
    expect(mismatch.reason).toBe('event_type_mismatch');
  });

  it('checks the signature before anything in the body is trusted', async () => {
    // A forged body that would fail every other check still reports the signature first.
    expect(await reasonOf({ payload: 'not json', signature: 'b'.repeat(64), secret: SECRET })).toBe('signature_mismatch');
    expect(
      await reasonOf({ payload: body, headers: { 'x-service-event': 'other', 'x-service-signature': 'b'.repeat(64) }, secret: SECRET }),
    ).toBe('signature_mismatch');
  });
});

describe('verifyWebhook: secret hints and secrecy', () => {
  const body = eventBody();
  const headers = deliveryHeaders(body);

  it('hints at whitespace around the secret, without printing it', async () => {
    for (const secret of [`${SECRET}\n`, ` ${SECRET}`]) {
      const error = await failure({ payload: body, headers, secret });
      expect(error.reason).toBe('signature_mismatch');
      expect(error.message).toMatch(/leading or trailing whitespace/);
      expect(error.message).not.toContain(SECRET);
    }
  });

  it('hints when the secret does not start with whsec_, and when it looks like an API key', async () => {
    const plain = await failure({ payload: body, headers, secret: 'MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw' });
    expect(plain.message).toMatch(/does not start with "whsec_": is it the endpoint's signing secret\?/);
    const apiKey = await failure({ payload: body, headers, secret: 'sk_test_51FixtureKeyThatMustNeverLeak' });
    expect(apiKey.message).toMatch(/looks like an API key/);
    expect(apiKey.message).not.toContain('51FixtureKeyThatMustNeverLeak');
    const several = await failure({ payload: body, headers, secret: [OTHER_SECRET, 'nope_secret_value'] });
    expect(several.message).toMatch(/secret #2 does not start with "whsec_"/);
    expect(several.message).not.toMatch(/secret #1/);
  });

  it('never shows a secret in the message, the stack, util.inspect or JSON.stringify of any failure', async () => {
    const secrets = [`${SECRET} `, 'sk_live_SuperSecretValue123', OTHER_SECRET];
    const inputs: VerifyWebhookInput[] = [
      { payload: body, headers, secret: secrets },
      { payload: body, headers: {}, secret: secrets },
      { payload: JSON.parse(body), headers, secret: secrets },
      { payload: body, signature: 'zz', secret: secrets },
    ];
    for (const input of inputs) {
      const error = await failure(input);
      const shown = [error.message, String(error.stack), inspect(error, { depth: 10, showHidden: true }), JSON.stringify(error)].join('\n');
      for (const secret of secrets) expect(shown).not.toContain(secret.trim());
    }
  });

  it('a missing or empty secret is a configuration error (PaymentsError), not a bad delivery', async () => {
    const given: [unknown, string][] = [
      [undefined, 'nothing (is the environment variable set?)'],
      ['', 'a blank string'],
      ['   ', 'a blank string'],
      [7, 'a number'],
      [[], 'an empty array'],
      [['whsec_ok', ''], 'a blank string at index 1'],
      [[42], 'a number at index 0'],
    ];
    for (const [secret, got] of given) {
      const error = await verifyWebhook({ payload: body, headers, secret: secret as string }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(PaymentsError);
      expect(error).not.toBeInstanceOf(WebhookVerificationError);
      expect((error as Error).message).toMatch(/secret.*whsec_/);
      expect((error as Error).message).toContain(`; got ${got}.`);
    }
  });
});

describe('client.webhooks.verify', () => {
  it("verifies with the client's webhookSecret (string or array)", async () => {
    const body = eventBody();
    const headers = deliveryHeaders(body);
    const client = new PaymentsClient({ apiKey: 'sk_test_x', baseUrl: 'http://127.0.0.1:9', webhookSecret: [OTHER_SECRET, SECRET] });
    await expect(client.webhooks.verify({ payload: body, headers })).resolves.toMatchObject({ type: 'payment.succeeded' });
    const wrong = new PaymentsClient({ apiKey: 'sk_test_x', baseUrl: 'http://127.0.0.1:9', webhookSecret: OTHER_SECRET });
    await expect(wrong.webhooks.verify({ payload: body, headers })).rejects.toMatchObject({ reason: 'signature_mismatch' });
    // An explicit secret wins over the client's.
    await expect(wrong.webhooks.verify({ payload: body, headers, secret: SECRET })).resolves.toBeDefined();
  });

  it('says how to configure a client without a secret', async () => {
    const saved = process.env.PAYMENTS_WEBHOOK_SECRET;
    delete process.env.PAYMENTS_WEBHOOK_SECRET;
    try {
      const client = new PaymentsClient({ apiKey: 'sk_test_x', baseUrl: 'http://127.0.0.1:9' });
      await expect(client.webhooks.verify({ payload: '{}', headers: {} })).rejects.toThrow(
        'No webhook secret: pass { webhookSecret } to new PaymentsClient() or set the PAYMENTS_WEBHOOK_SECRET environment variable.',
      );
    } finally {
      if (saved !== undefined) process.env.PAYMENTS_WEBHOOK_SECRET = saved;
    }
  });

  it('keeps the webhook secret out of util.inspect and JSON.stringify of the client', () => {
    const client = new PaymentsClient({ apiKey: 'sk_test_x', baseUrl: 'http://127.0.0.1:9', webhookSecret: SECRET });
    expect(inspect(client, { depth: 10, showHidden: true })).not.toContain(SECRET);
    expect(JSON.stringify(client)).not.toContain(SECRET);
  });
});

describe('event types', () => {
  it('narrows data on the type', () => {
    const handle = (event: WebhookEvent) => {
      switch (event.type) {
        case 'payment.succeeded':
        case 'payment.failed':
          expectTypeOf(event).toEqualTypeOf<PaymentWebhookEvent<'payment.succeeded'> | PaymentWebhookEvent<'payment.failed'>>();
          expectTypeOf(event.data.gross_amount).toEqualTypeOf<number>();
          expectTypeOf(event.data.failure_reason).toEqualTypeOf<string | null>();
          break;
        default:
          expectTypeOf(event).toEqualTypeOf<PayoutWebhookEvent>();
          expectTypeOf(event.data.amount).toEqualTypeOf<number | undefined>();
      }
    };
    expect(handle).toBeTypeOf('function');
    expectTypeOf<UnknownWebhookEvent['data']>().toBeUnknown();
    expectTypeOf(verifyWebhook).returns.resolves.toEqualTypeOf<WebhookEvent>();
  });
});

describe('without node:crypto (edge runtimes)', () => {
  it('verifies with Web Crypto alone', async () => {
    const original = process.getBuiltinModule;
    vi.resetModules();
    Object.defineProperty(process, 'getBuiltinModule', { value: undefined, configurable: true, writable: true });
    try {
      const sign = await import('../../src/webhooks/sign.js');
      const fresh = await import('../../src/webhooks/index.js');
      expect(sign.nodeCrypto()).toBeNull();
      const body = eventBody();
      expect(await fresh.signWebhookPayload(body, SECRET)).toBe(nodeSignature(body));
      await expect(fresh.verifyWebhook({ payload: body, headers: deliveryHeaders(body), secret: SECRET })).resolves.toMatchObject({
        type: 'payment.succeeded',
      });
      await expect(fresh.verifyWebhook({ payload: `${body} `, headers: deliveryHeaders(body), secret: SECRET })).rejects.toMatchObject({
        reason: 'signature_mismatch',
      });
    } finally {
      Object.defineProperty(process, 'getBuiltinModule', { value: original, configurable: true, writable: true });
      vi.resetModules();
    }
  });
});
