import type { HttpRequest, HttpResponse } from "../http/index.js";
import { GrpcCall, isDirectGrpc, type GrpcRouteOptions } from "./grpc-call.js";
import { answerStream, STREAM_ROUTES, type StreamRoute } from "./grpc-stream-route.js";
import { answerUnary, UNARY_ROUTES, type UnaryRoute } from "./grpc-unary-route.js";

const ROUTES = new Map<string, UnaryRoute | StreamRoute>([...UNARY_ROUTES, ...STREAM_ROUTES]);

/**
 * Answers plain gRPC (protobuf codec, HTTP/2, uncompressed) on a direct
 * path and hands every other request to `next` (connect-node): gRPC is the
 * binding this hub is built around, so it must never be its slow path.
 *
 * What a client sees is what connect-node sends for the same call: the
 * same headers, messages and trailers, the same status codes and
 * google.rpc.Status details (the same interceptor logic decides scope and
 * service parameters, §7.4, §10.2).
 */
export function serveGrpcDirect<Req extends HttpRequest, Res extends HttpResponse>(
  options: GrpcRouteOptions,
  next: (req: Req, res: Res) => void,
): (req: Req, res: Res) => void {
  return (req, res) => {
    const route = isDirectGrpc(req) ? ROUTES.get(req.url ?? "") : undefined;
    if (!route) return next(req, res);
    const call = new GrpcCall(options, req, res);
    const answered = route.kind === "unary" ? answerUnary(options.service, route, call, options.logger) : answerStream(options.service, route, call, options.logger);
    answered.catch((e: unknown) => call.abandon(e));
  };
}
