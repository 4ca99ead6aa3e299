import type { A2AError } from "./a2a-error.js";

/** The realm every challenge names. */
const REALM = 'Bearer realm="a2a-hub"';

/** A quoted-string of RFC 9110 §5.6.4, with what it cannot hold left out. */
function quoted(value: string): string {
  return `"${value.replace(/[^\x20-\x7e]|["\\]/g, "")}"`;
}

/**
 * The `WWW-Authenticate` header of an authentication or scope refusal
 * (RFC 6750 §3): a request without credentials gets the bare challenge
 * (§3.1: no error code), a bad token `invalid_token` with a description
 * that never quotes it, a token short of scopes `insufficient_scope` and
 * the scopes it needs. Empty for any other error.
 */
export function bearerChallenge(e: A2AError): Record<string, string> {
  if (e.a2a === "PermissionDenied") {
    return { "www-authenticate": `${REALM}, error="insufficient_scope", scope=${quoted(e.metadata.scope ?? "")}` };
  }
  if (e.a2a !== "Unauthenticated") return {};
  if (e.metadata.authError !== "invalid_token") return { "www-authenticate": REALM };
  return { "www-authenticate": `${REALM}, error="invalid_token", error_description=${quoted(e.message)}` };
}
