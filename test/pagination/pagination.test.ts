/**
 * Pagination (README "Pagination"; docs/service.md "Endpoints", lists): the iterator follows links.next to
 * null, every request goes to the configured base URL (the link's origin is never contacted: msw
 * would fail an unhandled request to it, and the log would show it), a repeated link stops the
 * walk, and nothing is fetched past what the caller asked for.
 */
import { HttpResponse, http } from 'msw';
import { NotFoundError, Page, type Payment, PaymentsError, ResponseValidationError } from 'payments-sdk';
import { describe, expect, it } from 'vitest';
import { keepFilters } from '../../src/core/pagination.js';
import { caught } from '../helpers/caught.js';
import { makeClient } from '../helpers/client.js';
import { API_URL, envelope, ORIGIN, payment } from '../helpers/fixtures.js';
import { useMswServer } from '../helpers/msw.js';
import { queryOf, useRequestLog } from '../helpers/request-log.js';

const server = useMswServer();
const log = useRequestLog(server);

const PER_PAGE = 3;
const item = (n: number) => payment({ uuid: `p-${n}` });
const uuids = (items: Payment[]) => items.map((p) => p.uuid);

interface Feed {
  /** Pages to serve. */
  pages: number;
  /** Origin written into the links (default: the service's own). */
  linkOrigin?: string;
  /** Path written into the links (default /api/v1/payments). */
  linkPath?: string;
  /** Where msw answers (default API_URL/payments). */
  at?: string;
  /** Overrides links.next of a given page. */
  next?: Record<number, string | null>;
}

/** Serves `pages` pages of PER_PAGE payments, numbered p-1, p-2…, with absolute Laravel links. */
function feed(opts: Feed): void {
  server.use(
    http.get(opts.at ?? `${API_URL}/payments`, ({ request }) => {
      const page = Number(new URL(request.url).searchParams.get('page') ?? '1');
      const data = Array.from({ length: PER_PAGE }, (_, i) => item((page - 1) * PER_PAGE + i + 1));
      const body = envelope(data, {
        page,
        lastPage: opts.pages,
        perPage: PER_PAGE,
        total: opts.pages * PER_PAGE,
        origin: opts.linkOrigin ?? ORIGIN,
        path: opts.linkPath ?? '/api/v1/payments',
      });
      if (opts.next && page in opts.next) body.links.next = opts.next[page] ?? null;
      return HttpResponse.json(body);
    }),
  );
}

describe('for await over items', () => {
  it('walks every page in order until links.next is null', async () => {
    feed({ pages: 3 });
    const seen: Payment[] = [];
    for await (const p of makeClient().payments.list({ per_page: PER_PAGE })) seen.push(p);
    expect(uuids(seen)).toEqual(['p-1', 'p-2', 'p-3', 'p-4', 'p-5', 'p-6', 'p-7', 'p-8', 'p-9']);
    expect(log.map((r) => r.url.href)).toEqual([
      `${API_URL}/payments?per_page=3`,
      `${API_URL}/payments?page=2&per_page=3`,
      `${API_URL}/payments?page=3&per_page=3`,
    ]);
  });

  it('a single page with next null is one request', async () => {
    feed({ pages: 1 });
    const seen: Payment[] = [];
    for await (const p of makeClient().payments.list()) seen.push(p);
    expect(seen).toHaveLength(PER_PAGE);
    expect(log).toHaveLength(1);
  });

  it('an empty list yields nothing', async () => {
    server.use(http.get(`${API_URL}/payments`, () => HttpResponse.json(envelope([], { origin: ORIGIN }))));
    const seen: Payment[] = [];
    for await (const p of makeClient().payments.list()) seen.push(p);
    expect(seen).toEqual([]);
  });

  it('works for every paginated resource', async () => {
    for (const path of ['checkout-sessions', 'payouts', 'payment-links']) {
      server.use(
        http.get(`${API_URL}/${path}`, ({ request }) => {
          const page = Number(new URL(request.url).searchParams.get('page') ?? '1');
          return HttpResponse.json(
            envelope([{ uuid: `${path}-${page}`, url: 'https://pay.example/l', ...fillFor(path, page) }], {
              page,
              lastPage: 2,
              origin: ORIGIN,
              path: `/api/v1/${path}`,
            }),
          );
        }),
      );
    }
    const client = makeClient();
    expect(await client.checkoutSessions.list().toArray()).toHaveLength(2);
    expect(await client.payouts.list().toArray()).toHaveLength(2);
    expect(await client.paymentLinks.list().toArray()).toHaveLength(2);
    expect(log.map((r) => `${r.url.pathname}${r.url.search}`)).toEqual([
      '/api/v1/checkout-sessions',
      '/api/v1/checkout-sessions?page=2',
      '/api/v1/payouts',
      '/api/v1/payouts?page=2',
      '/api/v1/payment-links',
      '/api/v1/payment-links?page=2',
    ]);
  });
});

/** Minimal valid items for the other lists (sessions need their fields; payouts and links pass). */
function fillFor(path: string, page: number): Record<string, unknown> {
  if (path !== 'checkout-sessions') return {};
  return {
    reference: `01J${page}`,
    amount: 5000,
    currency: 'XOF',
    description: null,
    payer_name: null,
    payer_email: null,
    payer_phone: null,
    success_url: null,
    cancel_url: null,
    status: 'created',
    metadata: [],
    checkout_url: 'https://checkout.example/c',
    expires_at: '2026-11-20T11:15:00+00:00',
    created_at: '2026-11-20T10:15:00+00:00',
  };
}

describe('the origin of links.next is never used', () => {
  it('a foreign host in the links: every request still goes to the base URL, the host is never contacted', async () => {
    feed({ pages: 3, linkOrigin: 'http://evil.invalid' });
    const all = await makeClient().payments.list().toArray();
    expect(all).toHaveLength(9);
    expect(log).toHaveLength(3);
    for (const r of log) expect(r.url.origin).toBe(ORIGIN);
    expect(log.some((r) => r.url.hostname.includes('evil'))).toBe(false);
  });

  it('an internal host and port behind a proxy (http://10.0.0.5:8080) is replaced too', async () => {
    feed({ pages: 2, linkOrigin: 'http://10.0.0.5:8080' });
    expect(await makeClient().payments.list().toArray()).toHaveLength(6);
    expect(log.map((r) => r.url.origin)).toEqual([ORIGIN, ORIGIN]);
  });

  it('http:// links while the base is https: the next request stays on https, path and query kept', async () => {
    const secure = 'https://127.0.0.1:4021';
    feed({ pages: 2, linkOrigin: 'http://127.0.0.1:4021', at: `${secure}/api/v1/payments` });
    const all = await makeClient({ baseUrl: secure }).payments.list({ status: 'succeeded' }).toArray();
    expect(all).toHaveLength(6);
    expect(log.map((r) => r.url.href)).toEqual([
      `${secure}/api/v1/payments?status=succeeded`,
      `${secure}/api/v1/payments?page=2&status=succeeded`,
    ]);
  });

  it('a base URL with a path prefix: the prefix is kept, whether or not the links carry it', async () => {
    // The public gateway serves the service under /gateway; the service writes links as it sees itself.
    feed({
      pages: 3,
      at: `${ORIGIN}/gateway/api/v1/payments`,
      next: { 1: 'http://backend:8000/api/v1/payments?page=2', 2: 'https://pay.example/gateway/api/v1/payments?page=3' },
    });
    const all = await makeClient({ baseUrl: `${ORIGIN}/gateway/` })
      .payments.list()
      .toArray();
    expect(all).toHaveLength(9);
    expect(log.map((r) => r.url.href)).toEqual([
      `${ORIGIN}/gateway/api/v1/payments`,
      `${ORIGIN}/gateway/api/v1/payments?page=2`,
      `${ORIGIN}/gateway/api/v1/payments?page=3`,
    ]);
  });

  it('a relative links.next is followed against the base URL', async () => {
    feed({ pages: 2, next: { 1: '/api/v1/payments?page=2' } });
    expect(await makeClient().payments.list().toArray()).toHaveLength(6);
    expect(log[1]?.url.href).toBe(`${API_URL}/payments?page=2`);
  });
});

describe('filters on later pages', () => {
  it('links that carry only ?page=N (Laravel without withQueryString) keep the first request filters', async () => {
    feed({ pages: 2 });
    const from = new Date(Date.UTC(2026, 10, 1, 12));
    await makeClient().payments.list({ status: 'succeeded', from, to: '2026-11-30', per_page: PER_PAGE }).toArray();
    expect(queryOf(log[1])).toEqual({ page: '2', status: 'succeeded', from: '2026-11-01', to: '2026-11-30', per_page: '3' });
  });

  it('links that carry the filters are followed as they are (the link wins, nothing is doubled)', async () => {
    feed({ pages: 2, next: { 1: `${ORIGIN}/api/v1/payments?per_page=3&status=succeeded&page=2` } });
    await makeClient().payments.list({ status: 'succeeded', per_page: PER_PAGE }).toArray();
    expect(log[1]?.url.search).toBe('?per_page=3&status=succeeded&page=2');
  });

  it('the page asked for first is not carried over: the link says which page comes next', async () => {
    feed({ pages: 3 });
    const all = await makeClient().payments.list({ page: 2 }).toArray();
    expect(uuids(all)).toEqual(['p-4', 'p-5', 'p-6', 'p-7', 'p-8', 'p-9']);
    expect(log.map((r) => r.url.search)).toEqual(['?page=2', '?page=3']);
  });
});

describe('a links.next seen before stops the walk', () => {
  it('a page pointing at itself: PaymentsError after the items already yielded, no endless loop', async () => {
    feed({ pages: 3, next: { 2: `${ORIGIN}/api/v1/payments?page=2` } });
    const seen: Payment[] = [];
    const error = await caught(async () => {
      for await (const p of makeClient().payments.list()) seen.push(p);
    });
    expect(error).toBeInstanceOf(PaymentsError);
    expect((error as Error).message).toMatch(/already visited/);
    expect(uuids(seen)).toEqual(['p-1', 'p-2', 'p-3', 'p-4', 'p-5', 'p-6']);
    expect(log).toHaveLength(2);
  });

  it('a cycle between pages, even with the origin changed, is caught', async () => {
    feed({ pages: 3, next: { 3: 'http://other.invalid/api/v1/payments?page=2' } });
    const error = await caught(() => makeClient().payments.list().toArray());
    expect(error).toBeInstanceOf(PaymentsError);
    expect(log.map((r) => r.url.search)).toEqual(['', '?page=2', '?page=3']);
  });

  it('links that differ only in a prefix before /api/v1 are the same request: the cycle is caught at once', async () => {
    // Page 1 names page 2 behind a proxy prefix; page 2 names itself without it. Both are requested
    // as /api/v1/payments?page=2, so page 2 is not fetched a second time.
    feed({ pages: 3, next: { 1: 'http://internal:8080/gw/api/v1/payments?page=2', 2: `${ORIGIN}/api/v1/payments?page=2` } });
    const error = await caught(() => makeClient().payments.list().toArray());
    expect(error).toBeInstanceOf(PaymentsError);
    expect((error as Error).message).toMatch(/already visited/);
    expect(log.map((r) => r.url.search)).toEqual(['', '?page=2']);
  });

  it('a malformed links.next is a PaymentsError, not a crash', async () => {
    feed({ pages: 2, next: { 1: 'http://[broken' } });
    const error = await caught(() => makeClient().payments.list().toArray());
    expect(error).toBeInstanceOf(PaymentsError);
    expect(log).toHaveLength(1);
  });
});

describe('nothing is fetched past what the caller asked for', () => {
  it('break on the first item: no second request', async () => {
    feed({ pages: 5 });
    for await (const p of makeClient().payments.list()) {
      expect(p.uuid).toBe('p-1');
      break;
    }
    expect(log).toHaveLength(1);
  });

  it('break in the middle of page 2: exactly two requests', async () => {
    feed({ pages: 5 });
    const seen: string[] = [];
    for await (const p of makeClient().payments.list()) {
      seen.push(p.uuid);
      if (p.uuid === 'p-5') break;
    }
    expect(seen).toEqual(['p-1', 'p-2', 'p-3', 'p-4', 'p-5']);
    expect(log).toHaveLength(2);
  });

  it.each([
    [1, 1],
    [3, 1],
    [4, 2],
    [6, 2],
    [7, 3],
    [100, 5],
  ])('toArray({ limit: %i }) reads %i page(s)', async (limit, requests) => {
    feed({ pages: 5 });
    const all = await makeClient().payments.list().toArray({ limit });
    expect(all).toHaveLength(Math.min(limit, 15));
    expect(uuids(all)[0]).toBe('p-1');
    expect(log).toHaveLength(requests);
  });

  // list() sends its first request when called (as every APIPromise does); these tests await it so
  // that no request of theirs lands in the next test's log.
  it('toArray() without a limit reads everything; limit 0 gives [] and reads no further page', async () => {
    feed({ pages: 2 });
    expect(await makeClient().payments.list().toArray()).toHaveLength(6);
    log.length = 0;
    const listing = makeClient().payments.list();
    expect(await listing.toArray({ limit: 0 })).toEqual([]);
    await listing;
    expect(log).toHaveLength(1);
  });

  it('toArray refuses a negative or NaN limit', async () => {
    feed({ pages: 1 });
    for (const limit of [-1, Number.NaN]) {
      const listing = makeClient().payments.list();
      expect(await caught(() => listing.toArray({ limit }))).toBeInstanceOf(PaymentsError);
      await listing;
    }
  });
});

describe('pages() and Page', () => {
  it('.pages() yields Page objects with meta and links, one request per page', async () => {
    feed({ pages: 3 });
    const metas: number[] = [];
    for await (const page of makeClient().payments.list().pages()) {
      expect(page).toBeInstanceOf(Page);
      expect(page.data).toHaveLength(PER_PAGE);
      metas.push(page.meta.current_page);
    }
    expect(metas).toEqual([1, 2, 3]);
    expect(log).toHaveLength(3);
  });

  it('awaiting list() gives the first page; hasNextPage / getNextPage walk by hand', async () => {
    feed({ pages: 2 });
    const first = await makeClient().payments.list();
    expect(log).toHaveLength(1);
    expect(first.meta).toEqual({ current_page: 1, last_page: 2, per_page: PER_PAGE, total: 6 });
    expect(first.links.next).toBe(`${ORIGIN}/api/v1/payments?page=2`);
    expect(first.hasNextPage()).toBe(true);
    const second = await first.getNextPage();
    expect(uuids(second.data)).toEqual(['p-4', 'p-5', 'p-6']);
    expect(second.hasNextPage()).toBe(false);
    expect(log).toHaveLength(2);
  });

  it('getNextPage() on the last page rejects with PaymentsError and sends nothing', async () => {
    feed({ pages: 1 });
    const only = await makeClient().payments.list();
    const error = await caught(() => only.getNextPage());
    expect(error).toBeInstanceOf(PaymentsError);
    expect((error as Error).message).toMatch(/last page/);
    expect(log).toHaveLength(1);
  });

  it('getNextPage() also goes to the base URL, not the link origin', async () => {
    feed({ pages: 2, linkOrigin: 'http://evil.invalid' });
    const first = await makeClient().payments.list();
    await first.getNextPage();
    expect(log.map((r) => r.url.origin)).toEqual([ORIGIN, ORIGIN]);
  });

  it('list().withResponse() gives the first page and its HTTP response', async () => {
    feed({ pages: 2 });
    const { data, response } = await makeClient().payments.list().withResponse();
    expect(data).toBeInstanceOf(Page);
    expect(response.status).toBe(200);
  });

  it('JSON.stringify(page) is the envelope (no client, no key)', async () => {
    feed({ pages: 2 });
    const page = await makeClient().payments.list();
    const json = JSON.parse(JSON.stringify(page));
    expect(Object.keys(json).sort()).toEqual(['data', 'links', 'meta']);
    expect(JSON.stringify(page)).not.toContain('sk_test');
  });
});

describe('errors in the middle of a walk', () => {
  it('a bad item on page 2 rejects the iteration after page 1 was yielded', async () => {
    server.use(
      http.get(`${API_URL}/payments`, ({ request }) => {
        const page = Number(new URL(request.url).searchParams.get('page') ?? '1');
        const data = page === 1 ? [item(1)] : [payment({ uuid: 'bad', gross_amount: 10.5 })];
        return HttpResponse.json(envelope(data, { page, lastPage: 2, origin: ORIGIN }));
      }),
    );
    const seen: string[] = [];
    const error = await caught(async () => {
      for await (const p of makeClient().payments.list()) seen.push(p.uuid);
    });
    expect(error).toBeInstanceOf(ResponseValidationError);
    expect(seen).toEqual(['p-1']);
  });

  it('an API error on page 2 surfaces with its class', async () => {
    server.use(
      http.get(`${API_URL}/payments`, ({ request }) => {
        const page = Number(new URL(request.url).searchParams.get('page') ?? '1');
        if (page === 2) return HttpResponse.json({ message: 'Page introuvable.' }, { status: 404 });
        return HttpResponse.json(envelope([item(1)], { page, lastPage: 2, origin: ORIGIN }));
      }),
    );
    expect(await caught(() => makeClient().payments.list().toArray())).toBeInstanceOf(NotFoundError);
  });
});

describe('keepFilters (the next request of a walk)', () => {
  it.each([
    ['/payments?page=2', '?status=succeeded&per_page=100', '/payments?page=2&status=succeeded&per_page=100'],
    ['/payments?page=2&status=failed', '?status=succeeded', '/payments?page=2&status=failed'],
    ['/payments?page=2', '?page=1&from=2026-11-01', '/payments?page=2&from=2026-11-01'],
    ['/payments/after/p-20', '?status=succeeded', '/payments/after/p-20?status=succeeded'],
    ['/payments?page=2&a=%20b', '', '/payments?page=2&a=%20b'],
  ])('%s + %s → %s', (link, filters, expected) => {
    expect(keepFilters(link, filters)).toBe(expected);
  });
});
