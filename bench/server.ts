/**
 * The stub service every client in the benchmarks talks to, run in its own process (bench/run.ts
 * forks it) so that its CPU never shares the clients' event loop. Bodies are built once at start-up:
 * each request costs the server a lookup and a write, the same for every client measured.
 *
 * Two listeners on 127.0.0.1: `fast` answers at once; `slow` answers 20 ms late (a network round
 * trip, simulated). Routes, the same bytes for every client:
 *
 *   GET /api/v1/payments/{uuid}            → { data: Payment }   (payments-sdk, ky, raw fetch)
 *   GET /v1/payment_intents/{id}           → the same body        (stripe-node)
 *   GET /v1/models/{id}                    → the same body        (openai-node)
 *   GET /api/v1/payments?page=N            → a list envelope, 100 per page, PAGES pages, absolute links
 *
 * Sends `{ fast, slow }` (ports) to the parent once listening. Exits when the parent disconnects.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

const {
  benchPayment: payment,
  PAGES,
  PER_PAGE,
  LATENCY_MS,
} = (await import(new URL('./fixtures.ts', import.meta.url).href)) as typeof import('./fixtures.js');

const single = Buffer.from(JSON.stringify({ data: payment(1) }));

function listen(delayMs: number): Promise<{ port: number; setPages: (pages: Buffer[]) => void }> {
  let pages: Buffer[] = [];
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const url = req.url ?? '';
    let body: Buffer | undefined;
    if (url.startsWith('/api/v1/payments/') || url.startsWith('/v1/payment_intents/') || url.startsWith('/v1/models/')) body = single;
    else if (url.startsWith('/api/v1/payments')) body = pages[Number(/[?&]page=(\d+)/.exec(url)?.[1] ?? 1) - 1];
    const send = () => {
      if (!body) {
        res.writeHead(404, { 'content-type': 'application/json' });
        res.end('{"message":"Not Found"}');
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': body.length });
      res.end(body);
    };
    if (delayMs > 0) setTimeout(send, delayMs);
    else send();
  });
  // Keep-alive longer than any pause between rounds, so every client reuses its connections.
  server.keepAliveTimeout = 120_000;
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () =>
      resolve({
        port: (server.address() as AddressInfo).port,
        setPages: (built) => {
          pages = built;
        },
      }),
    ),
  );
}

const fast = await listen(0);
const slow = await listen(LATENCY_MS);
const origin = `http://127.0.0.1:${fast.port}`;
const link = (p: number) => `${origin}/api/v1/payments?page=${p}&per_page=${PER_PAGE}`;
fast.setPages(
  Array.from({ length: PAGES }, (_, i) => {
    const page = i + 1;
    const data = Array.from({ length: PER_PAGE }, (_, j) => payment(i * PER_PAGE + j));
    return Buffer.from(
      JSON.stringify({
        data,
        links: { first: link(1), last: link(PAGES), prev: page > 1 ? link(page - 1) : null, next: page < PAGES ? link(page + 1) : null },
        meta: { current_page: page, last_page: PAGES, per_page: PER_PAGE, total: PAGES * PER_PAGE },
      }),
    );
  }),
);
process.send?.({ fast: fast.port, slow: slow.port, singleBytes: single.length });
process.on('disconnect', () => process.exit(0));
