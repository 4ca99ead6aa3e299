import { A2AError } from "../protocol/index.js";

/**
 * Failures of the exchange rather than of the A2A operation: the server was
 * unreachable, too slow, refused the credentials, or the call was aborted.
 * They have no row in ERROR_TABLE (the spec names none, §3.3.2), so they are
 * A2AError `Internal` with this kind under the metadata key below; callers
 * that care (the CLI, the remote agent) read it with `clientFailureOf`.
 */
export type ClientFailureKind = "UNAVAILABLE" | "DEADLINE_EXCEEDED" | "UNAUTHENTICATED" | "PERMISSION_DENIED" | "RESOURCE_EXHAUSTED" | "CANCELED" | "HTTP_STATUS";

/** The metadata key of an A2AError that carries a ClientFailureKind. */
export const CLIENT_FAILURE_KEY = "clientFailure";

/** An A2AError for a failure of the exchange. */
export function clientFailure(kind: ClientFailureKind, message: string, cause?: unknown, metadata: Record<string, string> = {}): A2AError {
  return new A2AError("Internal", message, { metadata: { ...metadata, [CLIENT_FAILURE_KEY]: kind }, cause });
}

/** The exchange failure an error stands for, or undefined when it is an A2A error the agent answered. */
export function clientFailureOf(e: unknown): ClientFailureKind | undefined {
  return e instanceof A2AError ? (e.metadata[CLIENT_FAILURE_KEY] as ClientFailureKind | undefined) : undefined;
}

/** §3.3.2 InvalidAgentResponse: the agent answered something that is not A2A. */
export function invalidResponse(message: string, cause?: unknown): A2AError {
  return new A2AError("InvalidAgentResponse", message, { cause });
}
