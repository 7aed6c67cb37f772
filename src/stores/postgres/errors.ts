/** The errors of the Postgres store besides the timeout every store shares. */
import { PaymentsError, setName } from '../../core/errors.js';

/**
 * The database could not be used: the connection was refused or ended, or a single `pg` Client died
 * (a Client cannot be reconnected by the SDK: pass a `pg` Pool to have a fresh connection taken).
 * Nothing the call asked for was recorded; `cause` is the driver's error.
 */
export class StoreUnavailableError extends PaymentsError {}
setName(StoreUnavailableError, 'StoreUnavailableError');

/**
 * A store that did not answer within its `timeoutMs`. Nothing the call asked for is recorded later:
 * the call may be repeated.
 */
export class StoreTimeoutError extends PaymentsError {}
setName(StoreTimeoutError, 'StoreTimeoutError');
