/**
 * A list that never ends, served by a real `node:http` server on 127.0.0.1: links that are always
 * new (so the visited-link check never fires) on pages past what `meta` announced, and empty pages
 * that keep naming a next one. The client's walk stops each with a PaymentsError that says what
 * was read, after a bounded number of requests; an honest list that grows while it is walked ends
 * normally.
 */
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { PaymentsClient, PaymentsError } from 'payments-sdk';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { caught } from '../helpers/caught.js';
import { API_KEY, payment } from '../helpers/fixtures.js';

/** What page `n` of the list holds, and what it says about the list. */
type PageOf = (n: number) => { items: number; lastPage: number; total: number; next: boolean };

let pageOf: PageOf = () => ({ items: 0, lastPage: 1, total: 0, next: false });
let requests = 0;
let server: Server;
let baseUrl: string;

beforeAll(async () => {
  server = createServer((req, res) => {
    requests += 1;
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    const n = Number(url.searchParams.get('page') ?? '1');
    const spec = pageOf(n);
    // Each next link is new: a fresh query parameter, as a cursor would be.
    const next = spec.next ? `${baseUrl}/api/v1/payments?page=${n + 1}&cursor=${Math.random().toString(36).slice(2)}` : null;
    const body = {
      data: Array.from({ length: spec.items }, (_, i) => payment({ uuid: `p-${n}-${i}` })),
      links: { first: `${baseUrl}/api/v1/payments?page=1`, last: null, prev: null, next },
      meta: { current_page: n, last_page: spec.lastPage, per_page: 2, total: spec.total },
    };
    res.writeHead(200, { 'Content-Type': 'application/json' }).end(JSON.stringify(body));
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));
beforeEach(() => {
  requests = 0;
});

const client = () => new PaymentsClient({ apiKey: API_KEY, baseUrl, maxRetries: 0 });

describe('a pagination that never ends', () => {
  it('links always new, past meta.last_page: stopped with a PaymentsError after two pages more than announced', async () => {
    pageOf = () => ({ items: 2, lastPage: 3, total: 6, next: true });
    let seen = 0;
    const error = await caught(async () => {
      for await (const _ of client().payments.list()) seen += 1;
    });
    expect(error).toBeInstanceOf(PaymentsError);
    expect((error as Error).message).toMatch(
      /^Pagination stopped: page 6 was asked for .* reported 3 pages and 6 items; 10 items were read over 5 pages/,
    );
    expect(seen).toBe(10);
    expect(requests).toBe(5);
  });

  it('empty pages that keep naming a next page: stopped after three in a row', async () => {
    pageOf = (n) => ({ items: n === 1 ? 2 : 0, lastPage: 1_000_000, total: 2_000_000, next: true });
    const error = await caught(() => client().payments.list().toArray());
    expect(error).toBeInstanceOf(PaymentsError);
    expect((error as Error).message).toMatch(
      /^Pagination stopped: 3 empty pages in a row still name a next page \(links\.next http:\/\/127\.0\.0\.1:\d+\/api\/v1\/payments\?page=5&cursor=\w+\); 2 items were read over 4 pages\.$/,
    );
    expect(requests).toBe(4);
  });

  it('more items than meta.total announced, with last_page growing on every page: stopped by the item count', async () => {
    pageOf = (n) => ({ items: 2, lastPage: n + 1, total: 4, next: true });
    const error = await caught(() => client().payments.list().toArray());
    expect(error).toBeInstanceOf(PaymentsError);
    expect((error as Error).message).toMatch(/reported \d+ pages and 4 items; 10 items were read over 5 pages/);
    expect(requests).toBe(5);
  });

  it('a list that grows while it is walked (meta moves with it) and then ends is read whole', async () => {
    // Items created during the walk: each page reports one page more than the one before, up to 8.
    pageOf = (n) => ({ items: 2, lastPage: Math.min(n + 1, 8), total: Math.min(n + 1, 8) * 2, next: n < 8 });
    const items = await client().payments.list().toArray();
    expect(items).toHaveLength(16);
    expect(requests).toBe(8);
  });

  it('one empty page in the middle of a list does not stop it', async () => {
    pageOf = (n) => ({ items: n === 2 ? 0 : 2, lastPage: 4, total: 6, next: n < 4 });
    expect(await client().payments.list().toArray()).toHaveLength(6);
  });
});
