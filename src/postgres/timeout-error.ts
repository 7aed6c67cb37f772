/** The inbox's timeout error. */
import { PaymentsError, setName } from '../core/errors.js';

/**
 * The database did not finish in time: the transaction was abandoned and rolled back, unless its
 * COMMIT had already been sent (the message then says so).
 */
export class DatabaseTimeoutError extends PaymentsError {}
setName(DatabaseTimeoutError, 'DatabaseTimeoutError');
