/**
 * The RPC bindings (§10): Connect, gRPC and gRPC-Web, served by the direct
 * path (direct/) and by connect-node (connect-node/) for what the direct
 * path does not take; `createRpcBinding` puts them in order.
 */
export { createRpcBinding, type RpcBinding, type RpcBindingOptions } from "./rpc-handler.js";
export { rpcBinding, rpcCallScope, rpcContextValues, rpcRefusal, rpcServiceParams, toConnectError } from "./call/index.js";
