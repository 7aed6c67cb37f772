/**
 * Next.js App Router: the whole webhook route. Verification, deduplication on the event id, and
 * the 200 / 400 / 500 answers the service acts on are webhookHandler's. Works on the Node.js and
 * Edge runtimes.
 *
 * The secret is read from PAYMENTS_WEBHOOK_SECRET at each request, so `next build` does not need
 * it. Pass the request untouched: a `request.json()` (or `request.text()`) before the handler
 * consumes the body the signature covers. Need the body elsewhere too? Read `request.clone()`.
 */
import { webhookHandler } from 'payments-sdk/webhooks';
import { handleEvent } from '../../../../shared/orders.ts';

export const POST = webhookHandler({ onEvent: handleEvent });
