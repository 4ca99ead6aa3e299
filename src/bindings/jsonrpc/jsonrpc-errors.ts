import { errorRow, isA2AError, type Logger } from "../../core/index.js";
import { errorDetails } from "../http/index.js";
import { bearerChallenge, EnvelopeError, type JsonRpcError } from "../../protocol/index.js";

/**
 * §9.5: any failure as a JSON-RPC error object. Envelope errors keep their
 * JSON-RPC codes; an A2AError takes its code from the §5.4 table with its
 * google.rpc details in `data`; anything else is logged and answered as
 * Internal, with no message or stack of ours on the wire (§3.3.2).
 */
export function toJsonRpcError(e: unknown, logger: Logger, method?: string): JsonRpcError {
  if (e instanceof EnvelopeError) return e.toJsonRpc();
  if (isA2AError(e)) {
    const row = e.row;
    if (e.a2a === "Internal") {
      logger.error("JSON-RPC call failed internally", { method, error: e.stack ?? e.message });
      return { code: row.jsonRpcCode, message: row.title };
    }
    const data = errorDetails(e);
    return data.length > 0 ? { code: row.jsonRpcCode, message: e.message, data } : { code: row.jsonRpcCode, message: e.message };
  }
  logger.error("JSON-RPC call failed unexpectedly", { method, error: e instanceof Error ? (e.stack ?? e.message) : String(e) });
  const internal = errorRow("Internal");
  return { code: internal.jsonRpcCode, message: internal.title };
}

/**
 * The HTTP status and headers of a refusal the JSON-RPC binding answers at
 * the HTTP level, as it answers a missing token (RFC 6750 §3.1): a token
 * without the scope a call needs is 403 with its `insufficient_scope`
 * challenge. Undefined for every other error (HTTP 200, §9.5).
 */
export function httpLevelRefusal(e: unknown): { readonly status: number; readonly headers: Readonly<Record<string, string>> } | undefined {
  if (!isA2AError(e) || (e.a2a !== "PermissionDenied" && e.a2a !== "Unauthenticated")) return undefined;
  return { status: e.row.httpStatus, headers: bearerChallenge(e) };
}
