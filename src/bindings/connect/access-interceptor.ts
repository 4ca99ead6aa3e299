import { create } from "@bufbuild/protobuf";
import { Code, ConnectError, type Interceptor } from "@connectrpc/connect";
import type { AccessGuard } from "../../auth/index.js";
import { A2A_ERROR_DOMAIN, callScopeKey } from "../../core/index.js";
import { ErrorInfoSchema } from "../../../gen/google/rpc/error_details_pb.js";

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
      if (decision.why === "rate-limited") {
        throw new ConnectError("rate limit exceeded for this tenant", Code.ResourceExhausted, { "retry-after": String(decision.retryAfterS) }, [
          { desc: ErrorInfoSchema, value: create(ErrorInfoSchema, { reason: "RATE_LIMITED", domain: A2A_ERROR_DOMAIN, metadata: { retryAfterSeconds: String(decision.retryAfterS) } }) },
        ]);
      }
      throw new ConnectError("a valid bearer token is required", Code.Unauthenticated, { "www-authenticate": 'Bearer realm="a2a-hub"' });
    }
    const tenant = decision.tenant;
    // §8.3.2: gRPC and Connect have no per-agent URL; the request's tenant must name the agent.
    req.contextValues.set(callScopeKey, { tenant, mayCall: (agentId: string) => guard.mayCall(tenant, agentId), tenantNamesAgent: true });
    return next(req);
  };
}
