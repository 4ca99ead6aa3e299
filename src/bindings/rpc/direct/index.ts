/** The direct path: gRPC, gRPC-Web and Connect unary calls answered without connect-node's per-call machinery. */
export { serveDirect } from "./direct-handler.js";
export type { DirectRouteOptions } from "./direct-context.js";
