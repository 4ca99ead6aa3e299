/**
 * The A2A protocol facts server and client share, and nothing else: the
 * error type and its one binding table (§5.4), task-state rules, version
 * parsing (§3.6), the JSON-RPC 2.0 envelope, ProtoJSON reading/writing and
 * the v1.0/v0.3 JSON dialects. A leaf: it imports only gen/, the protobuf
 * codec below it (src/codec) and libraries, so the client (src/client)
 * works against any A2A server without loading server code.
 */
export { A2AError, invalidParams, isA2AError, taskNotFound, type A2AErrorOptions, type FieldViolation } from "./a2a-error.js";
export { bearerChallenge } from "./bearer-challenge.js";
export { A2A_ERROR_DOMAIN, ERROR_TABLE, errorRow, type A2AErrorName, type ErrorRow } from "./error-table.js";
export { canTransition, INTERRUPTED_STATES, isInterrupted, isSettled, isTerminal, stateName, TERMINAL_STATES, type StateSpelling } from "./task-state.js";
export { EXTENSIONS_HEADER, parseExtensions, parseVersion, SUPPORTED_VERSIONS, VERSION_HEADER, type A2AVersion } from "./version.js";
export {
  checkEnvelope,
  ENVELOPE_ERRORS,
  EnvelopeError,
  errorResponse,
  isJsonRpcId,
  resultResponse,
  type EnvelopeCheck,
  type EnvelopeErrorKind,
  type JsonRpcError,
  type JsonRpcId,
  type JsonRpcRequest,
  type JsonRpcResponse,
} from "./jsonrpc-envelope.js";
export { readProtoJson, wireJson, writeProtoJson, type WireJsonOptions } from "./proto-json.js";
export { OPERATION_LIST, OPERATIONS, type Operation, type OperationName, type RestVerb, type V03Dialect } from "./operations.js";
export * as dialectV03 from "./dialect-v03.js";
export { V03_RPCS, V03Service, type V03Rpc } from "./v03-rpcs.js";
export * as dialectV1 from "./dialect-v1.js";
export type * from "./v03-types.js";
