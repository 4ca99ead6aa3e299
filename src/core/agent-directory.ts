import type { StoreScope } from "../store/index.js";
import { A2AError, invalidParams } from "../protocol/index.js";
import type { CallScope } from "./call-context.js";
import type { HostedAgent } from "./hosted-agent.js";
import { withPushDeliveryState } from "./push-delivery-extension.js";

/** The agents this hub serves, and how a call finds its agent and store scope. */
export class AgentDirectory {
  private readonly byId = new Map<string, HostedAgent>();
  readonly defaultAgentId: string;

  constructor(agents: readonly HostedAgent[], defaultAgentId?: string) {
    if (agents.length === 0) throw new Error("at least one agent must be hosted");
    for (const a of agents) {
      if (this.byId.has(a.id)) throw new Error(`agent id ${a.id} is declared twice`);
      // §4.6: every agent that takes push configs offers the hub's delivery-state extension.
      this.byId.set(a.id, withPushDeliveryState(a));
    }
    // Requests read the card from here, so a card learned later is served from the next request on.
    for (const a of agents) a.watchCard?.((card) => this.byId.set(a.id, withPushDeliveryState({ ...a, card })));
    this.defaultAgentId = defaultAgentId ?? agents[0]!.id;
    if (!this.byId.has(this.defaultAgentId)) throw new Error(`default agent ${this.defaultAgentId} is not hosted`);
  }

  get(id: string): HostedAgent | undefined {
    return this.byId.get(id);
  }

  all(): HostedAgent[] {
    return [...this.byId.values()];
  }

  /**
   * The agent a call addresses (§8.3.2: the request's `tenant` field selects
   * it when the URL does not) and the store scope its queries run in.
   */
  resolve(call: CallScope, requestTenant: string): { scope: StoreScope; agent: HostedAgent } {
    if (call.agentId !== undefined && requestTenant !== "" && requestTenant !== call.agentId) {
      throw invalidParams("tenant", `does not match the agent this endpoint serves (${call.agentId})`);
    }
    const id = call.agentId ?? this.chosenByTenant(call, requestTenant);
    const agent = this.byId.get(id);
    // §3.3.2: an agent the caller may not use is indistinguishable from one that does not exist.
    if (!agent || (call.mayCall && !call.mayCall(id))) {
      throw new A2AError("AgentNotFound", `no agent ${JSON.stringify(id)} is hosted here`, { metadata: { agent: id } });
    }
    return { scope: { tenant: call.tenant, agentId: agent.id }, agent };
  }

  /**
   * §8.3.2: on the shared endpoints (gRPC, Connect, the root JSON-RPC and
   * REST paths) the request's `tenant` names the agent. With one agent an
   * empty tenant means it; with several, on gRPC and Connect, guessing
   * would act on an agent the client did not mean, so the client is told
   * how to choose. A tenant of "undefined" or "null" is a client bug on
   * any binding, and is answered the same way.
   */
  private chosenByTenant(call: CallScope, requestTenant: string): string {
    // "undefined" and "null" are what a JavaScript client sends when it interpolates a missing value.
    const unset = requestTenant === "" || requestTenant === "undefined" || requestTenant === "null";
    if (!unset) return requestTenant;
    if (requestTenant === "" && (this.byId.size === 1 || !call.tenantNamesAgent)) return this.defaultAgentId;
    const callable = [...this.byId.keys()].filter((id) => !call.mayCall || call.mayCall(id));
    const given = requestTenant === "" ? "is empty" : `is ${JSON.stringify(requestTenant)}, which looks like an unset value`;
    throw invalidParams(
      "tenant",
      `${given}: this hub hosts ${this.byId.size === 1 ? "an agent" : "several agents"}; set tenant to the id of the agent to call ` +
        `(the tenant of its card's GRPC interface), or use its own endpoints under /v1/a2a/agents/{id}. ` +
        `Agents you may call: ${callable.length > 0 ? callable.join(", ") : "none"}`,
    );
  }
}
