import type { Logger, ServiceParams } from "../../../core/index.js";
import { parseExtensions, parseVersion, type A2AVersion } from "../../http/index.js";
import { toConnectError } from "./connect-errors.js";

/**
 * The service parameters of an RPC from its metadata, or the ConnectError
 * that refuses its version. Shared by connect-node's interceptor and the direct
 * path that answers without connect-node (direct/direct-context.ts).
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
