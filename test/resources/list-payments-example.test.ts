/**
 * examples/list-payments.ts runs as a merchant would run it (env for the key and base URL, argv
 * for the filters), against msw: it walks every page and prints the totals by currency.
 */
import { HttpResponse, http } from 'msw';
import { formatAmount } from 'payments-sdk';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { API_KEY, API_URL, envelope, ORIGIN, payment } from '../helpers/fixtures.js';
import { useMswServer } from '../helpers/msw.js';
import { queryOf, useRequestLog } from '../helpers/request-log.js';

const server = useMswServer();
const log = useRequestLog(server);

const saved = { argv: process.argv, key: process.env.PAYMENTS_API_KEY, base: process.env.PAYMENTS_BASE_URL, exitCode: process.exitCode };
let lines: string[] = [];

beforeEach(() => {
  lines = [];
  vi.spyOn(console, 'log').mockImplementation((...args: unknown[]) => void lines.push(args.join(' ')));
  vi.spyOn(console, 'error').mockImplementation((...args: unknown[]) => void lines.push(args.join(' ')));
  vi.resetModules();
});

afterEach(() => {
  vi.restoreAllMocks();
  process.argv = saved.argv;
  process.exitCode = saved.exitCode;
  for (const [name, value] of [
    ['PAYMENTS_API_KEY', saved.key],
    ['PAYMENTS_BASE_URL', saved.base],
  ] as const) {
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  }
});

async function runExample(...args: string[]): Promise<void> {
  process.argv = [process.argv[0] ?? 'node', 'examples/list-payments.ts', ...args];
  await import('../../examples/list-payments.js');
}

describe('examples/list-payments.ts', () => {
  it('walks every page with the status/from filter and prints totals by currency', async () => {
    process.env.PAYMENTS_API_KEY = API_KEY;
    process.env.PAYMENTS_BASE_URL = ORIGIN;
    server.use(
      http.get(`${API_URL}/payments`, ({ request }) => {
        const page = Number(new URL(request.url).searchParams.get('page') ?? '1');
        const data =
          page === 1
            ? [
                payment({ uuid: 'a', gross_amount: 5000, net_amount_to_merchant: 4900 }),
                payment({ uuid: 'b', currency: 'GHS', gross_amount: 1250, net_amount_to_merchant: 1200 }),
              ]
            : [payment({ uuid: 'c', gross_amount: 10_000, net_amount_to_merchant: 9800 })];
        return HttpResponse.json(envelope(data, { page, lastPage: 2, origin: ORIGIN, perPage: 100 }));
      }),
    );

    await runExample('2026-11-01', 'succeeded');

    expect(log.map(queryOf)).toEqual([
      { status: 'succeeded', from: '2026-11-01', per_page: '100' },
      { page: '2', status: 'succeeded', from: '2026-11-01', per_page: '100' },
    ]);
    // The example formats in the process's default locale: expected strings are built the same way.
    expect(lines).toEqual([
      `GHS: 1 succeeded payment(s), gross ${formatAmount(1250, 'GHS')}, net to you ${formatAmount(1200, 'GHS')}`,
      `XOF: 2 succeeded payment(s), gross ${formatAmount(15_000, 'XOF')}, net to you ${formatAmount(14_700, 'XOF')}`,
    ]);
    expect(process.exitCode ?? 0).toBe(0);
  });

  it('a bad date is reported as the SDK error, nothing is sent, exit code 1', async () => {
    process.env.PAYMENTS_API_KEY = API_KEY;
    process.env.PAYMENTS_BASE_URL = ORIGIN;
    await runExample('01/11/2026');
    expect(log).toHaveLength(0);
    expect(lines.join('\n')).toMatch(/InvalidParamsError: .*from: must be a "YYYY-MM-DD" date/);
    expect(process.exitCode).toBe(1);
  });
});
