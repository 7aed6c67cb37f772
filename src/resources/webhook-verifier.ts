import { PaymentsError } from '../core/errors.js';
import { missingSettingMessage } from '../internal/runtime.js';
import type { WebhookEvent } from '../webhooks/events.js';
import { type VerifyWebhookInput, verifyWebhook } from '../webhooks/verify.js';

/** Input of `client.webhooks.verify`: as {@link verifyWebhook}, with the client's secret as default. */
export type ClientVerifyWebhookInput = Omit<VerifyWebhookInput, 'secret'> & { secret?: string | readonly string[] };

/** Webhook verification bound to the client's `webhookSecret`. */
export class Webhooks {
  readonly #secret: () => string | readonly string[] | undefined;

  /** @internal */
  constructor(secret: () => string | readonly string[] | undefined) {
    this.#secret = secret;
  }

  /**
   * Verifies a delivery with the client's `webhookSecret` (or `input.secret`) and returns the typed
   * event; see {@link verifyWebhook} for the checks and the `WebhookVerificationError` reasons.
   */
  verify(input: ClientVerifyWebhookInput): Promise<WebhookEvent> {
    const secret = input.secret ?? this.#secret();
    // Said as a missing API key is, with the fix that applies where the code runs (Workers, Deno);
    // any other bad secret is refused by verifyWebhook.
    if (secret === undefined) {
      return Promise.reject(
        new PaymentsError(missingSettingMessage('No webhook secret', 'webhookSecret', 'PAYMENTS_WEBHOOK_SECRET', 'new PaymentsClient()')),
      );
    }
    return verifyWebhook({ ...input, secret });
  }
}
