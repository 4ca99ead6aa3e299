import { A2AError, bearerChallenge } from "../protocol/index.js";
import type { AccessDecision } from "./access-guard.js";

/** What a refused request becomes on every binding: an error-table row, and the headers HTTP adds. */
export interface AccessRefusal {
  readonly error: A2AError;
  /** WWW-Authenticate (RFC 6750 §3) or Retry-After (RFC 9110 §10.2.3). */
  readonly headers: Readonly<Record<string, string>>;
}

/**
 * A refused request (§7.4: no valid token; over the tenant's rate limit)
 * as an A2A error, so each binding maps it through the one error table,
 * as it maps any other: the same code, status and ErrorInfo everywhere.
 * The message says what was wrong with the credential, never what it was.
 */
export function accessRefusal(d: AccessDecision & { ok: false }): AccessRefusal {
  if (d.why === "rate-limited") {
    const error = new A2AError("ResourceExhausted", `rate limit exceeded; retry after ${d.retryAfterS} s`, { metadata: { retryAfterSeconds: String(d.retryAfterS) } });
    return { error, headers: { "retry-after": String(d.retryAfterS) } };
  }
  const refusal = d.why === "unauthenticated" ? d.refusal : { reason: "missing" as const, message: "a valid bearer token is required" };
  // RFC 6750 §3.1: a request that sent no credentials is told how to authenticate, with no error code.
  const metadata: Record<string, string> = refusal.reason === "missing" ? { reason: refusal.reason } : { reason: refusal.reason, authError: "invalid_token" };
  const error = new A2AError("Unauthenticated", refusal.reason === "missing" ? "a valid bearer token is required" : refusal.message, { metadata });
  return { error, headers: bearerChallenge(error) };
}

/** A scope refusal (§7.5, RFC 6750 §3.1 insufficient_scope): 403 / PERMISSION_DENIED with the scopes that are needed. */
export function scopeRefusal(missing: readonly string[], operation: string, agentId: string): A2AError {
  const scope = missing.join(" ");
  return new A2AError("PermissionDenied", `${operation} on agent ${agentId} needs the scope${missing.length > 1 ? "s" : ""} ${scope}`, { metadata: { scope, authError: "insufficient_scope" } });
}
