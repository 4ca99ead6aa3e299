/** The Connect / gRPC / gRPC-Web binding, served by connect-node. */
export { connectRoutes } from "./connect-routes.js";
export { v03ConnectRoutes } from "./v03-routes.js";
export { toConnectError } from "./connect-errors.js";
export { rpcContextValues } from "./context-values.js";
export { accessInterceptor, rpcBinding, rpcCallScope, rpcRefusal } from "./access-interceptor.js";
export { rpcServiceParams, serviceParamsInterceptor } from "./service-params-interceptor.js";
export { guardRpcRequests } from "./rpc-request-guard.js";
export { serveDirect } from "./direct-path.js";
export type { DirectRouteOptions } from "./direct-context.js";
