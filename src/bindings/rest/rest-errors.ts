import type { JsonObject } from "@bufbuild/protobuf";
import { A2AError, isA2AError, type Logger } from "../../core/index.js";
import { bearerChallenge } from "../../protocol/index.js";
import { errorDetails, grpcStatusName, HTTP_FAILURES, HttpFailure, type ErrorDetail } from "../http/index.js";

/** Where the RFC 9457 `type` URIs of A2A errors live (v1.0 draft §5.4). */
export const A2A_ERROR_TYPE_BASE = "https://a2a-protocol.org/errors/";

/**
 * Any failure as the REST binding answers it, in a form both error bodies
 * are written from: the google.rpc.Status of §11.6 and RFC 9457 problem
 * details.
 */
export interface RestFailure {
  /** The HTTP status: ERROR_TABLE's httpStatus for an A2A error (§5.4). */
  readonly httpStatus: number;
  /** The google.rpc.Code name of ERROR_TABLE's grpcCode, e.g. "NOT_FOUND" (§11.6 `error.status`). */
  readonly status: string;
  /** Human-readable; for internal failures never ours (§3.3.2). */
  readonly message: string;
  /** ErrorInfo / BadRequest entries in ProtoJSON `Any` form (§11.6). */
  readonly details: readonly ErrorDetail[];
  /** RFC 9457 `type`: the A2A error's URI, or about:blank for HTTP-level failures. */
  readonly type: string;
  /** RFC 9457 `title`. */
  readonly title: string;
  /** The ErrorInfo reason of an A2A error, repeated as a problem extension member. */
  readonly reason?: string;
  /** RFC 9457 extension members: the error's metadata and field violations. */
  readonly extensions: JsonObject;
  /** Response headers the status calls for (e.g. `Allow` on 405). */
  readonly headers: Readonly<Record<string, string>>;
}

/**
 * §11.6, §5.4: maps a failure through ERROR_TABLE (A2A errors) or
 * HTTP_FAILURES (the exchange itself). Anything else is logged and answered
 * as Internal, with no message or stack of ours on the wire.
 */
export function toRestFailure(e: unknown, logger: Logger, operation?: string): RestFailure {
  if (isA2AError(e)) {
    if (e.a2a === "Internal") logger.error("REST call failed internally", { operation, error: e.stack ?? e.message });
    return a2aFailure(e);
  }
  if (e instanceof HttpFailure) {
    const row = HTTP_FAILURES[e.kind];
    return {
      httpStatus: row.httpStatus,
      status: grpcStatusName(row.grpcCode),
      message: e.message,
      details: [],
      type: "about:blank",
      title: row.title,
      extensions: {},
      headers: e.headers,
    };
  }
  logger.error("REST call failed unexpectedly", { operation, error: e instanceof Error ? (e.stack ?? e.message) : String(e) });
  return a2aFailure(new A2AError("Internal", "internal error"));
}

function a2aFailure(e: A2AError): RestFailure {
  const row = e.row;
  // §3.3.2 System Errors: what went wrong inside stays in the log.
  const internal = e.a2a === "Internal";
  const extensions: JsonObject = internal ? {} : { ...e.metadata };
  if (e.violations.length > 0) extensions.errors = e.violations.map((v) => ({ field: v.field, message: v.description }));
  return {
    httpStatus: row.httpStatus,
    status: grpcStatusName(row.grpcCode),
    message: internal ? row.title : e.message,
    details: errorDetails(e),
    type: `${A2A_ERROR_TYPE_BASE}${row.reason.toLowerCase().replaceAll("_", "-")}`,
    title: row.title,
    reason: row.reason,
    extensions,
    // RFC 9110 §10.2.3: how soon a retry may succeed (rate limits, an unreachable store).
    // RFC 6750 §3: how to authenticate, or which scope is missing.
    headers: { ...(e.metadata.retryAfterSeconds ? { "retry-after": e.metadata.retryAfterSeconds } : {}), ...bearerChallenge(e) },
  };
}

/** §11.6: the google.rpc.Status JSON body; `code` is the HTTP status, as in the §11.6 example. */
export function statusBody(f: RestFailure): JsonObject {
  return { error: { code: f.httpStatus, status: f.status, message: f.message, details: [...f.details] } };
}

/**
 * RFC 9457 problem details: the standard members, the A2A reason, then the
 * error's metadata and field violations as extension members, which never
 * replace a standard one (RFC 9457 §3.2).
 */
export function problemBody(f: RestFailure): JsonObject {
  const body: JsonObject = { type: f.type, title: f.title, status: f.httpStatus, detail: f.message };
  if (f.reason !== undefined) body.reason = f.reason;
  for (const [k, v] of Object.entries(f.extensions)) if (!(k in body)) body[k] = v;
  return body;
}
