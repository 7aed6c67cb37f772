/**
 * Errors of the testing kit. {@link MockServiceError} is what a test sees when it drives the mock
 * wrongly (settling a payment that is not pending, paying an expired session); {@link HttpAnswer}
 * is internal: an HTTP answer the mock service gives instead of a resource.
 */
import { PaymentsError, setName } from '../core/errors.js';
import type { FieldErrors } from './field-rules.js';

/**
 * Thrown by the mock's actions (`settlePayment`, `paySession`, `payPaymentLink`…) when the move is
 * not one the service would make, e.g. settling a payment that is already `succeeded`. When the
 * service would refuse with a validation error (a payment-link amount below `minimum_amount`),
 * `errors` holds the field messages.
 */
export class MockServiceError extends PaymentsError {
  /** Field → messages, when the refusal is a validation error. */
  readonly errors?: FieldErrors;

  constructor(message: string, errors?: FieldErrors) {
    super(message);
    if (errors) this.errors = errors;
  }
}
setName(MockServiceError, 'MockServiceError');

/** An HTTP answer (status and JSON body) thrown from deep inside a handler. @internal */
export class HttpAnswer {
  readonly status: number;
  readonly body: unknown;
  readonly headers: Record<string, string>;

  constructor(status: number, body: unknown, headers: Record<string, string> = {}) {
    this.status = status;
    this.body = body;
    this.headers = headers;
  }
}
