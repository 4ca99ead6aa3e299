import type { JsonObject } from "@bufbuild/protobuf";
import { Code } from "@connectrpc/connect";

/**
 * Failures of the HTTP exchange itself, before any A2A operation is chosen:
 * they are not A2A errors (§3.3.2) and have no row in ERROR_TABLE, so their
 * statuses live here, the one table every binding and route answers them from.
 */
export const HTTP_FAILURES = {
  /** RFC 9112 §3.2: the Host (or forwarded host) cannot be a URL's authority. */
  badHost: { httpStatus: 400, grpcCode: Code.InvalidArgument, title: "Bad Request" },
  /** Nothing is served at this path (no route of §11.3, no card, no console page). */
  notFound: { httpStatus: 404, grpcCode: Code.NotFound, title: "Not Found" },
  /** A route has the path but not the method (RFC 9110 §15.5.6; the answer lists `Allow`). */
  methodNotAllowed: { httpStatus: 405, grpcCode: Code.Unimplemented, title: "Method Not Allowed" },
  /** The client did not finish sending the body in time (RFC 9110 §15.5.9); the connection closes after it. */
  requestTimeout: { httpStatus: 408, grpcCode: Code.DeadlineExceeded, title: "Request Timeout" },
  /** The body is larger than the server accepts (RFC 9110 §15.5.14). */
  contentTooLarge: { httpStatus: 413, grpcCode: Code.InvalidArgument, title: "Content Too Large" },
  /** A route failed in a way nobody planned for; what went wrong stays in the log (§3.3.2). */
  internal: { httpStatus: 500, grpcCode: Code.Internal, title: "Internal Server Error" },
} as const;

/** Which HTTP-level failure. */
export type HttpFailureKind = keyof typeof HTTP_FAILURES;

/** An HTTP-level failure with what to tell the client and any headers the status calls for. */
export class HttpFailure extends Error {
  override readonly name = "HttpFailure";
  constructor(
    readonly kind: HttpFailureKind,
    message: string,
    readonly headers: Readonly<Record<string, string>> = {},
  ) {
    super(message);
  }
}

/** google.rpc.Code names are the UPPER_SNAKE spelling of connect's Code names ("FailedPrecondition" → "FAILED_PRECONDITION"). */
export function grpcStatusName(code: Code): string {
  return (Code[code] ?? "Unknown").replace(/([a-z])([A-Z])/g, "$1_$2").toUpperCase();
}

/** The message of the "nothing here" 404, the same from every route that answers it. */
export function nothingServedAt(method: string | undefined, path: string): string {
  return `nothing is served at ${method} ${path}`;
}

/**
 * The google.rpc.Status-shaped body (§11.6) of an HTTP-level failure
 * answered outside the REST binding (which adds `details` and content
 * negotiation): `code` the HTTP status, `status` the code's name.
 */
export function httpFailureBody(kind: HttpFailureKind, message: string): JsonObject {
  const row = HTTP_FAILURES[kind];
  return { error: { code: row.httpStatus, status: grpcStatusName(row.grpcCode), message } };
}
