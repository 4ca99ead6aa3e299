import type { A2AErrorName } from "../../src/protocol/index.js";

/**
 * §5.4's table as the spec prints it (plus the validation and system rows
 * of §3.3.2 / §9.5), written out independently of ERROR_TABLE so that a
 * wrong row fails the tests that read it.
 */
export const SPEC_ERRORS: Record<A2AErrorName, { jsonRpc: number; grpc: string; http: number }> = {
  TaskNotFound: { jsonRpc: -32001, grpc: "NOT_FOUND", http: 404 },
  TaskNotCancelable: { jsonRpc: -32002, grpc: "FAILED_PRECONDITION", http: 400 },
  PushNotificationNotSupported: { jsonRpc: -32003, grpc: "FAILED_PRECONDITION", http: 400 },
  UnsupportedOperation: { jsonRpc: -32004, grpc: "FAILED_PRECONDITION", http: 400 },
  ContentTypeNotSupported: { jsonRpc: -32005, grpc: "INVALID_ARGUMENT", http: 400 },
  InvalidAgentResponse: { jsonRpc: -32006, grpc: "INTERNAL", http: 500 },
  ExtendedAgentCardNotConfigured: { jsonRpc: -32007, grpc: "FAILED_PRECONDITION", http: 400 },
  ExtensionSupportRequired: { jsonRpc: -32008, grpc: "FAILED_PRECONDITION", http: 400 },
  VersionNotSupported: { jsonRpc: -32009, grpc: "FAILED_PRECONDITION", http: 400 },
  InvalidParams: { jsonRpc: -32602, grpc: "INVALID_ARGUMENT", http: 400 },
  // Ours: an agent that is not hosted here answers with TaskNotFound's codes, as arbiter's does.
  AgentNotFound: { jsonRpc: -32001, grpc: "NOT_FOUND", http: 404 },
  // Ours, not the spec's: a configured limit; JSON-RPC's server-defined range as for rate limits.
  ResourceExhausted: { jsonRpc: -32000, grpc: "RESOURCE_EXHAUSTED", http: 429 },
  // Ours too (§7.4): missing or wrong bearer token; the tenancy tests walk it on every binding.
  Unauthenticated: { jsonRpc: -32000, grpc: "UNAUTHENTICATED", http: 401 },
  // Ours (§7.5): a token without the scope an operation or agent needs; test/auth/identity-provider.test.ts walks it on every binding.
  PermissionDenied: { jsonRpc: -32000, grpc: "PERMISSION_DENIED", http: 403 },
  // Ours: the store cannot be reached (PostgreSQL down); test/postgres/outage.test.ts walks it on every binding.
  Unavailable: { jsonRpc: -32000, grpc: "UNAVAILABLE", http: 503 },
  Internal: { jsonRpc: -32603, grpc: "INTERNAL", http: 500 },
};

/** The errors of §3.3.2's A2A-specific table: they carry an ErrorInfo on every binding (§9.5, §10.6, §11.6). */
export const A2A_SPECIFIC: readonly A2AErrorName[] = (Object.keys(SPEC_ERRORS) as A2AErrorName[]).filter(
  (n) => n !== "InvalidParams" && n !== "AgentNotFound" && n !== "Internal" && n !== "ResourceExhausted" && n !== "Unauthenticated" && n !== "PermissionDenied" && n !== "Unavailable",
);

/** An A2A error name as its ErrorInfo reason spells it (§5.4: UPPER_SNAKE). */
export const upperSnake = (name: string): string => name.replace(/([a-z])([A-Z])/g, "$1_$2").toUpperCase();
