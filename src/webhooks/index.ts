// PLACEHOLDER: replaced by the webhooks work (issue 4).
export { verifyWebhook, type VerifyWebhookInput } from './verify.js';
export type { WebhookEvent } from './events.js';
