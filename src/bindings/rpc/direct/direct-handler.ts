import type { HttpRequest, HttpResponse } from "../../http/index.js";
import type { DirectRouteOptions } from "./direct-context.js";
import { answerConnectUnary, connectUnaryRoutes, isDirectConnectUnary } from "./protocol-connect/index.js";
import { answerStream, answerUnary, directGrpcProtocol, GrpcCall, STREAM_ROUTES, UNARY_ROUTES, type DirectStreamRoute, type DirectUnaryRoute } from "./protocol-grpc/index.js";

const GRPC_ROUTES = new Map<string, DirectUnaryRoute | DirectStreamRoute>([...UNARY_ROUTES, ...STREAM_ROUTES]);

/**
 * Answers gRPC and gRPC-Web (protobuf codec, uncompressed) and Connect
 * unary POSTs (JSON or binary, uncompressed) on direct paths, and hands
 * every other request to `next` (connect-node): gRPC-Web text and JSON,
 * Connect streaming and GET, compressed bodies. The service is the one
 * implementation either way; the direct paths only skip connect-node's
 * per-call machinery, because gRPC and Connect must never be this hub's
 * slow bindings.
 *
 * What a client sees is what connect-node sends for the same call: the
 * same headers, messages and trailers or error bodies, the same status
 * codes and google.rpc.Status details, decided by the same interceptor
 * logic (§7.4, §10.2).
 */
export function serveDirect<Req extends HttpRequest, Res extends HttpResponse>(options: DirectRouteOptions, next: (req: Req, res: Res) => void): (req: Req, res: Res) => void {
  const connectRoutes = connectUnaryRoutes(UNARY_ROUTES, options.readMaxBytes);
  return (req, res) => {
    const path = req.url ?? "";
    const protocol = directGrpcProtocol(req);
    const grpc = protocol ? GRPC_ROUTES.get(path) : undefined;
    if (grpc) {
      const call = new GrpcCall(options, req, res, protocol === "grpc-web");
      const answered = grpc.kind === "unary" ? answerUnary(options.service, grpc, call, options.logger) : answerStream(options.service, grpc, call, options.logger);
      return void answered.catch((e: unknown) => call.abandon(e));
    }
    const connect = isDirectConnectUnary(req) ? connectRoutes.get(path) : undefined;
    if (!connect) return next(req, res);
    answerConnectUnary(options, connect, req, res).catch((e: unknown) => {
      options.logger.error("Connect call failed", { error: e instanceof Error ? (e.stack ?? e.message) : String(e) });
      if (!res.writableEnded) res.destroy();
    });
  };
}
