/** The errors of `payments-sdk/stores`. */
import { PaymentsError, setName } from '../core/errors.js';

/**
 * A bounded store that cannot take one more key: every slot holds a live claim or a settled key
 * still inside its retention, and none of those is ever dropped to make room. A webhook endpoint
 * answers 503 (the service delivers again later); a bulk payout stops before sending the rows it
 * could not claim.
 */
export class StoreFullError extends PaymentsError {}
setName(StoreFullError, 'StoreFullError');

/**
 * A store that did not answer within its `timeoutMs`. Nothing the call asked for is recorded later:
 * the call may be repeated.
 */
export class StoreTimeoutError extends PaymentsError {}
setName(StoreTimeoutError, 'StoreTimeoutError');

/**
 * The store's database could not be used: the connection was refused or ended, a statement failed,
 * or a single `pg` Client died (the SDK cannot reconnect a Client it was given: pass a `pg` Pool,
 * which replaces a lost connection). Nothing the call asked for was recorded; `cause` is the
 * driver's error.
 */
export class StoreUnavailableError extends PaymentsError {}
setName(StoreUnavailableError, 'StoreUnavailableError');
