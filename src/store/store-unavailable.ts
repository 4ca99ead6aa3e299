/**
 * The store could not be reached: the database server is down or
 * restarting, or the network to it is. Whatever the call was doing did not
 * happen; the same call may succeed once the store is back, so core
 * answers UNAVAILABLE (HTTP 503 with Retry-After) instead of an internal
 * error.
 */
export class StoreUnavailableError extends Error {
  override readonly name = "StoreUnavailableError";

  /** How soon a retry is worth it, in seconds. */
  readonly retryAfterS: number;

  constructor(message: string, options: { cause?: unknown; retryAfterS?: number } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.retryAfterS = options.retryAfterS ?? 1;
  }
}
