/**
 * The payments webhook as a Nest controller. `@Res()` hands the response to `expressWebhook`, which
 * answers with the status the service acts on (200, 400, 500…). It takes the raw body from
 * `req.rawBody`, which Nest keeps when the app is created with `{ rawBody: true }` (main.ts).
 */
import { Controller, Post, Req, Res } from '@nestjs/common';
import type { Request, Response } from 'express';
import { expressWebhook } from 'payments-sdk/webhooks';
import { handleEvent } from '../shared/orders.ts';

const paymentsWebhook = expressWebhook({
  secret: process.env.PAYMENTS_WEBHOOK_SECRET, // or [newSecret, oldSecret] while rotating
  onEvent: handleEvent, // throwing answers 500: the service delivers the event again later
  // store: redisStore(redis) when several instances share the traffic (default: in memory)
});

@Controller('webhooks')
export class WebhooksController {
  @Post('payments')
  async payments(@Req() req: Request, @Res() res: Response): Promise<void> {
    await paymentsWebhook(req, res);
  }

  // The mistake, kept to show the SDK's answer: main.ts mounts express.json() in front of this
  // route, so Nest's parser skips it and keeps no rawBody; every delivery is answered 400 with the fix.
  @Post('behind-json-parser')
  async behindJsonParser(@Req() req: Request, @Res() res: Response): Promise<void> {
    await paymentsWebhook(req, res);
  }
}
