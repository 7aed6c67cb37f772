/**
 * The mistake, kept to show the SDK's answer: a route that reads the JSON body before handing the
 * request to the webhook handler. The signed bytes are gone, and every delivery is answered 400
 * with the fix (pass the untouched request, or `request.clone()`).
 */
import { webhookHandler } from 'payments-sdk/webhooks';
import { handleEvent } from '../../../../shared/orders.ts';

const webhook = webhookHandler({ onEvent: handleEvent });

export async function POST(request: Request): Promise<Response> {
  const { type } = (await request.json()) as { type?: string };
  console.log(`delivery of ${type}`);
  return webhook(request);
}
