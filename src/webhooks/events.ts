// PLACEHOLDER: replaced by the webhooks work (issue 4).
import type { Payment } from '../schemas/payment.js';
import type { Payout } from '../schemas/payout.js';

/** A verified webhook event. */
export type WebhookEvent =
  | { id: string; type: 'payment.succeeded' | 'payment.failed'; data: Payment }
  | { id: string; type: `payout.${string}`; data: Payout };
