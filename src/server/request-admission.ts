import { accessRefusal, type AccessDecision, type AccessGuard } from "../auth/index.js";
import { callScopeOf, identificationOf, sendJson, type FacadeAdmission, type HttpRequest, type HttpResponse } from "../bindings/http/index.js";
import { statusBody, toRestFailure } from "../bindings/rest/index.js";
import type { A2ACore, CallScope, Logger } from "../core/index.js";

/** What a request was found to be: the guard's decision, the call scope it gives, and what a facade is handed. */
export interface Admission {
  readonly decision: AccessDecision;
  readonly scope: CallScope;
  /** The scope, the card to negotiate extensions against (§3.2.6) and the refusal, for JSON-RPC and REST. */
  readonly facade: FacadeAdmission;
}

/**
 * The one AccessGuard deciding an HTTP request before any binding sees it
 * (§7.4, §13.1); gRPC and Connect calls are decided by the RPC binding's
 * own interceptor from the same identification.
 */
export interface RequestAdmission {
  /** Decides a request for `agentId` (undefined: the root); `binding` labels the refusals counted, undefined for routes that only read the decision. */
  admit(req: HttpRequest, agentId: string | undefined, binding: string | undefined): Admission;
  /** 401 or 429 in the google.rpc.Status form of §11.6; true when the request was refused (an unknown agent is not: it is AgentNotFound later). */
  refuse(res: HttpResponse, admission: Admission): boolean;
}

export function createRequestAdmission(core: A2ACore, guard: AccessGuard, logger: Logger): RequestAdmission {
  /**
   * The card a facade negotiates extensions against: the addressed agent's, else the default one. Only its
   * declared extensions are read, which the public card copies from the agent's own card: that one is given,
   * not a public card built (interface URLs and all) for every request.
   */
  const cardOf = (agentId: string | undefined) => ((agentId !== undefined && core.agents.get(agentId)) || core.agents.get(core.agents.defaultAgentId)!).card;
  const refusalOf = (d: AccessDecision): FacadeAdmission["refusal"] => {
    if (d.ok || d.why === "unknown-agent") return undefined;
    const r = accessRefusal(d);
    return { httpStatus: r.error.row.httpStatus, headers: r.headers, error: r.error };
  };
  return {
    admit(req, agentId, binding) {
      const decision = guard.decide(identificationOf(guard, req), agentId, binding, req.socket?.remoteAddress);
      // A refused agent reaches core as one the caller may not use: AgentNotFound on every binding.
      const scope: CallScope = decision.ok ? callScopeOf(guard, decision, binding ?? "http", agentId) : { tenant: "", agentId, mayCall: () => false };
      return { decision, scope, facade: { scope, card: cardOf(agentId), refusal: refusalOf(decision) } };
    },
    refuse(res, { decision }) {
      if (decision.ok || decision.why === "unknown-agent") return false;
      const r = accessRefusal(decision);
      sendJson(res, r.error.row.httpStatus, statusBody(toRestFailure(r.error, logger)), r.headers);
      return true;
    },
  };
}
