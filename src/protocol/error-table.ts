import { Code } from "@connectrpc/connect";

/** The A2A error names of §3.3.2, without the "Error" suffix, plus InvalidParams for validation failures. */
export type A2AErrorName =
  | "TaskNotFound"
  | "TaskNotCancelable"
  | "PushNotificationNotSupported"
  | "UnsupportedOperation"
  | "ContentTypeNotSupported"
  | "InvalidAgentResponse"
  | "ExtendedAgentCardNotConfigured"
  | "ExtensionSupportRequired"
  | "VersionNotSupported"
  | "InvalidParams"
  | "AgentNotFound"
  | "ResourceExhausted"
  | "Unauthenticated"
  | "PermissionDenied"
  | "Unavailable"
  | "Internal";

/** One row of the binding table: how one A2A error looks on each binding. */
export interface ErrorRow {
  /** google.rpc.ErrorInfo reason, UPPER_SNAKE without "Error" (§10.6). */
  readonly reason: string;
  /** JSON-RPC error code (§5.4, §9.5). */
  readonly jsonRpcCode: number;
  /** gRPC / Connect status code (§5.4). */
  readonly grpcCode: Code;
  /** HTTP status for the REST binding (§5.4, §11.6). */
  readonly httpStatus: number;
  /** Short title for RFC 9457 bodies and logs. */
  readonly title: string;
}

/**
 * §5.4 of v1.0.1: the only place where binding codes for A2A errors are written down.
 * v1.0.1 maps every A2A error a client can fix or cannot retry to gRPC
 * FAILED_PRECONDITION (or INVALID_ARGUMENT) and HTTP 400, and InvalidAgentResponse
 * to INTERNAL / 500; the ErrorInfo reason tells errors with one status apart (§11.6).
 */
export const ERROR_TABLE: Readonly<Record<A2AErrorName, ErrorRow>> = {
  TaskNotFound: { reason: "TASK_NOT_FOUND", jsonRpcCode: -32001, grpcCode: Code.NotFound, httpStatus: 404, title: "Task not found" },
  TaskNotCancelable: { reason: "TASK_NOT_CANCELABLE", jsonRpcCode: -32002, grpcCode: Code.FailedPrecondition, httpStatus: 400, title: "Task cannot be canceled" },
  PushNotificationNotSupported: { reason: "PUSH_NOTIFICATION_NOT_SUPPORTED", jsonRpcCode: -32003, grpcCode: Code.FailedPrecondition, httpStatus: 400, title: "Push notifications are not supported" },
  UnsupportedOperation: { reason: "UNSUPPORTED_OPERATION", jsonRpcCode: -32004, grpcCode: Code.FailedPrecondition, httpStatus: 400, title: "This operation is not supported" },
  ContentTypeNotSupported: { reason: "CONTENT_TYPE_NOT_SUPPORTED", jsonRpcCode: -32005, grpcCode: Code.InvalidArgument, httpStatus: 400, title: "Incompatible content types" },
  InvalidAgentResponse: { reason: "INVALID_AGENT_RESPONSE", jsonRpcCode: -32006, grpcCode: Code.Internal, httpStatus: 500, title: "Invalid agent response" },
  ExtendedAgentCardNotConfigured: { reason: "EXTENDED_AGENT_CARD_NOT_CONFIGURED", jsonRpcCode: -32007, grpcCode: Code.FailedPrecondition, httpStatus: 400, title: "Extended agent card not configured" },
  ExtensionSupportRequired: { reason: "EXTENSION_SUPPORT_REQUIRED", jsonRpcCode: -32008, grpcCode: Code.FailedPrecondition, httpStatus: 400, title: "Extension support required" },
  VersionNotSupported: { reason: "VERSION_NOT_SUPPORTED", jsonRpcCode: -32009, grpcCode: Code.FailedPrecondition, httpStatus: 400, title: "Protocol version not supported" },
  // JSON-RPC 2.0 §5.1 and §3.3.2 "Validation Errors".
  InvalidParams: { reason: "INVALID_PARAMS", jsonRpcCode: -32602, grpcCode: Code.InvalidArgument, httpStatus: 400, title: "Invalid parameters" },
  // The agent a call names is not hosted here, or not one the caller may use (§3.3.2 keeps the
  // two alike). Not an A2A error: TaskNotFound's codes, as arbiter answers an unknown agent, with
  // a reason of its own so that a client can tell a wrong agent from a wrong task.
  AgentNotFound: { reason: "AGENT_NOT_FOUND", jsonRpcCode: -32001, grpcCode: Code.NotFound, httpStatus: 404, title: "Agent not found" },
  // A configured limit of the server (tasks in flight, open streams) is reached. Not an
  // A2A error: JSON-RPC's server-defined range (-32000, as for rate limits), gRPC's and HTTP's own codes.
  ResourceExhausted: { reason: "RESOURCE_EXHAUSTED", jsonRpcCode: -32000, grpcCode: Code.ResourceExhausted, httpStatus: 429, title: "Limit reached" },
  // §7.4: no valid credentials. Not an A2A error: HTTP 401 (with WWW-Authenticate), gRPC's own
  // code, and JSON-RPC's server-defined range, as for rate limits.
  Unauthenticated: { reason: "UNAUTHENTICATED", jsonRpcCode: -32000, grpcCode: Code.Unauthenticated, httpStatus: 401, title: "Authentication required" },
  // §7.5: authenticated, but without the scope the operation or the agent needs (RFC 6750 §3.1
  // insufficient_scope). Not an A2A error: HTTP 403, gRPC's own code, JSON-RPC's server-defined range.
  PermissionDenied: { reason: "PERMISSION_DENIED", jsonRpcCode: -32000, grpcCode: Code.PermissionDenied, httpStatus: 403, title: "Insufficient scope" },
  // The store cannot be reached (a PostgreSQL server restarting, the network to it down): the
  // change did not happen and the client may retry. Not an A2A error: gRPC's and HTTP's own
  // codes (503 with Retry-After), and JSON-RPC's server-defined range, as for rate limits.
  Unavailable: { reason: "UNAVAILABLE", jsonRpcCode: -32000, grpcCode: Code.Unavailable, httpStatus: 503, title: "Service unavailable" },
  // §3.3.2 "System Errors": never carries internals to the client.
  Internal: { reason: "INTERNAL", jsonRpcCode: -32603, grpcCode: Code.Internal, httpStatus: 500, title: "Internal error" },
};

/** The domain every A2A ErrorInfo carries (§10.6). */
export const A2A_ERROR_DOMAIN = "a2a-protocol.org";

/** The row for an error name. */
export function errorRow(name: A2AErrorName): ErrorRow {
  return ERROR_TABLE[name];
}
