/** The Postgres store's own error, besides the `StoreTimeoutError` every store shares. */
import { PaymentsError, setName } from '../../core/errors.js';

export { StoreTimeoutError } from '../errors.js';

/**
 * The database could not be used: the connection was refused or ended, a statement failed, or a
 * single `pg` Client died (the SDK cannot reconnect a Client it was given: pass a `pg` Pool, which
 * replaces a lost connection). Nothing the call asked for was recorded; `cause` is the driver's error.
 */
export class StoreUnavailableError extends PaymentsError {}
setName(StoreUnavailableError, 'StoreUnavailableError');
