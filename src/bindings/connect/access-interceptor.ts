import type { Interceptor } from "@connectrpc/connect";
import { accessRefusal, type AccessGuard } from "../../auth/index.js";
import { callScopeKey, silentLogger } from "../../core/index.js";
import { toConnectError } from "./connect-errors.js";

/**
 * The guard for Connect, gRPC and gRPC-Web (§7.4, §10.2): the bearer token
 * from the `authorization` metadata picks the tenant before the service
 * runs; which agents it may call travels in the call scope, where core
 * enforces it for the request's `tenant` field.
 */
export function accessInterceptor(guard: AccessGuard): Interceptor {
  return (next) => async (req) => {
    const decision = guard.check(req.header.get("authorization"), undefined);
    if (!decision.ok) {
      // The same error-table row as the HTTP bindings, with the header HTTP would send as metadata.
      const refusal = accessRefusal(decision);
      const error = toConnectError(refusal.error, silentLogger);
      for (const [k, v] of Object.entries(refusal.headers)) error.metadata.set(k, v);
      throw error;
    }
    const tenant = decision.tenant;
    // §8.3.2: gRPC and Connect have no per-agent URL; the request's tenant must name the agent.
    req.contextValues.set(callScopeKey, { tenant, mayCall: (agentId: string) => guard.mayCall(tenant, agentId), tenantNamesAgent: true });
    return next(req);
  };
}
