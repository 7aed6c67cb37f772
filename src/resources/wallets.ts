import type { APIPromise } from '../core/api-promise.js';
import type { PaymentsClient, RequestOptions } from '../core/client.js';
import { type Wallet, WalletListSchema } from '../schemas/wallet.js';

/** Wallet balances (service-api.md §4.9). */
export class Wallets {
  readonly #client: PaymentsClient;

  /** @internal */
  constructor(client: PaymentsClient) {
    this.#client = client;
  }

  /** Lists wallet balances: `GET /api/v1/wallets`. Not paginated. */
  list(options?: RequestOptions): APIPromise<Wallet[]> {
    return this.#client.getRaw('/wallets', { result: WalletListSchema, what: 'wallets' }, options);
  }
}
