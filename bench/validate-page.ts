/**
 * Side measurement (not part of `npm run bench`): validating one list envelope of 100 payments,
 * zod/mini's `safeParse` against the SDK's `parseResponse` (the field-table fast path, zod only for
 * a page with a problem). 9 interleaved rounds of 2,000 parses after a warm-up; median and min–max
 * of the per-parse time, and the median of per-round ratios.
 *
 *   npm exec -- esbuild bench/validate-page.ts --bundle --platform=node --format=esm --outfile=dist/validate-page.mjs
 *   npm exec -- node dist/validate-page.mjs
 */

import { listEnvelope } from '../src/schemas/list-envelope.js';
import { PaymentSchema } from '../src/schemas/payment.js';
import { parseResponse } from '../src/schemas/response-objects.js';
import { benchPayment, PER_PAGE } from './fixtures.js';

const page = JSON.parse(
  JSON.stringify({
    data: Array.from({ length: PER_PAGE }, (_, i) => benchPayment(i + 1)),
    links: { first: 'https://h/p?page=1', last: 'https://h/p?page=100', prev: null, next: 'https://h/p?page=2' },
    meta: { current_page: 1, last_page: 100, per_page: PER_PAGE, total: 100 * PER_PAGE },
  }),
);
const schema = listEnvelope(PaymentSchema);
const ways: Record<string, () => unknown> = {
  'zod/mini safeParse': () => schema.safeParse(page),
  'parseResponse (fast path)': () => parseResponse(schema, page),
};
if (!(parseResponse(schema, page).success && JSON.stringify(parseResponse(schema, page)) === JSON.stringify(schema.safeParse(page)))) {
  throw new Error('the two ways disagree');
}
const ROUNDS = 9;
const PARSES = 2_000;
const times: Record<string, number[]> = Object.fromEntries(Object.keys(ways).map((name) => [name, []]));
for (const run of Object.values(ways)) for (let i = 0; i < PARSES; i++) run();
const names = Object.keys(ways);
for (let round = 0; round < ROUNDS; round++) {
  for (const name of round % 2 ? [...names].reverse() : names) {
    const run = ways[name] as () => unknown;
    const start = performance.now();
    for (let i = 0; i < PARSES; i++) run();
    times[name]?.push((performance.now() - start) / PARSES);
  }
}
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;
for (const name of names) {
  const xs = times[name] as number[];
  console.log(`${name}: ${median(xs).toFixed(4)} ms per page (min ${Math.min(...xs).toFixed(4)}, max ${Math.max(...xs).toFixed(4)})`);
}
const [a, b] = names.map((name) => times[name] as number[]) as [number[], number[]];
console.log(`fast / zod, median of per-round ratios: ${median(a.map((t, i) => (b[i] as number) / t)).toFixed(3)}`);
