import { create, type JsonObject } from "@bufbuild/protobuf";
import { AgentCapabilitiesSchema, AgentCardSchema, AgentExtensionSchema, type AgentCard, type Task } from "../../gen/a2a/v1/a2a_pb.js";
import type { PushDeliveryState } from "../store/index.js";
import type { HostedAgent } from "./hosted-agent.js";

/**
 * §4.6: an extension this hub owns. No A2A call tells a client whether its
 * webhooks were reached, so a GetTask that activates this URI (§3.2.6,
 * A2A-Extensions) answers a Task whose `metadata[URI]` lists, per push
 * config, the hub's delivery record. Without it the Task is unchanged.
 */
export const PUSH_DELIVERY_STATE_URI = "https://a2a-hub.dev/extensions/push-delivery-state/v1";

/** §4.6.1: what the card says of the extension. */
const DECLARATION = {
  uri: PUSH_DELIVERY_STATE_URI,
  description:
    "Activate on GetTask to receive metadata[uri] = [{ configId, url, pending, dead, delivered, lastAttemptAt?, lastError?, nextAttemptAt? }], one entry per push notification config of the task.",
  required: false,
};

/** The card with the extension declared, when the agent supports push (§4.4.3); else the card as is. */
function declaredOn(card: AgentCard): AgentCard {
  if (card.capabilities?.pushNotifications !== true) return card;
  const extensions = card.capabilities.extensions ?? [];
  if (extensions.some((e) => e.uri === PUSH_DELIVERY_STATE_URI)) return card;
  const capabilities = create(AgentCapabilitiesSchema, { ...card.capabilities, extensions: [...extensions, create(AgentExtensionSchema, DECLARATION)] });
  return create(AgentCardSchema, { ...card, capabilities });
}

/**
 * A hosted agent whose public card declares the extension when it supports
 * push. Only the public card: every binding negotiates A2A-Extensions
 * against it (§3.2.6), and an operator's extended card stays as configured.
 */
export function withPushDeliveryState(agent: HostedAgent): HostedAgent {
  const card = declaredOn(agent.card);
  return card === agent.card ? agent : { ...agent, card };
}

const iso = (ms: number | undefined): string | undefined => (ms === undefined ? undefined : new Date(ms).toISOString());

/** The task with its delivery records under metadata[URI], as JSON (times as RFC 3339 strings). */
export function withDeliveryState(task: Task, states: readonly PushDeliveryState[]): Task {
  const entries = states.map((s) => {
    const entry: JsonObject = { configId: s.configId, url: s.url, pending: s.pending, dead: s.dead, delivered: s.delivered };
    const lastAttemptAt = iso(s.lastAttemptMs);
    const nextAttemptAt = iso(s.nextAttemptMs);
    if (lastAttemptAt) entry.lastAttemptAt = lastAttemptAt;
    if (s.lastError !== undefined) entry.lastError = s.lastError;
    if (nextAttemptAt) entry.nextAttemptAt = nextAttemptAt;
    return entry;
  });
  task.metadata = { ...(task.metadata ?? {}), [PUSH_DELIVERY_STATE_URI]: entries };
  return task;
}
