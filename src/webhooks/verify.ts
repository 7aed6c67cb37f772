// PLACEHOLDER: replaced by the webhooks work (issue 4).
import { PaymentsError } from '../core/errors.js';
import type { WebhookEvent } from './events.js';

/** Input of {@link verifyWebhook}. */
export interface VerifyWebhookInput {
  payload: string | Uint8Array | ArrayBuffer;
  headers?: Headers | Record<string, string | string[] | undefined>;
  signature?: string;
  secret: string | string[];
}

/** Verifies a webhook delivery. */
export async function verifyWebhook(_input: VerifyWebhookInput): Promise<WebhookEvent> {
  throw new PaymentsError('not implemented yet');
}
