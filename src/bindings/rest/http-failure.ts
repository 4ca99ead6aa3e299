import { Code } from "@connectrpc/connect";

/**
 * Failures of the HTTP exchange itself, before any A2A operation is chosen:
 * they are not A2A errors (§3.3.2) and have no row in ERROR_TABLE, so their
 * statuses live here, next to the only binding that answers them.
 */
export const HTTP_FAILURES = {
  /** No route of §11.3 has this path. */
  notFound: { httpStatus: 404, grpcCode: Code.NotFound, title: "Not Found" },
  /** A route has the path but not the method (RFC 9110 §15.5.6; the answer lists `Allow`). */
  methodNotAllowed: { httpStatus: 405, grpcCode: Code.Unimplemented, title: "Method Not Allowed" },
  /** The client did not finish sending the body in time (RFC 9110 §15.5.9); the connection closes after it. */
  requestTimeout: { httpStatus: 408, grpcCode: Code.DeadlineExceeded, title: "Request Timeout" },
  /** The body is larger than the server accepts (RFC 9110 §15.5.14). */
  contentTooLarge: { httpStatus: 413, grpcCode: Code.InvalidArgument, title: "Content Too Large" },
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
