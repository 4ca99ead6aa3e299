import type { Interceptor } from "@connectrpc/connect";
import { serviceParamsKey, type Logger, type ServiceParams } from "../../core/index.js";
import { EXTENSIONS_HEADER, parseExtensions, parseVersion, VERSION_HEADER, type A2AVersion } from "../http/index.js";
import { V03Service } from "../../protocol/index.js";
import { toConnectError } from "./connect-errors.js";

/**
 * §10.2: A2A-Version and A2A-Extensions travel as gRPC metadata. A version
 * this server does not speak is VersionNotSupported before the service runs
 * (§3.6.2); the activated extensions go to the service, which checks the
 * agent's required ones, and are echoed in the response header.
 */
export function serviceParamsInterceptor(logger: Logger): Interceptor {
  return (next) => async (req) => {
    const legacy = req.service.typeName === V03Service.typeName;
    const params = rpcServiceParams(req.header.get(VERSION_HEADER), req.header.get(EXTENSIONS_HEADER), logger, legacy ? "0.3" : "1.0");
    req.contextValues.set(serviceParamsKey, params);
    const res = await next(req);
    if (params.extensions.length > 0) res.header.set(EXTENSIONS_HEADER, params.extensions.join(", "));
    return res;
  };
}

/**
 * The service parameters of an RPC from its metadata, or the ConnectError
 * that refuses its version. Shared by the interceptor and the gRPC stream
 * path that answers without connect-node (grpc-stream-route.ts).
 */
export function rpcServiceParams(version: string | null | undefined, extensions: string | null | undefined, logger: Logger, proto: A2AVersion = "1.0"): ServiceParams {
  let v;
  try {
    // Each proto is one version: lf.a2a.v1 is v1.0, a2a.v1 is v0.3 (§3.6.2).
    v = parseVersion(version ?? undefined, [proto]);
  } catch (e) {
    throw toConnectError(e, logger);
  }
  // No header means the version of the proto the client called.
  return { version: v ?? proto, extensions: parseExtensions(extensions ?? undefined) };
}
