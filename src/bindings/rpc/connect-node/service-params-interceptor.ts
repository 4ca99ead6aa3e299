import type { Interceptor } from "@connectrpc/connect";
import { serviceParamsKey, type Logger } from "../../../core/index.js";
import { EXTENSIONS_HEADER, VERSION_HEADER } from "../../http/index.js";
import { V03Service } from "../../../protocol/index.js";
import { rpcServiceParams } from "../call/index.js";

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
