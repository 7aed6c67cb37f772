/** Property-based checks of verifyWebhook (fast-check): tampering is always refused, and no input makes it throw anything else. */
import fc from 'fast-check';
import { signWebhookPayload, verifyWebhook, WebhookVerificationError } from 'payments-sdk/webhooks';
import { describe, expect, it } from 'vitest';
import { hmacHexSync, hmacHexWeb, nodeCrypto } from '../../src/webhooks/sign.js';
import { payment } from '../helpers/fixtures.js';
import { nodeSignature, SECRET } from '../helpers/webhook-deliveries.js';

const secretArb = fc
  .string({ minLength: 1, maxLength: 40 })
  .filter((s) => s.trim() !== '')
  .map((s) => `whsec_${s}`);

/** Valid events: payments with arbitrary ids and amounts, payouts, unknown types with any JSON data. */
const eventArb = fc.oneof(
  fc.record({
    id: fc.string({ minLength: 1, maxLength: 30 }),
    type: fc.constantFrom('payment.succeeded', 'payment.failed'),
    data: fc.record({ gross_amount: fc.integer(), failure_reason: fc.option(fc.string(), { nil: null }) }).map((d) => payment(d)),
  }),
  fc.record({
    id: fc.string({ minLength: 1 }),
    type: fc.string().map((s) => `payout.${s}`),
    data: fc.record({ amount: fc.option(fc.integer(), { nil: undefined }) }, { requiredKeys: [] }),
  }),
  fc.record({
    id: fc.string({ minLength: 1 }),
    type: fc.string({ minLength: 1 }).filter((t) => !t.startsWith('pay')),
    data: fc.jsonValue(),
  }),
);

const bodyArb = fc.tuple(eventArb, fc.constantFrom(0, 2)).map(([event, indent]) => JSON.stringify(event, null, indent));

async function outcome(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => 'ok',
    (error: unknown) => error,
  );
}

describe('verifyWebhook properties', () => {
  it('accepts every correctly signed event, whatever its content', async () => {
    await fc.assert(
      fc.asyncProperty(bodyArb, secretArb, async (body, secret) => {
        const event = await verifyWebhook({ payload: body, signature: await signWebhookPayload(body, secret), secret });
        expect(event.type).toBe((JSON.parse(body) as { type: string }).type);
      }),
    );
  });

  it('signs like node:crypto for any bytes and any secret', async () => {
    await fc.assert(
      // Any secret verifyWebhook accepts: a blank one is refused by both (next test).
      fc.asyncProperty(
        fc.uint8Array({ maxLength: 2048 }),
        fc.string({ minLength: 1 }).filter((secret) => secret.trim() !== ''),
        async (bytes, secret) => {
          expect(await signWebhookPayload(bytes, secret)).toBe(nodeSignature(bytes, secret));
        },
      ),
    );
  });

  it('refuses a blank secret, as verifyWebhook does', async () => {
    for (const secret of ['', ' ', '\t\n']) await expect(signWebhookPayload('{}', secret)).rejects.toThrow(/non-empty string/);
  });

  it('signs the same with Web Crypto (edge runtimes) and node:crypto (Node fast path), for any bytes and any Unicode secret', async () => {
    // On Node the fast path (node:crypto) is taken; the Web Crypto path is what edge runtimes run.
    expect(nodeCrypto()).not.toBeNull();
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(fc.uint8Array({ maxLength: 4096 }), fc.string({ unit: 'binary' })),
        fc.string({ unit: 'binary', minLength: 1 }),
        async (payload, secret) => {
          expect(hmacHexSync(payload, secret)).toBe(await hmacHexWeb(payload, secret));
        },
      ),
    );
  });

  it('refuses any change to the body', async () => {
    await fc.assert(
      fc.asyncProperty(bodyArb, secretArb, fc.nat(), fc.integer({ min: 1, max: 255 }), async (body, secret, at, flip) => {
        const signature = await signWebhookPayload(body, secret);
        const bytes = new TextEncoder().encode(body);
        const index = at % bytes.length;
        bytes[index] = (bytes[index] as number) ^ flip;
        const error = await outcome(verifyWebhook({ payload: bytes, signature, secret }));
        expect(error).toBeInstanceOf(WebhookVerificationError);
        expect((error as WebhookVerificationError).reason).toBe('signature_mismatch');
      }),
    );
    // Adding or removing bytes, too.
    await fc.assert(
      fc.asyncProperty(bodyArb, secretArb, fc.string({ minLength: 1, maxLength: 5 }), async (body, secret, extra) => {
        const signature = await signWebhookPayload(body, secret);
        for (const payload of [`${body}${extra}`, `${extra}${body}`, body.slice(0, -1)]) {
          await expect(verifyWebhook({ payload, signature, secret })).rejects.toMatchObject({ reason: 'signature_mismatch' });
        }
      }),
    );
  });

  it('refuses any change to the signature', async () => {
    await fc.assert(
      fc.asyncProperty(bodyArb, secretArb, fc.nat(63), fc.integer({ min: 1, max: 15 }), async (body, secret, at, delta) => {
        const signature = await signWebhookPayload(body, secret);
        const digit = (Number.parseInt(signature[at] as string, 16) + delta) % 16;
        const changed = `${signature.slice(0, at)}${digit.toString(16)}${signature.slice(at + 1)}`;
        await expect(verifyWebhook({ payload: body, signature: changed, secret })).rejects.toMatchObject({ reason: 'signature_mismatch' });
      }),
    );
  });

  it('refuses any other secret', async () => {
    await fc.assert(
      fc.asyncProperty(bodyArb, secretArb, secretArb, async (body, secret, other) => {
        fc.pre(other !== secret);
        const signature = await signWebhookPayload(body, secret);
        await expect(verifyWebhook({ payload: body, signature, secret: other })).rejects.toMatchObject({ reason: 'signature_mismatch' });
      }),
    );
  });

  it('never throws anything but WebhookVerificationError, whatever the payload, headers and signature', async () => {
    const hex64 = fc.string({ unit: fc.constantFrom(...'0123456789abcdefABCDEF'), minLength: 64, maxLength: 64 });
    const headerName = fc.constantFrom(
      'x-service-signature',
      'X-Service-Signature',
      'X-SERVICE-SIGNATURE',
      'x-service-event',
      'X-Service-Event',
      'content-type',
    );
    const headerValue = fc.oneof(fc.string(), hex64, fc.array(fc.string(), { maxLength: 3 }), fc.anything());
    const headersArb = fc.oneof(
      fc.anything(),
      fc.dictionary(headerName, headerValue),
      fc
        .dictionary(headerName, fc.string())
        .map((d) => new Headers(Object.entries(d).map(([k, v]) => [k, v.replace(/[^\x20-\x7e]/g, '')] as [string, string]))),
    );
    const payloadArb = fc.oneof(
      fc.anything(),
      fc.string(),
      fc.uint8Array(),
      bodyArb,
      fc.uint8Array().map((b) => b.buffer),
    );
    const signatureArb = fc.oneof(fc.constant(undefined), hex64, fc.string(), fc.anything());
    await fc.assert(
      fc.asyncProperty(payloadArb, headersArb, signatureArb, async (payload, headers, signature) => {
        const result = await outcome(verifyWebhook({ payload, headers, signature, secret: SECRET } as never));
        if (result !== 'ok') expect(result).toBeInstanceOf(WebhookVerificationError);
      }),
      { numRuns: 300 },
    );
  });

  it('a signed body that is any JSON (or not) gives only invalid_payload or an event, never a crash', async () => {
    await fc.assert(
      fc.asyncProperty(fc.oneof(fc.json(), fc.string()), async (body) => {
        const result = await outcome(verifyWebhook({ payload: body, signature: nodeSignature(body), secret: SECRET }));
        if (result !== 'ok') expect(result).toMatchObject({ reason: 'invalid_payload' });
      }),
      { numRuns: 300 },
    );
  });
});
