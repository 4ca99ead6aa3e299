import type { StoreScope } from "../store/index.js";
import { A2AError, invalidParams } from "../protocol/index.js";
import type { CallScope } from "./call-context.js";
import type { HostedAgent } from "./hosted-agent.js";

/** The agents this hub serves, and how a call finds its agent and store scope. */
export class AgentDirectory {
  private readonly byId = new Map<string, HostedAgent>();
  readonly defaultAgentId: string;

  constructor(agents: readonly HostedAgent[], defaultAgentId?: string) {
    if (agents.length === 0) throw new Error("at least one agent must be hosted");
    for (const a of agents) {
      if (this.byId.has(a.id)) throw new Error(`agent id ${a.id} is declared twice`);
      this.byId.set(a.id, a);
    }
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
    const id = call.agentId ?? (requestTenant || this.defaultAgentId);
    const agent = this.byId.get(id);
    // §3.3.2: an agent the caller may not use is indistinguishable from one that does not exist.
    if (!agent || (call.mayCall && !call.mayCall(id))) {
      throw new A2AError("TaskNotFound", `no agent ${JSON.stringify(id)} is hosted here`, { metadata: { agent: id } });
    }
    return { scope: { tenant: call.tenant, agentId: agent.id }, agent };
  }
}
