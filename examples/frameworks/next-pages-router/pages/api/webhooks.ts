/**
 * Next.js Pages Router: the whole webhook API route. Next.js parses request bodies of API routes
 * by default, and the signature covers the raw bytes: `bodyParser: false` leaves the stream to
 * expressWebhook, which reads it, verifies, deduplicates on the event id, and answers 200 / 400 / 500.
 *
 * The handler is built when the module loads, with the secret from PAYMENTS_WEBHOOK_SECRET: if it
 * is missing, the route fails to load with an error that says so. `next build` evaluates the
 * module without the runtime's secrets and is exempt: there the check waits for the first delivery.
 */
import { expressWebhook } from 'payments-sdk/webhooks';
import { handleEvent } from '../../../shared/orders.ts';

export const config = { api: { bodyParser: false } };

export default expressWebhook({ onEvent: handleEvent });
