/**
 * The one retry decision, shared by the client's calls and the bulk payout runner: statuses that
 * mean "try again later", no answer at all, and nothing else.
 */

import { describe, expect, it } from 'vitest';
import {
  APIConnectionError,
  APITimeoutError,
  APIUserAbortError,
  InvalidParamsError,
  makeAPIError,
  PaymentsError,
  ResponseValidationError,
} from '../../src/core/errors.js';
import { isRetryable } from '../../src/internal/transport.js';

const answer = (status: number) => makeAPIError({ status, body: { message: 'x' }, headers: new Headers() });

describe('isRetryable', () => {
  it('retries 408, 429, 500, 502, 503 and 504, and no other status', () => {
    const retried = [];
    for (let status = 300; status < 600; status++) if (isRetryable(answer(status))) retried.push(status);
    expect(retried).toEqual([408, 429, 500, 502, 503, 504]);
  });

  it('retries no answer: a connection failure (fetch reports a TypeError) and a timeout', () => {
    expect(isRetryable(new APIConnectionError('reset', { cause: new TypeError('fetch failed') }))).toBe(true);
    expect(isRetryable(new APITimeoutError('late'))).toBe(true);
  });

  it("does not retry a bug in a custom fetch, the caller's abort, bad input, a 2xx of the wrong shape or a size cap", () => {
    expect(isRetryable(new APIConnectionError('bug', { cause: new RangeError('proxy misconfigured') }))).toBe(false);
    expect(isRetryable(new APIUserAbortError())).toBe(false);
    expect(isRetryable(new InvalidParamsError([{ path: ['amount'], message: 'is required' }]))).toBe(false);
    expect(isRetryable(new ResponseValidationError([{ path: ['data'], message: 'is required' }], {}))).toBe(false);
    expect(isRetryable(new PaymentsError('larger than maxResponseBytes'))).toBe(false);
    expect(isRetryable(new Error('not an SDK error'))).toBe(false);
  });
});
