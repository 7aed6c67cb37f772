/**
 * Pagination over the Laravel-style list envelope (`data`, `links`, `meta`).
 * `links.next` is followed until it is `null`, but only its path and query are used: every request
 * goes to the configured base URL, so the API key never leaves for the host (or the plain-http
 * scheme) a link names.
 */

import { API_PREFIX } from '../internal/config.js';
import type { ListEnvelope, PageLinks, PageMeta } from '../schemas/list-envelope.js';
import { APIPromise, type WithResponse } from './api-promise.js';
import { PaymentsError } from './errors.js';

/** How a page fetches the page after it: given the path and query of its `links.next`, returns that page. @internal */
export type FetchPage<T> = (pathAndQuery: string) => Promise<WithResponse<Page<T>>>;

/** One page of a list. */
export class Page<T> {
  /** Items of this page. */
  declare readonly data: T[];
  /** `current_page`, `last_page`, `per_page`, `total`. */
  declare readonly meta: PageMeta;
  /** `first`, `last`, `prev`, `next` (`null` on the last page). */
  declare readonly links: PageLinks;
  readonly #fetchPage: FetchPage<T>;

  /** @internal */
  constructor(envelope: ListEnvelope<T>, fetchPage: FetchPage<T>) {
    this.data = envelope.data;
    this.meta = envelope.meta;
    this.links = envelope.links;
    this.#fetchPage = fetchPage;
  }

  /** `true` while `links.next` is not `null`: the last page has no next link. */
  hasNextPage(): boolean {
    // `next` passed its schema: a string or null (an empty string names no page either).
    return Boolean(this.links.next);
  }

  /** Fetches the next page. Throws a {@link PaymentsError} on the last page. */
  getNextPage(): APIPromise<Page<T>> {
    if (!this.hasNextPage()) {
      return new APIPromise(Promise.reject(new PaymentsError('This is the last page: links.next is null. Check hasNextPage() first.')));
    }
    const next = this.links.next as string;
    const path = pathOfLink(next);
    if (path === undefined) {
      return new APIPromise(
        Promise.reject(
          new PaymentsError(`links.next from the service is neither an http(s) URL nor a path (${JSON.stringify(next)}): not followed.`),
        ),
      );
    }
    return new APIPromise(this.#fetchPage(path));
  }
}

/** Options of {@link PagePromise.toArray}. */
export interface ToArrayOptions {
  /** Stop once this many items are collected; no page past it is fetched. */
  limit?: number;
}

/**
 * What `list()` returns: awaitable for the first {@link Page}, async-iterable over every item of
 * every page, with {@link PagePromise.pages} for page-wise work and {@link PagePromise.toArray}.
 *
 * Iteration holds one page at a time, so memory stays flat however many pages are walked.
 */
export class PagePromise<T> extends APIPromise<Page<T>> implements AsyncIterable<T> {
  /** Iterates over every page, starting with the first, until `links.next` is `null`. */
  async *pages(): AsyncGenerator<Page<T>, void, undefined> {
    for await (const { data } of walkPages(this)) yield data;
  }

  /** Iterates over every item of every page. `break` stops it without fetching another page. */
  async *[Symbol.asyncIterator](): AsyncGenerator<T, void, undefined> {
    for await (const page of this.pages()) {
      // Not `yield* page.data`: in an async generator that goes through an async-from-sync iterator,
      // an extra promise and tick per item, which this plain loop avoids.
      for (const item of page.data) yield item;
    }
  }

  /** Collects items into an array, stopping (and fetching nothing more) once `limit` is reached. */
  async toArray(options: ToArrayOptions = {}): Promise<T[]> {
    const limit = options.limit ?? Number.POSITIVE_INFINITY;
    if (!(limit >= 0)) throw new PaymentsError('toArray: limit must be a number ≥ 0.');
    const out: T[] = [];
    if (limit === 0) return out;
    for await (const page of this.pages()) {
      for (const item of page.data) {
        out.push(item);
        if (out.length >= limit) return out;
      }
    }
    return out;
  }
}

/** Empty pages in a row, each with a next link, after which a walk stops: a list that has ended sends `next: null`. */
const MAX_EMPTY_PAGES = 3;
/** Pages a walk may go past the largest `meta.last_page` it was told (items created during the walk move the end). */
const PAGES_PAST_LAST = 2;

/**
 * The one page walk: every page from `first` on, each with its response, until `links.next` is
 * `null`. A walk that would never end stops with a {@link PaymentsError}:
 * - a `links.next` already visited in this walk (a loop);
 * - {@link MAX_EMPTY_PAGES} empty pages in a row that still name a next page;
 * - more pages than the largest `meta.last_page`, or more items than the largest `meta.total`,
 *   that any page gave, by more than {@link PAGES_PAST_LAST} pages (links that are always new).
 * Only the current page is held: memory stays flat.
 * @internal Used by {@link PagePromise.pages} and by helpers that need each page's response.
 */
export async function* walkPages<T>(first: APIPromise<Page<T>>): AsyncGenerator<WithResponse<Page<T>>, void, undefined> {
  let current = await first.withResponse();
  const visited = new Set<string>();
  let pages = 0;
  let items = 0;
  let emptyInARow = 0;
  let lastPage = 0;
  let total = 0;
  let perPage = 0;
  for (;;) {
    // `meta` passed its schema: its counters are integers.
    const { data, meta } = current.data;
    pages += 1;
    items += data.length;
    emptyInARow = data.length === 0 ? emptyInARow + 1 : 0;
    lastPage = Math.max(lastPage, meta.last_page);
    total = Math.max(total, meta.total);
    perPage = Math.max(perPage, data.length, meta.per_page);
    yield current;
    if (!current.data.hasNextPage()) return;
    const next = current.data.links.next as string;
    // Remembered by what is requested (pathOfLink): links that differ only in origin or in a prefix
    // before /api/v1 are the same request.
    const key = pathOfLink(next) ?? next;
    const endless =
      emptyInARow >= MAX_EMPTY_PAGES
        ? `${emptyInARow} empty pages in a row still name a next page (links.next ${next})`
        : pages >= lastPage + PAGES_PAST_LAST || items > total + PAGES_PAST_LAST * perPage
          ? `page ${pages + 1} was asked for (links.next ${next}) but the service reported ${lastPage} pages and ${total} items`
          : visited.has(key)
            ? `links.next (${next}) was already visited in this walk (a loop)`
            : undefined;
    if (endless !== undefined) throw new PaymentsError(`Pagination stopped: ${endless}; ${items} items were read over ${pages} pages.`);
    visited.add(key);
    current = await current.data.getNextPage().withResponse();
  }
}

/**
 * The part of a `links.next` the client follows: its path from `/api/v1` on, and its query;
 * `undefined` when it is neither an http(s) URL nor a path. The origin is never used, so the key never leaves for the host
 * (or the plain-http scheme) a link names: Laravel behind a proxy writes `http://` or internal hosts
 * into its links.
 */
export function pathOfLink(link: string): string | undefined {
  let url: URL;
  // `new URL` in a try rather than `URL.parse`/`URL.canParse`, which some edge runtimes lack.
  try {
    url = new URL(link, 'http://link.invalid');
  } catch {
    return undefined;
  }
  // An opaque scheme (`javascript:../../admin/export`, `mailto:`) has a "path" the URL parser does
  // not resolve: appended to the base URL, its `..` segments would climb out of the base path.
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return undefined;
  const at = url.pathname.indexOf(`${API_PREFIX}/`);
  const path = at >= 0 ? url.pathname.slice(at + API_PREFIX.length) : url.pathname;
  return `${path}${url.search}`;
}

/**
 * The next page's path and query: `links.next`'s, plus every filter of the first request that the
 * link left out. A Laravel paginator writes only `?page=N` in its links unless the service calls
 * `withQueryString()`, and following such a link as it is would drop `status`, `from`, `per_page`…
 * from page 2 on: a `for await` over succeeded payments would go on over all of them. What the
 * link does carry wins, and `page` is never carried over (the link says which page comes next).
 * @internal Used by the client's `list`.
 */
export function keepFilters(pathAndQuery: string, filters: string): string {
  const at = pathAndQuery.indexOf('?');
  const query = new URLSearchParams(at >= 0 ? pathAndQuery.slice(at + 1) : '');
  let added = false;
  for (const [key, value] of new URLSearchParams(filters)) {
    if (key === 'page' || query.has(key)) continue;
    query.append(key, value);
    added = true;
  }
  // Unchanged when nothing is missing, so the link is followed byte for byte.
  if (!added) return pathAndQuery;
  return `${at >= 0 ? pathAndQuery.slice(0, at) : pathAndQuery}?${query.toString()}`;
}
