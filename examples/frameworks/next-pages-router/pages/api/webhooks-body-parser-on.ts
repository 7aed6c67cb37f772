/**
 * The mistake, kept to show the SDK's answer: the same route with Next.js's default body parser
 * on. The signed bytes are gone, and every delivery is answered 400 naming `bodyParser: false`.
 */
import { expressWebhook } from 'payments-sdk/webhooks';
import { handleEvent } from '../../../shared/orders.ts';

export default expressWebhook({ onEvent: handleEvent });
