import type { Interceptor } from "@connectrpc/connect";
import { serviceParamsKey, type Logger } from "../../core/index.js";
import { EXTENSIONS_HEADER, parseExtensions, parseVersion, VERSION_HEADER } from "../http/index.js";
import { toConnectError } from "./connect-errors.js";

/**
 * §10.2: A2A-Version and A2A-Extensions travel as gRPC metadata. A version
 * this server does not speak is VersionNotSupported before the service runs
 * (§3.6.2); the activated extensions go to the service, which checks the
 * agent's required ones, and are echoed in the response header.
 */
export function serviceParamsInterceptor(logger: Logger): Interceptor {
  return (next) => async (req) => {
    let version;
    try {
      // The gRPC binding is the v1.0 proto (package lf.a2a.v1); v0.3 had its own.
      version = parseVersion(req.header.get(VERSION_HEADER) ?? undefined, ["1.0"]);
    } catch (e) {
      throw toConnectError(e, logger);
    }
    const extensions = parseExtensions(req.header.get(EXTENSIONS_HEADER) ?? undefined);
    // gRPC clients are v1.0 clients: no header means the version of the proto.
    req.contextValues.set(serviceParamsKey, { version: version ?? "1.0", extensions });
    const res = await next(req);
    if (extensions.length > 0) res.header.set(EXTENSIONS_HEADER, extensions.join(", "));
    return res;
  };
}
