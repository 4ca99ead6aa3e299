/** The RPCs connect-node serves: both A2A services on its router, with the interceptors that admit each call. */
export { accessInterceptor } from "./access-interceptor.js";
export { connectNodeHandler, type ConnectNodeOptions } from "./connect-node-handler.js";
export { serviceParamsInterceptor } from "./service-params-interceptor.js";
export { connectRoutes } from "./v1-routes.js";
export { v03ConnectRoutes } from "./v03-routes.js";
