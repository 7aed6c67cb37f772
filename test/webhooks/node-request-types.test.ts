/**
 * `NodeWebhookRequest` must accept Node's `IncomingMessage` as every `@types/node` declares it. The
 * newest (26.x) declares `on` with a typed overload per event before the catch-all
 * `(eventName: string | symbol, listener: (...args: any[]) => void)`: a `listener` taking
 * `never[]` was not assignable from it (TS2769 on `app.post(path, expressWebhook(...))`). The shape
 * below is that declaration; `npm run typecheck` fails if it stops being accepted. The published
 * types are also checked against the real newest `@types/node` by `npm run test:consumer`.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expressWebhook, type NodeWebhookRequest, signWebhookPayload } from 'payments-sdk/webhooks';
import { describe, expect, it } from 'vitest';

interface ReadableEventMap {
  data: [chunk: Buffer];
  end: [];
  error: [error: Error];
  close: [];
}

/** `IncomingMessage` as @types/node 26 declares the parts `expressWebhook` uses. */
interface IncomingMessage26 {
  method?: string | undefined;
  headers: Record<string, string | string[] | undefined>;
  readonly readableEnded: boolean;
  on<E extends keyof ReadableEventMap>(eventName: E, listener: (...args: ReadableEventMap[E]) => void): this;
  // biome-ignore lint/suspicious/noExplicitAny: written as @types/node writes it.
  on(eventName: string | symbol, listener: (...args: any[]) => void): this;
}

describe('NodeWebhookRequest', () => {
  it('accepts IncomingMessage as @types/node 24 and 26 declare it, and reads a real one', async () => {
    const fromNewest: NodeWebhookRequest = {} as IncomingMessage26;
    const fromPinned: NodeWebhookRequest = {} as IncomingMessage;
    expect([fromNewest, fromPinned]).toHaveLength(2);

    const seen: string[] = [];
    const handler: (req: IncomingMessage, res: ServerResponse) => Promise<void> = expressWebhook({
      secret: 'whsec_types',
      onEvent: (event) => void seen.push(event.id),
    });
    const server = createServer(handler);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const body = JSON.stringify({ id: 'evt_types', type: 'refund.created', data: {} });
      const response = await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`, {
        method: 'POST',
        body,
        headers: { 'content-type': 'application/json', 'x-service-signature': await signWebhookPayload(body, 'whsec_types') },
      });
      expect(response.status).toBe(200);
      expect(seen).toEqual(['evt_types']);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
