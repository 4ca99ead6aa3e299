import type { Interceptor } from "@connectrpc/connect";
import type { AccessGuard } from "../../../auth/index.js";
import { callScopeKey } from "../../../core/index.js";
import { identificationKey, rpcBinding, rpcCallScope } from "../call/index.js";

/**
 * The guard for Connect, gRPC and gRPC-Web (§7.4, §10.2): the caller found
 * from the `authorization` metadata (or the client certificate) before the
 * request was routed picks the tenant before the service runs; which agents
 * it may call and the scopes it holds travel in the call scope, where core
 * enforces them for the request's `tenant` field.
 */
export function accessInterceptor(guard: AccessGuard): Interceptor {
  return (next) => async (req) => {
    const kept = req.contextValues.get(identificationKey);
    const id = kept ?? (await guard.identify({ authorization: req.header.get("authorization") }));
    req.contextValues.set(callScopeKey, rpcCallScope(guard, id, rpcBinding(req.header.get("content-type"))));
    return next(req);
  };
}
