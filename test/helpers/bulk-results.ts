/** Reading a bulk payout in the tests: every result in row order, their statuses, and the POSTs the mock received. */
import type { BulkResult } from 'payments-sdk';
import type { payoutMock } from './bulk.js';

/** Every result of a batch, sorted by row index (they arrive in completion order). */
export async function collect<R>(batch: AsyncIterable<BulkResult<R>>): Promise<BulkResult<R>[]> {
  const out: BulkResult<R>[] = [];
  for await (const r of batch) out.push(r);
  return out.sort((a, b) => a.index - b.index);
}

/** The status of each result, in order. */
export const statuses = (results: BulkResult<unknown>[]) => results.map((r) => r.status);

/** The POST requests the mock received (each one a payout sent). */
export const posts = (mock: ReturnType<typeof payoutMock>) => mock.requests.filter((r) => r.method === 'POST');
