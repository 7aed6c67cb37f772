/**
 * Next.js Pages Router: the whole webhook API route. Next.js parses request bodies of API routes
 * by default, and the signature covers the raw bytes: `bodyParser: false` leaves the stream to
 * expressWebhook, which reads it, verifies, deduplicates on the event id, and answers 200 / 400 / 500.
 *
 * The secret is read from PAYMENTS_WEBHOOK_SECRET at each request, so `next build` does not need it.
 */
import { expressWebhook } from 'payments-sdk/webhooks';
import { handleEvent } from '../../../shared/orders.ts';

export const config = { api: { bodyParser: false } };

export default expressWebhook({ onEvent: handleEvent });
