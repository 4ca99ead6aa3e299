import { A2AError } from "../protocol/index.js";
import type { AccessDecision } from "./access-guard.js";

/** What a refused request becomes on every binding: an error-table row, and the headers HTTP adds. */
export interface AccessRefusal {
  readonly error: A2AError;
  /** WWW-Authenticate (RFC 6750 §3) or Retry-After (RFC 9110 §10.2.3). */
  readonly headers: Readonly<Record<string, string>>;
}

const WWW_AUTHENTICATE = { "www-authenticate": 'Bearer realm="a2a-hub"' };

/**
 * A refused request (§7.4: no valid token; over the tenant's rate limit)
 * as an A2A error, so each binding maps it through the one error table,
 * as it maps any other: the same code, status and ErrorInfo everywhere.
 */
export function accessRefusal(d: AccessDecision & { ok: false }): AccessRefusal {
  if (d.why === "rate-limited") {
    const error = new A2AError("ResourceExhausted", `rate limit exceeded; retry after ${d.retryAfterS} s`, { metadata: { retryAfterSeconds: String(d.retryAfterS) } });
    return { error, headers: { "retry-after": String(d.retryAfterS) } };
  }
  return { error: new A2AError("Unauthenticated", "a valid bearer token is required"), headers: WWW_AUTHENTICATE };
}
