import type { PaymentsClient } from '../client.js';

/** Base of every resource of {@link PaymentsClient}: holds the client its requests go through. */
export abstract class APIResource {
  /** The client this resource sends its requests through. */
  protected _client: PaymentsClient;

  /** @internal */
  constructor(client: PaymentsClient) {
    this._client = client;
  }
}
