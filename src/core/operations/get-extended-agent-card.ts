import type { HandlerContext } from "@connectrpc/connect";
import type { AgentCard, GetExtendedAgentCardRequest } from "../../../gen/a2a/v1/a2a_pb.js";
import { A2AError } from "../../protocol/index.js";
import { resolveCall } from "../resolve-call.js";
import type { CoreDeps } from "../core-deps.js";

/** §3.1.11 and §3.3.4: only when the card declares it, and only when one is configured. */
export async function getExtendedAgentCard(deps: CoreDeps, ctx: HandlerContext, req: GetExtendedAgentCardRequest): Promise<AgentCard> {
  const { agent } = resolveCall(deps, ctx, req.tenant);
  if (agent.card.capabilities?.extendedAgentCard !== true) {
    throw new A2AError("UnsupportedOperation", "this agent does not offer an extended agent card (capabilities.extendedAgentCard is not true)");
  }
  if (!agent.extendedCard) throw new A2AError("ExtendedAgentCardNotConfigured", "this agent declares an extended agent card but none is configured");
  return agent.extendedCard;
}
