import { ConnectError, type Interceptor } from "@connectrpc/connect";
import { accessRefusal, type AccessGuard } from "../../auth/index.js";
import { callScopeKey, silentLogger, type CallScope } from "../../core/index.js";
import { toConnectError } from "./connect-errors.js";

/**
 * The guard for Connect, gRPC and gRPC-Web (§7.4, §10.2): the bearer token
 * from the `authorization` metadata picks the tenant before the service
 * runs; which agents it may call travels in the call scope, where core
 * enforces it for the request's `tenant` field.
 */
export function accessInterceptor(guard: AccessGuard): Interceptor {
  return (next) => async (req) => {
    req.contextValues.set(callScopeKey, rpcCallScope(guard, req.header.get("authorization")));
    return next(req);
  };
}

/**
 * The call scope of an RPC from its `authorization` metadata, or the
 * ConnectError that refuses it. Shared by the interceptor and the gRPC
 * stream path that answers without connect-node (grpc-stream-route.ts).
 */
export function rpcCallScope(guard: AccessGuard, authorization: string | null | undefined): CallScope {
  const decision = guard.check(authorization, undefined);
  if (!decision.ok) {
    // The same error-table row as the HTTP bindings, with the header HTTP would send as metadata.
    const refusal = accessRefusal(decision);
    const error = toConnectError(refusal.error, silentLogger);
    for (const [k, v] of Object.entries(refusal.headers)) error.metadata.set(k, v);
    throw error;
  }
  const tenant = decision.tenant;
  // §8.3.2: gRPC and Connect have no per-agent URL; the request's tenant must name the agent.
  return { tenant, mayCall: (agentId: string) => guard.mayCall(tenant, agentId), tenantNamesAgent: true };
}

/** The ConnectError that refuses an RPC's credentials, as the interceptor would throw it; undefined when they are accepted. */
export function rpcRefusal(guard: AccessGuard, authorization: string | null | undefined): ConnectError | undefined {
  try {
    rpcCallScope(guard, authorization);
    return undefined;
  } catch (e) {
    if (e instanceof ConnectError) return e;
    throw e;
  }
}
