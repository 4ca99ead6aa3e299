import { A2AError } from "../protocol/index.js";
import type { HostedAgent } from "./hosted-agent.js";

/** §3.3.4: streaming operations need `capabilities.streaming`. */
export function requireStreaming(agent: HostedAgent): void {
  if (agent.card.capabilities?.streaming !== true) {
    throw new A2AError("UnsupportedOperation", "streaming is not supported by this agent (capabilities.streaming is not true)");
  }
}

/** §3.3.4: push config operations need `capabilities.pushNotifications`. */
export function requirePush(agent: HostedAgent): void {
  if (agent.card.capabilities?.pushNotifications !== true) {
    throw new A2AError("PushNotificationNotSupported", "push notifications are not supported by this agent (capabilities.pushNotifications is not true)");
  }
}
