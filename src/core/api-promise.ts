/**
 * `APIPromise<T>`: the promise every call returns. It resolves to the parsed
 * data, and `.withResponse()` gives the raw `Response` beside it, so metadata never pollutes payloads.
 */

/** What `.withResponse()` resolves to. */
export interface WithResponse<T> {
  /** The parsed, validated data (what the promise itself resolves to). */
  data: T;
  /**
   * The raw HTTP response: status, headers, URL. Its body was already read into `data`: reading it
   * again throws.
   */
  response: Response;
  /** The `Idempotency-Key` that was sent, on the four creations. */
  idempotencyKey?: string;
  /** `true` when a creation was answered `200`: an idempotent replay, nothing new was created. */
  replayed: boolean;
}

/** A `Promise<T>` with {@link APIPromise.withResponse}. The request starts when the call is made. */
export class APIPromise<T> extends Promise<T> {
  readonly #raw: Promise<WithResponse<T>>;
  /** The data alone, derived from the raw promise at the first `then`. */
  #data?: Promise<T>;

  /** @internal Built by the client; merchants receive it from resource methods. */
  constructor(raw: Promise<WithResponse<T>>) {
    // The base promise is only a placeholder: `then` reads `#raw`. (As openai-node's APIPromise.)
    super((resolve) => resolve(undefined as T));
    this.#raw = raw;
    // A call whose promise is never awaited must not crash the process with an unhandled
    // rejection; anyone who awaits still gets the error through `then` below.
    raw.catch(() => {});
  }

  /**
   * Derived promises are plain `Promise`s: `then`/`catch`/`finally` on an APIPromise return a
   * `Promise`. The inherited `catch` and `finally` call {@link then}, as the language defines them,
   * and `finally` builds its promise with this species (an APIPromise cannot be built from an executor).
   */
  static override get [Symbol.species]() {
    return Promise;
  }

  /** Resolves to `{ data, response, idempotencyKey, replayed }`. */
  withResponse(): Promise<WithResponse<T>> {
    return this.#raw;
  }

  override then<R1 = T, R2 = never>(
    onfulfilled?: ((value: T) => R1 | PromiseLike<R1>) | null,
    onrejected?: ((reason: unknown) => R2 | PromiseLike<R2>) | null,
  ): Promise<R1 | R2> {
    this.#data ??= this.#raw.then((r) => r.data);
    return this.#data.then(onfulfilled, onrejected);
  }
}
