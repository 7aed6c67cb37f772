import type { APIPromise } from '../core/api-promise.js';
import type { RequestOptions } from '../core/request-options.js';
import { APIResource } from '../core/resource.js';
import { type Wallet, walletArray } from '../schemas/wallet.js';

/** Wallet balances. */
export class Wallets extends APIResource {
  /** Lists wallet balances: `GET /api/v1/wallets`. Not paginated. */
  list(options?: RequestOptions): APIPromise<Wallet[]> {
    return this._client.getUnpaginated('/wallets', walletArray, options);
  }
}
