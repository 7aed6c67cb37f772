/**
 * Error mapping (README "Errors"): the class from the status, the service's own message kept,
 * `errors` and `failureReason` on 422, `retryAfter` on 429, bodies that are not JSON or are empty.
 */
import { HttpResponse, http } from 'msw';
import {
  APIConnectionError,
  APIError,
  APITimeoutError,
  APIUserAbortError,
  AuthenticationError,
  BadRequestError,
  IdempotencyConflictError,
  InternalServerError,
  InvalidParamsError,
  NotFoundError,
  PaymentsError,
  PermissionDeniedError,
  RateLimitError,
  ResponseValidationError,
  UnprocessableEntityError,
} from 'payments-sdk';
import { WebhookVerificationError } from 'payments-sdk/webhooks';
import { describe, expect, it } from 'vitest';
import { makeAPIError } from '../../src/core/errors.js';
import { parseRetryAfter } from '../../src/internal/retry-after.js';
import { caught } from '../helpers/caught.js';
import { makeClient } from '../helpers/client.js';
import { API_URL, chargeParams, sessionParams } from '../helpers/fixtures.js';
import { useMswServer } from '../helpers/msw.js';

const server = useMswServer();

/** Answers every GET of a checkout session with `response()`. */
function answerRetrieve(response: () => Response) {
  server.use(http.get(`${API_URL}/checkout-sessions/:reference`, () => response()));
}

/** The error thrown by a checkout-session read answered with `response` (no retries). */
function retrieveError(response: () => Response): Promise<unknown> {
  answerRetrieve(response);
  return caught(() => makeClient({ maxRetries: 0 }).checkoutSessions.retrieve('01JD3Z8Q4X5Y6Z7A8B9C0D1E2F'));
}

describe('class from status', () => {
  it.each([
    [400, BadRequestError],
    [401, AuthenticationError],
    [403, PermissionDeniedError],
    [404, NotFoundError],
    [409, IdempotencyConflictError],
    [422, UnprocessableEntityError],
    [429, RateLimitError],
    [500, InternalServerError],
    [502, InternalServerError],
    [503, InternalServerError],
    [504, InternalServerError],
    [501, InternalServerError],
    [599, InternalServerError],
  ])('%i → %o, an APIError and a PaymentsError, with status, body and headers', async (status, cls) => {
    const body = { message: `answer ${status}`, extra: 1 };
    const error = await retrieveError(() => HttpResponse.json(body, { status, headers: { 'X-Request-Id': 'req-1' } }));
    expect(error).toBeInstanceOf(cls);
    expect(error).toBeInstanceOf(APIError);
    expect(error).toBeInstanceOf(PaymentsError);
    expect(error).toBeInstanceOf(Error);
    const e = error as APIError;
    expect(e.constructor).toBe(cls);
    expect(e.name).toBe(cls.name);
    expect(e.status).toBe(status);
    expect(e.body).toEqual(body);
    expect(e.headers).toBeInstanceOf(Headers);
    expect(e.headers.get('x-request-id')).toBe('req-1');
    expect(e.message).toBe(`answer ${status}`);
  });

  it.each([402, 405, 408, 410, 413, 418])('%i (no dedicated class) → a plain APIError', async (status) => {
    const error = await retrieveError(() => HttpResponse.json({ message: 'nope' }, { status }));
    expect((error as APIError).constructor).toBe(APIError);
    expect((error as APIError).status).toBe(status);
  });

  it('every subclass of the table extends APIError, and every class extends PaymentsError', () => {
    for (const cls of [
      BadRequestError,
      AuthenticationError,
      PermissionDeniedError,
      NotFoundError,
      IdempotencyConflictError,
      UnprocessableEntityError,
      RateLimitError,
      InternalServerError,
    ]) {
      expect(cls.prototype).toBeInstanceOf(APIError);
    }
    for (const cls of [
      APIError,
      APIConnectionError,
      APITimeoutError,
      APIUserAbortError,
      ResponseValidationError,
      InvalidParamsError,
      WebhookVerificationError,
    ]) {
      expect(cls.prototype).toBeInstanceOf(PaymentsError);
    }
    expect(APITimeoutError.prototype).toBeInstanceOf(APIConnectionError);
  });
});

describe('message and body', () => {
  it('keeps the service’s own French message', async () => {
    const error = await retrieveError(() => HttpResponse.json({ message: 'Session de paiement introuvable.' }, { status: 404 }));
    expect(error).toBeInstanceOf(NotFoundError);
    expect((error as Error).message).toBe('Session de paiement introuvable.');
    expect(String(error)).toBe('NotFoundError: Session de paiement introuvable.');
  });

  it('maps an HTML 502 page by its status, with the HTML as body', async () => {
    const html = '<html><head><title>502 Bad Gateway</title></head><body><center>nginx</center></body></html>';
    const error = await retrieveError(() => new HttpResponse(html, { status: 502, headers: { 'Content-Type': 'text/html' } }));
    expect(error).toBeInstanceOf(InternalServerError);
    expect((error as APIError).status).toBe(502);
    expect((error as APIError).body).toBe(html);
    expect((error as Error).message).toMatch(/502/);
    expect((error as Error).message).toMatch(/not JSON/);
  });

  it('maps a plain-text 400', async () => {
    const error = await retrieveError(() => new HttpResponse('Bad Request', { status: 400, headers: { 'Content-Type': 'text/plain' } }));
    expect(error).toBeInstanceOf(BadRequestError);
    expect((error as APIError).body).toBe('Bad Request');
  });

  it('keeps an error body that is a bare number or word as text, not as a parsed JSON scalar', async () => {
    for (const text of ['502', 'null', 'true']) {
      const error = await retrieveError(() => new HttpResponse(text, { status: 502, headers: { 'Content-Type': 'text/plain' } }));
      expect(error).toBeInstanceOf(InternalServerError);
      expect((error as APIError).body).toBe(text);
      expect((error as Error).message).toBe('The payments service answered 502 (the body was not JSON).');
    }
  });

  it('maps an empty body, with a message naming the status', async () => {
    const error = await retrieveError(() => new HttpResponse(null, { status: 404 }));
    expect(error).toBeInstanceOf(NotFoundError);
    expect((error as APIError).body).toBeUndefined();
    expect((error as Error).message).toBe('The payments service answered 404.');
  });

  it('parses a JSON body sent with a non-JSON content type', async () => {
    const error = await retrieveError(
      () => new HttpResponse(JSON.stringify({ message: 'Non authentifié.' }), { status: 401, headers: { 'Content-Type': 'text/html' } }),
    );
    expect(error).toBeInstanceOf(AuthenticationError);
    expect((error as APIError).body).toEqual({ message: 'Non authentifié.' });
    expect((error as Error).message).toBe('Non authentifié.');
  });

  it('keeps the text of a body that says JSON but is not', async () => {
    const error = await retrieveError(
      () => new HttpResponse('<html>oops</html>', { status: 500, headers: { 'Content-Type': 'application/json' } }),
    );
    expect(error).toBeInstanceOf(InternalServerError);
    expect((error as APIError).body).toBe('<html>oops</html>');
  });

  it('falls back to the body’s `error` member, then to the status, for the message', async () => {
    const fromError = await retrieveError(() => HttpResponse.json({ error: 'Unauthenticated.' }, { status: 401 }));
    expect((fromError as Error).message).toBe('Unauthenticated.');
    const fromStatus = await retrieveError(() => HttpResponse.json({ message: '' }, { status: 403 }));
    expect((fromStatus as Error).message).toBe('The payments service answered 403.');
  });
});

describe('422', () => {
  it('exposes `errors` (field → messages) of a checkout-session creation', async () => {
    server.use(
      http.post(`${API_URL}/checkout-sessions`, () =>
        HttpResponse.json(
          {
            message: 'Le champ montant est obligatoire. (et 1 erreur de plus)',
            errors: { amount: ['Le champ montant est obligatoire.'], success_url: ['Le format est invalide.', 'Trop long.'] },
          },
          { status: 422 },
        ),
      ),
    );
    const error = (await caught(() => makeClient().checkoutSessions.create(sessionParams))) as UnprocessableEntityError;
    expect(error).toBeInstanceOf(UnprocessableEntityError);
    expect(error.message).toBe('Le champ montant est obligatoire. (et 1 erreur de plus)');
    expect(error.errors).toEqual({ amount: ['Le champ montant est obligatoire.'], success_url: ['Le format est invalide.', 'Trop long.'] });
    expect(error.failureReason).toBeUndefined();
  });

  it('turns a single message per field into a list', async () => {
    const error = await retrieveError(() => HttpResponse.json({ message: 'x', errors: { phone: 'Numéro invalide.' } }, { status: 422 }));
    expect((error as APIError).errors).toEqual({ phone: ['Numéro invalide.'] });
  });

  it('exposes `failureReason` of a refused direct charge', async () => {
    server.use(
      http.post(`${API_URL}/payments`, () =>
        HttpResponse.json({ message: 'Paiement refusé.', failure_reason: 'insufficient_funds' }, { status: 422 }),
      ),
    );
    const error = (await caught(() => makeClient().payments.create(chargeParams))) as UnprocessableEntityError;
    expect(error).toBeInstanceOf(UnprocessableEntityError);
    expect(error.failureReason).toBe('insufficient_funds');
    expect(error.message).toBe('Paiement refusé.');
    expect(error.errors).toBeUndefined();
  });
});

describe('429', () => {
  it('exposes Retry-After as `retryAfter` seconds once retries are spent', async () => {
    const error = await retrieveError(() =>
      HttpResponse.json({ message: 'Too Many Attempts.' }, { status: 429, headers: { 'Retry-After': '7' } }),
    );
    expect(error).toBeInstanceOf(RateLimitError);
    expect((error as RateLimitError).retryAfter).toBe(7);
  });

  it('reads an HTTP-date Retry-After as seconds from now', () => {
    const now = Date.parse('2026-11-20T10:15:00Z');
    expect(parseRetryAfter('Fri, 20 Nov 2026 10:15:42 GMT', now)).toBe(42);
    expect(parseRetryAfter('Fri, 20 Nov 2026 10:14:00 GMT', now)).toBe(0);
    expect(parseRetryAfter('12', now)).toBe(12);
    expect(parseRetryAfter(' 12 ', now)).toBe(12);
    expect(parseRetryAfter('1.5', now)).toBeUndefined();
    expect(parseRetryAfter('soon', now)).toBeUndefined();
    expect(parseRetryAfter('', now)).toBeUndefined();
    expect(parseRetryAfter(null, now)).toBeUndefined();
  });

  it('leaves retryAfter undefined without the header', () => {
    const error = makeAPIError({ status: 429, body: undefined, headers: new Headers() });
    expect(error).toBeInstanceOf(RateLimitError);
    expect((error as RateLimitError).retryAfter).toBeUndefined();
  });
});
