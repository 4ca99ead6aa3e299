/** gRPC and gRPC-Web with the protobuf codec on the direct path: the call, its envelope, its unary and stream handlers. */
export { directGrpcProtocol, GrpcCall } from "./grpc-call.js";
export { answerStream, STREAM_ROUTES, type DirectStreamRoute } from "./stream-handler.js";
export { answerUnary, UNARY_ROUTES, type DirectUnaryRoute } from "./unary-handler.js";
