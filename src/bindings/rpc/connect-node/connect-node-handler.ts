import { connectNodeAdapter } from "@connectrpc/connect-node";
import type { AccessGuard } from "../../../auth/index.js";
import type { A2AServiceApi, Logger } from "../../../core/index.js";
import { HTTP_FAILURES, httpFailureBody, nothingServedAt, sendJson, type HttpRequest, type HttpResponse } from "../../http/index.js";
import { rpcContextValues } from "../call/index.js";
import { accessInterceptor } from "./access-interceptor.js";
import { serviceParamsInterceptor } from "./service-params-interceptor.js";
import { connectRoutes } from "./v1-routes.js";
import { v03ConnectRoutes } from "./v03-routes.js";

/** What connect-node is given: the one service, who decides the caller, and the largest message it reads. */
export interface ConnectNodeOptions {
  readonly service: A2AServiceApi;
  readonly guard: AccessGuard;
  readonly logger: Logger;
  /** The same body limit as the JSON facades: connect-node would otherwise buffer up to 4 GiB per message. */
  readonly readMaxBytes: number;
}

/**
 * connect-node's adapter serving both A2A services: Connect (every form),
 * gRPC and gRPC-Web, for the calls the direct path hands on. The dispatch
 * sends it the services' method paths only, so its fallback is never the
 * way to another binding: it answers the "nothing here" 404.
 */
export function connectNodeHandler(options: ConnectNodeOptions): (req: HttpRequest, res: HttpResponse) => void {
  const { service, guard, logger, readMaxBytes } = options;
  return connectNodeAdapter({
    // lf.a2a.v1 (v1.0) and a2a.v1 (v0.3) differ by package: both services answer on the one port.
    routes: (router) => {
      connectRoutes(service, logger)(router);
      v03ConnectRoutes(service, logger)(router);
    },
    readMaxBytes,
    // Authentication first (§7.4): nothing reaches the service without a tenant.
    interceptors: [accessInterceptor(guard), serviceParamsInterceptor(logger)],
    // What a stream's transport does when its reader stops reading (one-port.ts sets it per request).
    contextValues: rpcContextValues,
    fallback: (req: HttpRequest, res: HttpResponse) => sendJson(res, HTTP_FAILURES.notFound.httpStatus, httpFailureBody("notFound", nothingServedAt(req.method, (req.url ?? "/").split("?")[0]!))),
  } as Parameters<typeof connectNodeAdapter>[0]) as (req: HttpRequest, res: HttpResponse) => void;
}
