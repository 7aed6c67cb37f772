/**
 * The client validates payments, payouts and their pages through the fast path: zod's own walk runs
 * only on a response that has a problem, and then the error is zod's (issues at their paths).
 */
import { HttpResponse, http } from 'msw';
import { ResponseValidationError } from 'payments-sdk';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { listEnvelope } from '../../src/schemas/list-envelope.js';
import { PaymentSchema } from '../../src/schemas/payment.js';
import { caught } from '../helpers/caught.js';
import { makeClient } from '../helpers/client.js';
import { API_URL, envelope, payment } from '../helpers/fixtures.js';
import { useMswServer } from '../helpers/msw.js';

const server = useMswServer();

afterEach(() => {
  vi.restoreAllMocks();
});

function serve(items: unknown[]): void {
  server.use(
    http.get(`${API_URL}/payments`, () => HttpResponse.json(envelope(items as never, { page: 1, lastPage: 1, perPage: 3, total: 3 }))),
  );
}

describe('responses built from field tables skip zod when valid', () => {
  it('a valid page is returned without zod walking it, equal to what zod returns', async () => {
    const items = [payment({ uuid: 'p-1' }), { ...payment({ uuid: 'p-2' }), added_later: { nested: [1] } }, payment({ uuid: 'p-3' })];
    serve(items);
    const zodWalk = vi.spyOn(listEnvelope(PaymentSchema), 'safeParse');
    const page = await makeClient().payments.list({ per_page: 3 });
    expect(zodWalk).not.toHaveBeenCalled();
    expect(page.data).toStrictEqual(items);
    expect(Object.keys(page.data[1] ?? {}).at(-1)).toBe('added_later');
  });

  it('a page with a float amount goes to zod, whose issue names the field', async () => {
    serve([payment({ uuid: 'p-1' }), payment({ uuid: 'p-2', gross_amount: 50.5 }), payment({ uuid: 'p-3' })]);
    const zodWalk = vi.spyOn(listEnvelope(PaymentSchema), 'safeParse');
    const error = await caught(makeClient().payments.list({ per_page: 3 }));
    expect(zodWalk).toHaveBeenCalledTimes(1);
    expect(error).toBeInstanceOf(ResponseValidationError);
    expect((error as ResponseValidationError).issues).toEqual([
      { path: ['data', 1, 'gross_amount'], message: 'must be an integer, got 50.5' },
    ]);
  });

  it('a retrieved payment is validated by the fast path too', async () => {
    server.use(http.get(`${API_URL}/payments/p-9`, () => HttpResponse.json({ data: payment({ uuid: 'p-9' }) })));
    const zodWalk = vi.spyOn(PaymentSchema, 'safeParse');
    const got = await makeClient().payments.retrieve('p-9');
    expect(zodWalk).not.toHaveBeenCalled();
    expect(got).toStrictEqual(payment({ uuid: 'p-9' }));
  });
});
