/**
 * The shop's side of the webhook, shared by every recipe: what your own handler does with a
 * verified event (mark the order paid, email the customer…). Keep it short: the service waits 10 s
 * for the answer, so record the fact and queue slow work.
 *
 * For the recipe tests, every call is appended to the file named by EVENTS_FILE (when set), so a
 * test can count how many times the handler ran per event; and an event of type
 * `shop.unprocessable` throws, standing for a handler that fails (a database down, say): the
 * endpoint answers 500 and the service delivers the event again later.
 */
import { appendFile } from 'node:fs/promises';
import type { WebhookEvent } from 'payments-sdk/webhooks';

/** Handles one verified event; resolves once it is recorded, throws when it cannot be processed now. */
export async function handleEvent(event: WebhookEvent): Promise<void> {
  if (process.env.EVENTS_FILE) await appendFile(process.env.EVENTS_FILE, `${JSON.stringify({ id: event.id, type: event.type })}\n`);
  if ((event.type as string) === 'shop.unprocessable') throw new Error(`cannot process ${event.id} now`);
  switch (event.type) {
    case 'payment.succeeded':
      console.log(`order paid: payment ${event.data.uuid}, ${event.data.gross_amount} ${event.data.currency}`);
      break;
    case 'payment.failed':
      console.log(`payment ${event.data.uuid} failed: ${event.data.failure_reason ?? 'no reason given'}`);
      break;
    default:
      // payout.* events, and types this SDK version does not know yet: acknowledge, never throw.
      console.log(`received ${event.type} ${event.id}`);
  }
}
