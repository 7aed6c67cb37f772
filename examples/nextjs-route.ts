/**
 * A Next.js App Router route handler: save as `app/api/webhooks/payments/route.ts`.
 * Set PAYMENTS_WEBHOOK_SECRET (whsec_…) in the environment. Works on the Node.js and Edge runtimes.
 *
 * Pass the request untouched: calling `request.json()` (or `request.text()`) first consumes the
 * body the signature covers. If you need it elsewhere, read `request.clone()`.
 */
import { verifyWebhook, WebhookVerificationError, webhookHandler } from 'payments-sdk/webhooks';

async function markOrderPaid(paymentUuid: string, checkoutSession: string | null): Promise<void> {
  console.log(`order of session ${checkoutSession ?? '(direct charge)'} paid by ${paymentUuid}`);
}

// The whole route: verification, deduplication on the event id, 200 / 400 / 500 answers.
// The secret is read from PAYMENTS_WEBHOOK_SECRET at each request, so `next build` does not need it.
export const POST = webhookHandler({
  on: {
    'payment.succeeded': (event) => markOrderPaid(event.data.uuid, event.data.checkout_session),
  },
  onEvent: (event) => {
    // Every other event, including types this SDK version does not know yet: acknowledge them.
    console.log(`ignored ${event.type} ${event.id}`);
  },
});

/**
 * The same by hand, with verifyWebhook, for a route that needs to do more around it.
 * Serve it from another route file as `export { POST } from …`.
 */
export async function manualPOST(request: Request): Promise<Response> {
  const payload = await request.text(); // the raw body: never request.json() here
  try {
    const event = await verifyWebhook({ payload, headers: request.headers, secret: process.env.PAYMENTS_WEBHOOK_SECRET ?? '' });
    if (event.type === 'payment.succeeded') await markOrderPaid(event.data.uuid, event.data.checkout_session);
    return Response.json({ received: true });
  } catch (error) {
    if (error instanceof WebhookVerificationError) return Response.json({ error: error.message, reason: error.reason }, { status: 400 });
    throw error; // 500: the service retries later
  }
}
