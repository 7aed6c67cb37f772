/**
 * NestJS 11 (Express platform): a payments webhook route in a Nest app.
 *
 *   npm run build && PAYMENTS_WEBHOOK_SECRET=whsec_… npm start
 *
 * `rawBody: true` makes Nest keep each request's raw bytes in `req.rawBody` beside the parsed
 * `req.body`: the signature covers those bytes, and `expressWebhook` reads them from there. Without
 * it, Nest's JSON parser consumes the body and every delivery is answered 400 naming this option.
 */
import 'reflect-metadata';
import { Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import express from 'express';
import { WebhooksController } from './webhooks.controller.ts';

@Module({ controllers: [WebhooksController] })
class AppModule {}

const app = await NestFactory.create<NestExpressApplication>(AppModule, { rawBody: true, logger: ['error', 'warn'] });
// The mistake on one route only: a JSON parser of its own runs first, so no raw body is kept there.
// (Wrapped: Nest skips registering its own parser when it finds one named jsonParser in the app.)
const parseJson = express.json();
app.use('/webhooks/behind-json-parser', (req: express.Request, res: express.Response, next: express.NextFunction) =>
  parseJson(req, res, next),
);
await app.listen(Number(process.env.PORT ?? 3000), '127.0.0.1');
console.log(`listening on ${(await app.getUrl()).replace('[::1]', '127.0.0.1')}`);
