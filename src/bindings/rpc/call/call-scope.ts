import { ConnectError } from "@connectrpc/connect";
import { accessRefusal, type AccessGuard, type Identification } from "../../../auth/index.js";
import { silentLogger, type CallScope } from "../../../core/index.js";
import { callScopeOf } from "../../http/index.js";
import { toConnectError } from "./connect-errors.js";

/** The binding an RPC came in on, by its Content-Type: the `binding` label of refusals. */
export function rpcBinding(contentType: string | null | undefined): "grpc" | "grpc-web" | "connect" {
  const t = (contentType ?? "").toLowerCase();
  return t.startsWith("application/grpc-web") ? "grpc-web" : t.startsWith("application/grpc") ? "grpc" : "connect";
}

/**
 * The call scope of an RPC from who it was found to be, or the
 * ConnectError that refuses it. Shared by the interceptor and the direct
 * paths that answer without connect-node (direct/direct-context.ts).
 */
export function rpcCallScope(guard: AccessGuard, identification: Identification, binding: string, address?: string): CallScope {
  const decision = guard.decide(identification, undefined, binding, address);
  if (!decision.ok) {
    // The same error-table row as the HTTP bindings, with the header HTTP would send as metadata.
    const refusal = accessRefusal(decision);
    const error = toConnectError(refusal.error, silentLogger);
    for (const [k, v] of Object.entries(refusal.headers)) error.metadata.set(k, v);
    throw error;
  }
  // §8.3.2: gRPC and Connect have no per-agent URL; the request's tenant must name the agent.
  return callScopeOf(guard, decision, binding, undefined, true);
}

/** The ConnectError that refuses an RPC's caller, as the interceptor would throw it (and counted as it would be); undefined when admitted. */
export function rpcRefusal(guard: AccessGuard, identification: Identification, binding: string, address?: string): ConnectError | undefined {
  try {
    rpcCallScope(guard, identification, binding, address);
    return undefined;
  } catch (e) {
    if (e instanceof ConnectError) return e;
    throw e;
  }
}
