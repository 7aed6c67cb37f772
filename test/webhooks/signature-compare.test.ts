/**
 * The signature comparison: the candidate's hex text against the hex of the expected MAC, with its
 * case folded, on node:crypto and on Web Crypto, and the per-secret key cache behind it.
 */
import fc from 'fast-check';
import { signWebhookPayload, verifyWebhook, type WebhookVerificationError, webhookHandler } from 'payments-sdk/webhooks';
import { describe, expect, it, vi } from 'vitest';
import { nodeCrypto } from '../../src/webhooks/sign.js';
import { eventBody, nodeSignature, SECRET } from '../helpers/webhook-deliveries.js';

/** `signature` with each digit in the case `upper` picks for it. */
function recased(signature: string, upper: readonly boolean[]): string {
  return [...signature].map((digit, i) => (upper[i] ? digit.toUpperCase() : digit)).join('');
}

/** `signature` with digit `at` replaced by another hex digit. */
function changed(signature: string, at: number, delta: number): string {
  const digit = (Number.parseInt(signature[at] as string, 16) + delta) % 16;
  return `${signature.slice(0, at)}${digit.toString(16)}${signature.slice(at + 1)}`;
}

const caseArb = fc.array(fc.boolean(), { minLength: 64, maxLength: 64 });

/**
 * Runs `test` against a fresh copy of the webhooks entry in a runtime whose getBuiltinModule has no
 * node:crypto (an edge runtime): Web Crypto alone.
 */
async function withoutNodeCrypto(test: (fresh: typeof import('../../src/webhooks/index.js')) => Promise<void>): Promise<void> {
  const getBuiltinModule = process.getBuiltinModule.bind(process);
  const spy = vi
    .spyOn(process, 'getBuiltinModule')
    .mockImplementation(((id: string) => (id === 'node:crypto' ? undefined : getBuiltinModule(id))) as typeof process.getBuiltinModule);
  vi.resetModules();
  try {
    const fresh = await import('../../src/webhooks/index.js');
    expect((await import('../../src/webhooks/sign.js')).nodeCrypto()).toBeNull();
    await test(fresh);
  } finally {
    spy.mockRestore();
    vi.resetModules();
  }
}

describe('signature comparison', () => {
  it('accepts the hex in any mix of cases and refuses any changed digit, in any case (node:crypto)', async () => {
    expect(nodeCrypto()).not.toBeNull();
    const body = eventBody();
    const signature = nodeSignature(body);
    await fc.assert(
      fc.asyncProperty(caseArb, fc.nat(63), fc.integer({ min: 1, max: 15 }), async (upper, at, delta) => {
        await expect(verifyWebhook({ payload: body, signature: recased(signature, upper), secret: SECRET })).resolves.toMatchObject({
          type: 'payment.succeeded',
        });
        await expect(
          verifyWebhook({ payload: body, signature: recased(changed(signature, at, delta), upper), secret: SECRET }),
        ).rejects.toMatchObject({ reason: 'signature_mismatch' });
      }),
    );
  });

  it('does the same with Web Crypto alone (edge runtimes)', async () => {
    await withoutNodeCrypto(async (fresh) => {
      const body = eventBody();
      const signature = nodeSignature(body);
      const mixed = recased(
        signature,
        [...signature].map((_, i) => i % 3 === 0),
      );
      for (const given of [signature.toUpperCase(), mixed]) {
        await expect(fresh.verifyWebhook({ payload: body, signature: given, secret: SECRET })).resolves.toMatchObject({
          type: 'payment.succeeded',
        });
      }
      for (const at of [0, 31, 63]) {
        await expect(
          fresh.verifyWebhook({ payload: body, signature: changed(signature, at, 1).toUpperCase(), secret: SECRET }),
        ).rejects.toMatchObject({ reason: 'signature_mismatch' });
      }
    });
  });

  it('keeps verifying when more secrets are used than the key cache holds, each under its own key', async () => {
    const body = eventBody();
    const secrets = Array.from({ length: 80 }, (_, i) => `whsec_rotation_${i}`);
    // Twice round: the second pass finds the first secrets evicted and makes their keys again.
    for (let pass = 0; pass < 2; pass++) {
      for (const [i, secret] of secrets.entries()) {
        const signature = await signWebhookPayload(body, secret);
        expect(signature).toBe(nodeSignature(body, secret));
        await expect(verifyWebhook({ payload: body, signature, secret })).resolves.toMatchObject({ type: 'payment.succeeded' });
        const other = secrets[(i + 1) % secrets.length] as string;
        await expect(verifyWebhook({ payload: body, signature, secret: other })).rejects.toMatchObject({ reason: 'signature_mismatch' });
      }
    }
  });
});

// `| 32` folds case, and would also map the control characters 16..25 onto the digits '0'..'9': only
// the 64-hex-digit screen before the comparison keeps them out, and Fetch `Headers` let them through
// from the network. These fail when that screen is loosened (to /^[^g-zG-Z]{64}$/, say).
/** `signature` with every digit 0-9 replaced by the control character whose `| 32` is that digit. */
function controlFolded(signature: string): string {
  return signature.replace(/[0-9]/g, (digit) => String.fromCharCode(digit.charCodeAt(0) - 32));
}

async function reasonOf(verify: typeof verifyWebhook, signature: string, body: string): Promise<string> {
  return verify({ payload: body, signature, secret: SECRET }).then(
    () => 'accepted',
    (e: unknown) => (e as WebhookVerificationError).reason ?? String(e),
  );
}

async function expectRefused(verify: typeof verifyWebhook) {
  const body = eventBody();
  const good = nodeSignature(body);
  expect(await reasonOf(verify, good, body)).toBe('accepted');
  expect(await reasonOf(verify, controlFolded(good), body)).toBe('malformed_signature');
  for (let i = 0; i < 64; i++) {
    const code = good.charCodeAt(i);
    if (code < 48 || code > 57) continue;
    expect(await reasonOf(verify, `${good.slice(0, i)}${String.fromCharCode(code - 32)}${good.slice(i + 1)}`, body)).toBe(
      'malformed_signature',
    );
  }
}

describe('a signature with control characters standing for digits', () => {
  it('is malformed, never accepted (node:crypto)', async () => {
    await expectRefused(verifyWebhook);
  });

  it('is malformed, never accepted (Web Crypto alone)', async () => {
    await withoutNodeCrypto((fresh) => expectRefused(fresh.verifyWebhook));
  });

  it('arrives through a fetch Request and is answered 400 by webhookHandler', async () => {
    const body = eventBody();
    const forged = controlFolded(nodeSignature(body));
    const handle = webhookHandler({ secret: SECRET, onEvent: () => {}, onError: () => {} });
    const request = new Request('http://127.0.0.1/webhooks', { method: 'POST', body, headers: { 'x-service-signature': forged } });
    expect(request.headers.get('x-service-signature')).toBe(forged);
    expect((await handle(request)).status).toBe(400);
  });
});
