/**
 * The JSON-RPC 2.0 binding (§9): envelope, method table, v1.0 and v0.3
 * dialects, SSE streams. Mount `createJsonRpcHandler` on `POST /`.
 */
export { createJsonRpcHandler, DEFAULT_MAX_BATCH_SIZE, type JsonRpcHandler, type JsonRpcHandlerOptions, type JsonRpcRefusal } from "./jsonrpc-handler.js";
export { checkEnvelope, ENVELOPE_ERRORS, EnvelopeError, type JsonRpcError, type JsonRpcId, type JsonRpcRequest, type JsonRpcResponse } from "../../protocol/index.js";
export { toJsonRpcError } from "./jsonrpc-errors.js";
export { lookupMethod, methodNames } from "./method-table.js";
// The dialects live in the protocol leaf (the client reads them too); this door keeps them reachable here.
export { dialectV03, dialectV1 } from "../../protocol/index.js";
export type * from "../../protocol/v03-types.js";
