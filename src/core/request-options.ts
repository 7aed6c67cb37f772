/** The options every call takes as its last argument, apart from the client (resources use them too). */

/** Per-call options: the optional last argument of every method. */
export interface RequestOptions {
  /**
   * Key for a creation; default a fresh UUID v4. The same key is sent on every retry of the call.
   * 1 to 255 printable ASCII characters, without leading or trailing spaces (it travels in a header).
   */
  idempotencyKey?: string;
  /** Milliseconds per attempt, for this call. */
  timeout?: number;
  /** Retries for this call. */
  maxRetries?: number;
  /** Aborts the call (and its retries). */
  signal?: AbortSignal;
  /** Extra headers for this call. */
  headers?: Record<string, string>;
}
