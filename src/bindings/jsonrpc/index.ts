/**
 * The JSON-RPC 2.0 binding (§9): envelope, method table, v1.0 and v0.3
 * dialects, SSE streams. Mount `createJsonRpcHandler` on `POST /`.
 */
export { createJsonRpcHandler, DEFAULT_MAX_BATCH_SIZE, type JsonRpcHandler, type JsonRpcHandlerOptions, type JsonRpcRefusal } from "./jsonrpc-handler.js";
export { checkEnvelope, ENVELOPE_ERRORS, EnvelopeError, type JsonRpcError, type JsonRpcId, type JsonRpcRequest, type JsonRpcResponse } from "./jsonrpc-envelope.js";
export { toJsonRpcError } from "./jsonrpc-errors.js";
export { lookupMethod, methodNames } from "./method-table.js";
export * as dialectV03 from "./dialect-v03.js";
export * as dialectV1 from "./dialect-v1.js";
export type * from "./v03-types.js";
