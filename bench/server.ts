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

/** A payment as the service shows it (service-api.md §2.1); `n` makes each one distinct. */
function payment(n: number) {
  const hex = n.toString(16).padStart(12, '0');
  const gross = 1_000 + (n % 9_000);
  return {
    uuid: `9b2f8a1e-3c4d-4e5f-8a9b-${hex}`,
    checkout_session: n % 3 === 0 ? `01JD3Z8Q4X5Y6Z7A8B9C${hex.slice(-6)}` : null,
    gross_amount: gross,
    psp_fee_amount: Math.floor(gross * 0.015),
    platform_fee_amount: Math.floor(gross * 0.005),
    net_amount_to_merchant: gross - Math.floor(gross * 0.015) - Math.floor(gross * 0.005),
    currency: 'XOF',
    payment_method: 'mobile_money',
    mobile_money_country: 'SEN',
    mobile_money_provider: 'orange',
    psp_reference: `1f2e3d4c-5b6a-4978-8695-${hex}`,
    status: n % 5 === 0 ? 'failed' : 'succeeded',
    failure_reason: n % 5 === 0 ? 'insufficient_funds' : null,
    created_at: '2026-11-20T10:15:00+00:00',
  };
}

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
