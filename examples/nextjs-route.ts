/**
 * A Next.js App Router route handler: save as `app/api/webhooks/payments/route.ts`.
 * Set PAYMENTS_WEBHOOK_SECRET (whsec_…) in the environment. Works on the Node.js and Edge runtimes.
 *
 * Pass the request untouched: a `request.json()` (or `request.text()`) before the handler consumes
 * the body the signature covers. Need the body elsewhere too? Read `request.clone()`.
 *
 * To verify by hand instead (only `POST` may be exported from a route file):
 *
 *   export async function POST(request: Request) {
 *     const payload = await request.text(); // the raw body: never request.json() here
 *     try {
 *       const event = await verifyWebhook({ payload, headers: request.headers, secret: process.env.PAYMENTS_WEBHOOK_SECRET! });
 *       …
 *       return Response.json({ received: true });
 *     } catch (error) {
 *       if (error instanceof WebhookVerificationError) return Response.json({ error: error.message, reason: error.reason }, { status: 400 });
 *       throw error; // 500: the service retries later
 *     }
 *   }
 */
import { type PaymentWebhookEvent, webhookHandler } from 'payments-sdk/webhooks';

async function markOrderPaid(event: PaymentWebhookEvent): Promise<void> {
  // Keep it short (the service waits 10 s): record the payment, queue the rest.
  console.log(`order of session ${event.data.checkout_session ?? '(direct charge)'} paid by ${event.data.uuid}`);
}

// The whole route: verification, deduplication on the event id, 200 / 400 / 500 answers.
// The secret is read from PAYMENTS_WEBHOOK_SECRET at each request, so `next build` does not need it.
export const POST = webhookHandler({
  on: {
    'payment.succeeded': markOrderPaid,
    'payment.failed': (event) => console.log(`payment ${event.data.uuid} failed: ${event.data.failure_reason ?? 'no reason given'}`),
  },
  onEvent: (event) => {
    // Every other event, including types this SDK version does not know yet: acknowledge them.
    console.log(`ignored ${event.type} ${event.id}`);
  },
});
