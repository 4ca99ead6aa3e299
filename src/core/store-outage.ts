import { StoreUnavailableError } from "../store/index.js";
import { A2AError } from "../protocol/index.js";

/**
 * What a client is told of a store failure: an unreachable store is
 * UNAVAILABLE with a Retry-After (the change did not happen, the same call
 * may succeed shortly); anything else passes on as it is, and the bindings
 * answer a non-A2A error as Internal without its text (§3.3.2).
 */
export function clientError(e: unknown): unknown {
  if (!(e instanceof StoreUnavailableError)) return e;
  return new A2AError("Unavailable", "the task store cannot be reached; nothing was changed, retry shortly", {
    metadata: { retryAfterSeconds: String(e.retryAfterS) },
    cause: e,
  });
}
