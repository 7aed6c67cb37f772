/**
 * The payments a reconciliation test walks: direct charges created through the real client, each
 * decided on the testing kit (every `failEvery`-th fails, the others succeed), then every delivery
 * retry the kit has run to its end, so that an event not delivered by then was lost for good.
 */
import type { Payment, PaymentsClient } from 'payments-sdk';
import type { MockService } from 'payments-sdk/testing';

/** The `i`-th direct charge of a test: 1000 + i XOF from an Orange Senegal number. */
export function createCharge(client: PaymentsClient, i: number): Promise<Payment> {
  return client.payments.create({ amount: 1000 + i, currency: 'XOF', country: 'SEN', provider: 'orange', phone: '221771234567' });
}

export async function decidePayments(client: PaymentsClient, mock: MockService, count: number, failEvery: number): Promise<void> {
  for (let i = 0; i < count; i++) {
    const payment = await createCharge(client, i);
    if (i % failEvery === failEvery - 1) await mock.failPayment(payment.uuid);
    else await mock.settlePayment(payment.uuid);
  }
  // Five attempts span under three hours: after six, every retry has run.
  mock.advance(6 * 3_600_000);
  await mock.deliveriesSettled();
}
