/**
 * Next.js App Router: the whole webhook route. Verification, deduplication on the event id, and
 * the 200 / 400 / 500 answers the service acts on are webhookHandler's. Works on the Node.js and
 * Edge runtimes.
 *
 * The handler is built when the module loads, with the secret from PAYMENTS_WEBHOOK_SECRET: if it
 * is missing, the route fails to load with an error that says so. `next build` evaluates the
 * module without the runtime's secrets and is exempt: there the check waits for the first delivery.
 *
 * Pass the request untouched: a `request.json()` (or `request.text()`) before the handler consumes
 * the body the signature covers. Need the body elsewhere too? Read `request.clone()`.
 */
import { webhookHandler } from 'payments-sdk/webhooks';
import { handleEvent } from '../../../../shared/orders.ts';

export const POST = webhookHandler({ onEvent: handleEvent });
