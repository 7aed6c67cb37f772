/**
 * The signature comparison: the candidate's hex text against the hex of the expected MAC, with its
 * case folded, on node:crypto and on Web Crypto, and the per-secret key cache behind it.
 */
import fc from 'fast-check';
import { signWebhookPayload, verifyWebhook } from 'payments-sdk/webhooks';
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
    // A runtime whose getBuiltinModule has no node:crypto, and a fresh copy of the module that looks it up.
    const getBuiltinModule = process.getBuiltinModule.bind(process);
    const spy = vi
      .spyOn(process, 'getBuiltinModule')
      .mockImplementation(((id: string) => (id === 'node:crypto' ? undefined : getBuiltinModule(id))) as typeof process.getBuiltinModule);
    vi.resetModules();
    try {
      const fresh = await import('../../src/webhooks/index.js');
      expect((await import('../../src/webhooks/sign.js')).nodeCrypto()).toBeNull();
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
    } finally {
      spy.mockRestore();
      vi.resetModules();
    }
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
