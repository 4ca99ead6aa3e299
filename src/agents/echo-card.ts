import { create } from "@bufbuild/protobuf";
import { AgentCardSchema, type AgentCard } from "../../gen/a2a/v1/a2a_pb.js";

/** Card facts of the echo agent; interfaces are added by the cards layer. */
export function echoCard(options: { pushNotifications?: boolean; version?: string } = {}): AgentCard {
  return create(AgentCardSchema, {
    name: "a2a-hub echo",
    description: "Echoes what it is sent. Commands exercise every task lifecycle path: input-required, slow <ms>, stream <n>, fail, reject, message.",
    version: options.version ?? "0.1.0",
    provider: { organization: "a2a-hub", url: "https://github.com/a2a-hub" },
    capabilities: { streaming: true, pushNotifications: options.pushNotifications ?? true, extendedAgentCard: false },
    defaultInputModes: ["text/plain", "application/json"],
    defaultOutputModes: ["text/plain", "application/json"],
    skills: [
      {
        id: "echo",
        name: "Echo",
        description: "Completes with one artifact holding the message; the commands drive other lifecycles.",
        tags: ["echo", "testing"],
        examples: ["hello", "input-required", "slow 1000", "stream 5", "fail", "reject", "message"],
        inputModes: ["text/plain", "application/json"],
        outputModes: ["text/plain", "application/json"],
      },
    ],
  });
}
