/**
 * `payments-sdk/webhooks`: verify and handle the service's webhook deliveries. This entry never loads the HTTP client and imports no `node:` module: it runs
 * on Node.js, Bun, Deno, Cloudflare Workers and Vercel Edge.
 *
 * ```ts
 * import { verifyWebhook, webhookHandler, expressWebhook } from 'payments-sdk/webhooks';
 * ```
 * @packageDocumentation
 */
export { WebhookVerificationError, type WebhookVerificationReason } from '../core/errors.js';
export type {
  KnownWebhookEventType,
  PaymentEventType,
  PaymentWebhookEvent,
  PayoutEventType,
  PayoutWebhookEvent,
  UnknownWebhookEvent,
  WebhookEvent,
  WebhookEventOf,
} from './events.js';
export { expressWebhook, type NodeWebhookRequest, type NodeWebhookResponse } from './express.js';
export {
  type WebhookErrorInfo,
  type WebhookEventHandlers,
  type WebhookHandlerCommonOptions,
  type WebhookHandlerOptions,
  webhookHandler,
} from './handler.js';
export { type RawPayload, signWebhookPayload } from './sign.js';
export { type VerifyWebhookInput, verifyWebhook, type WebhookHeaders } from './verify.js';
