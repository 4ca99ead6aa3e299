import type { HandlerContext } from "@connectrpc/connect";
import type { StoreScope } from "../store/index.js";
import { A2AError } from "../protocol/index.js";
import { scopeOf, serviceParamsKey } from "./call-context.js";
import type { CoreDeps } from "./core-deps.js";
import type { HostedAgent } from "./hosted-agent.js";

/**
 * The agent and store scope of a call, after the checks every operation
 * shares: the caller may use the agent and holds the scopes the operation
 * and the agent need (§7.5), and has activated every
 * extension the agent marks required (§3.3.4, ExtensionSupportRequired).
 * Judged here once, for every binding, against the agent the call resolves
 * to (which, with a `tenant` field, need not be the endpoint's).
 */
export function resolveCall(deps: CoreDeps, ctx: HandlerContext, requestTenant: string): { scope: StoreScope; agent: HostedAgent } {
  const call = scopeOf(ctx);
  const resolved = deps.agents.resolve(call, requestTenant);
  // §7.5: judged against the agent the call resolved to, after it proved to be one the caller may use.
  const refusal = call.refuseOperation?.(ctx.method.localName, resolved.agent.id);
  if (refusal) throw refusal;
  const activated = ctx.values.get(serviceParamsKey).extensions;
  const missing = (resolved.agent.card.capabilities?.extensions ?? []).filter((e) => e.required && !activated.includes(e.uri)).map((e) => e.uri);
  if (missing.length > 0) {
    throw new A2AError("ExtensionSupportRequired", `this agent requires the extension${missing.length > 1 ? "s" : ""} ${missing.join(", ")}; list ${missing.length > 1 ? "them" : "it"} in the A2A-Extensions header`, {
      metadata: { extensions: missing.join(",") },
    });
  }
  return resolved;
}

/** §3.2.6: of the extensions a client requested, those the agent declares: the ones its run sees as active. */
export function activatedExtensions(agent: HostedAgent, requested: readonly string[]): string[] {
  const declared = agent.card.capabilities?.extensions ?? [];
  return requested.filter((uri) => declared.some((d) => d.uri === uri));
}
