/**
 * The events `trigger` sends, made by the testing kit's model: a real direct charge or payout,
 * moved to the state the event announces, whose delivery the kit signs with its webhook secret.
 * Used by `trigger` on its own (a model of its own, thrown away after) and by a running `mock`
 * (its own model, so that the payment or payout exists there and can be read back).
 */
import { PaymentsClient } from '../client.js';
import type { WebhookDelivery } from '../testing/delivery.js';
import { MOCK_PAYOUT_STATUSES } from '../testing/engine/model.js';
import type { MockService } from '../testing/mock-service.js';

/** Event types `trigger` can send. The payout names are the testing kit's own. */
export const TRIGGER_EVENTS: readonly string[] = [
  'payment.succeeded',
  'payment.failed',
  ...MOCK_PAYOUT_STATUSES.filter((s) => s !== 'pending_approval').map((s) => `payout.${s}`),
];

/** The payout steps from `pending_approval` to each state the mock knows. */
const PAYOUT_PATHS: Record<string, Array<'approved' | 'processing' | 'completed' | 'rejected' | 'failed'>> = {
  approved: ['approved'],
  rejected: ['rejected'],
  processing: ['approved', 'processing'],
  completed: ['approved', 'processing', 'completed'],
  failed: ['approved', 'processing', 'failed'],
};

/**
 * Makes the object of `event` in `mock` and returns its signed delivery: a direct charge with the
 * sandbox key for `payment.*`, a payout with the live key for `payout.*`. `event` must be one of
 * {@link TRIGGER_EVENTS}.
 */
export async function makeEvent(mock: MockService, event: string): Promise<WebhookDelivery<{ id: string; type: string; data: unknown }>> {
  if (event.startsWith('payment.')) {
    const client = new PaymentsClient({ apiKey: mock.apiKey, baseUrl: mock.baseUrl, fetch: mock.fetch, maxRetries: 0 });
    const payment = await client.payments.create({
      amount: 15_000,
      currency: 'XOF',
      country: 'SEN',
      provider: 'orange',
      phone: '221771234567',
      payer_name: 'Awa Diop',
      description: 'Order #1042',
    });
    return event === 'payment.succeeded' ? mock.settlePayment(payment.uuid) : mock.failPayment(payment.uuid, 'insufficient_funds');
  }
  const client = new PaymentsClient({ apiKey: mock.liveApiKey as string, baseUrl: mock.baseUrl, fetch: mock.fetch, maxRetries: 0 });
  const payout = await client.payouts.create({
    amount: 250_000,
    currency: 'XOF',
    destination: { type: 'mobile_money', country: 'SEN', provider: 'wave', phone: '221781234567' },
  });
  const steps = PAYOUT_PATHS[event.slice('payout.'.length)] ?? [];
  let last: Awaited<ReturnType<MockService['advancePayout']>> | undefined;
  for (const to of steps) last = await mock.advancePayout(String(payout.id), { to });
  return last as NonNullable<typeof last>;
}
