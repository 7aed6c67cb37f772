/**
 * What a call must still resolve or reject with when something beside it fails (a logger, a
 * tracer, a meter): a created charge, and a refusal with its class and Idempotency-Key.
 */
import { type PaymentCreateParams, type PaymentsClient, UnprocessableEntityError } from 'payments-sdk';
import { expect } from 'vitest';

/**
 * Creates `charge` (expects the payment and its key), then a checkout session the server refuses
 * with a 422 (expects an `UnprocessableEntityError` carrying the key given).
 */
export async function expectOutcomesUnchanged(client: PaymentsClient, charge: PaymentCreateParams, idempotencyKey: string): Promise<void> {
  const created = await client.payments.create(charge).withResponse();
  expect(created.data.uuid).toMatch(/-/);
  expect(created.idempotencyKey).toBeDefined();
  const error = await client.checkoutSessions.create({ amount: 5000, currency: 'XOF' }, { idempotencyKey }).catch((e: unknown) => e);
  expect(error).toBeInstanceOf(UnprocessableEntityError);
  expect((error as UnprocessableEntityError).idempotencyKey).toBe(idempotencyKey);
}
