import { A2AService } from "../../../gen/a2a/v1/a2a_pb.js";
import type { AccessGuard } from "../../auth/index.js";
import type { A2AServiceApi, Logger } from "../../core/index.js";
import { keptIdentification, type HttpRequest, type HttpResponse } from "../http/index.js";
import { V03Service } from "../../protocol/index.js";
import { rpcBinding, rpcRefusal } from "./call/index.js";
import { connectNodeHandler } from "./connect-node/index.js";
import { serveDirect } from "./direct/index.js";
import { guardRpcRequests } from "./request-guard.js";

/** What the RPC bindings need: the one service, the guard, and the largest request message read. */
export interface RpcBindingOptions {
  readonly service: A2AServiceApi;
  readonly guard: AccessGuard;
  readonly logger: Logger;
  readonly readMaxBytes: number;
}

/** Connect, gRPC and gRPC-Web (§10) on the one port. */
export interface RpcBinding {
  /** Whether a request path (without its query) is a method of one of the A2A services (lf.a2a.v1, a2a.v1). */
  owns(path: string): boolean;
  /** Answers a request whose path it owns. */
  serve(req: HttpRequest, res: HttpResponse): void;
}

/** The request path of every method of both services: `/<package>.A2AService/<Method>`. */
const RPC_PATHS: ReadonlySet<string> = new Set([A2AService, V03Service].flatMap((s) => s.methods.map((m) => `/${s.typeName}/${m.name}`)));

/**
 * The RPC bindings, in the order a call meets them: the request guard
 * (clear 405/415 answers, a call without valid credentials refused from
 * its headers), then the direct path (uncompressed gRPC, gRPC-Web with the
 * protobuf codec, Connect unary POSTs), then connect-node for the rest.
 */
export function createRpcBinding(options: RpcBindingOptions): RpcBinding {
  const { guard } = options;
  const direct = serveDirect(options, connectNodeHandler(options));
  // A gRPC or unary Connect call whose caller was not identified is refused from its headers, before its body is read.
  const unauthenticated = (req: HttpRequest) => {
    const id = guard.authRequired ? keptIdentification(req) : undefined;
    return id && !id.ok ? rpcRefusal(guard, id, rpcBinding(req.headers["content-type"]), req.socket?.remoteAddress) : undefined;
  };
  return { owns: (path) => RPC_PATHS.has(path), serve: guardRpcRequests(direct, unauthenticated) };
}
