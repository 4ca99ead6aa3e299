/** Connect unary POSTs (JSON or binary, uncompressed) on the direct path. */
export { answerConnectUnary, connectUnaryRoutes, isDirectConnectUnary, type ConnectUnaryRoute } from "./unary-handler.js";
