/** The Connect / gRPC / gRPC-Web binding, served by connect-node. */
export { connectRoutes } from "./connect-routes.js";
export { toConnectError } from "./connect-errors.js";
export { accessInterceptor } from "./access-interceptor.js";
export { serviceParamsInterceptor } from "./service-params-interceptor.js";
export { guardRpcRequests } from "./rpc-request-guard.js";
