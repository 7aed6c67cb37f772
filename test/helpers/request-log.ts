/** A log of every request that leaves the client, handled by msw or not, so a test can assert what was sent and that nothing was. */
import type { SetupServer } from 'msw/node';
import { afterEach, beforeEach } from 'vitest';

/** One request as it left the client. */
export interface SentRequest {
  method: string;
  url: URL;
  headers: Headers;
  /** The body text ('' for none), read from a clone so the handler still gets the original. */
  text: Promise<string>;
}

/** Records every request msw sees (handled or not) into the returned array, reset before each test. */
export function useRequestLog(server: SetupServer): SentRequest[] {
  const log: SentRequest[] = [];
  const listener = ({ request }: { request: Request }) => {
    log.push({ method: request.method, url: new URL(request.url), headers: request.headers, text: request.clone().text() });
  };
  beforeEach(() => {
    log.length = 0;
    server.events.on('request:start', listener);
  });
  afterEach(() => {
    server.events.removeListener('request:start', listener);
  });
  return log;
}

/** Parsed JSON body of a logged request. */
export async function jsonOf(request: SentRequest | undefined): Promise<unknown> {
  if (!request) throw new Error('no such request in the log');
  return JSON.parse(await request.text);
}

/** Query of a logged request as a plain object (single values). */
export function queryOf(request: SentRequest | undefined): Record<string, string> {
  if (!request) throw new Error('no such request in the log');
  return Object.fromEntries(request.url.searchParams);
}
