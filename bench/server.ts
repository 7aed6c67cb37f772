/**
 * The loopback service the benchmarks talk to, run in its own process (bench/run.ts forks it) so
 * that its CPU never shares the client's event loop. Bodies are built once at start-up: each
 * request costs the server a lookup and a write, the same for every client measured.
 *
 *   GET /api/v1/payments/{uuid}           → { data: Payment }               (service-api.md §4.3)
 *   GET /api/v1/payments?page=N           → list envelope, 100 per page,   (§2.7, §4.2)
 *                                           1,000 pages, absolute links
 *
 * A request with `X-Bench-Delay-Ms: n` is answered n ms late (a network round trip, simulated).
 * Sends `{ port }` to the parent once listening. Exits when the parent disconnects.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

export const PAGES = 1_000;
export const PER_PAGE = 100;

const { benchPayment: payment } = (await import(new URL('./fixtures.ts', import.meta.url).href)) as typeof import('./fixtures.js');

const server = createServer((req, res) => {
  const url = req.url ?? '';
  let body: Buffer | undefined;
  if (url.startsWith('/api/v1/payments/')) body = single;
  else if (url.startsWith('/api/v1/payments')) {
    const page = Number(/[?&]page=(\d+)/.exec(url)?.[1] ?? 1);
    body = pages[page - 1];
  }
  if (!body) {
    res.writeHead(404, { 'content-type': 'application/json' });
    res.end('{"message":"Not Found"}');
    return;
  }
  const answer = body;
  const send = () => {
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': answer.length });
    res.end(answer);
  };
  // `X-Bench-Delay-Ms`: answer after that long, as a service across a network would.
  const delay = Number(req.headers['x-bench-delay-ms'] ?? 0);
  if (delay > 0) setTimeout(send, delay);
  else send();
});
// Keep-alive longer than any pause between rounds, so every client reuses its connections.
server.keepAliveTimeout = 120_000;

let single: Buffer = Buffer.alloc(0);
let pages: Buffer[] = [];

server.listen(0, '127.0.0.1', () => {
  const { port } = server.address() as AddressInfo;
  const origin = `http://127.0.0.1:${port}`;
  single = Buffer.from(JSON.stringify({ data: payment(1) }));
  const link = (p: number) => `${origin}/api/v1/payments?page=${p}&per_page=${PER_PAGE}`;
  pages = Array.from({ length: PAGES }, (_, i) => {
    const page = i + 1;
    const data = Array.from({ length: PER_PAGE }, (_, j) => payment(i * PER_PAGE + j));
    return Buffer.from(
      JSON.stringify({
        data,
        links: { first: link(1), last: link(PAGES), prev: page > 1 ? link(page - 1) : null, next: page < PAGES ? link(page + 1) : null },
        meta: { current_page: page, last_page: PAGES, per_page: PER_PAGE, total: PAGES * PER_PAGE, path: `${origin}/api/v1/payments` },
      }),
    );
  });
  process.send?.({ port, pageBytes: pages[0]?.length ?? 0, singleBytes: single.length });
});

process.on('disconnect', () => {
  server.closeAllConnections();
  server.close(() => process.exit(0));
});
