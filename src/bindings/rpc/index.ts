/**
 * The RPC bindings (§10): Connect, gRPC and gRPC-Web, served by the direct
 * path (direct/) and by connect-node (connect-node/) for what the direct
 * path does not take.
 */
export { accessInterceptor, connectRoutes, serviceParamsInterceptor, v03ConnectRoutes } from "./connect-node/index.js";
export { rpcBinding, rpcCallScope, rpcContextValues, rpcRefusal, rpcServiceParams, toConnectError } from "./call/index.js";
export { guardRpcRequests } from "./request-guard.js";
export { serveDirect, type DirectRouteOptions } from "./direct/index.js";
