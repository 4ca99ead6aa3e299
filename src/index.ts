/**
 * a2a-hub as a library: host your own agent by implementing AgentExecutor
 * and passing it to startHub.
 */
export type { AgentExecutor, ArtifactOptions, EventSink, ExecutionContext } from "./execution/index.js";
export { startHub, defaultAgents, type Hub, type HubOptions } from "./server/index.js";
export { A2AError, type A2AErrorName, type HostedAgent, type Logger } from "./core/index.js";
export { CommandAgent, EchoAgent, echoCard, loadRemoteRegistry, RemoteAgent } from "./agents/index.js";
export { agentCard, type CardFacts, type SkillFacts } from "./cards/index.js";
export { A2AClient, clientFailureOf, type BindingName, type ClientOptions } from "./client/index.js";
export { SqliteTaskStore, type TaskStore } from "./store/index.js";
export * from "../gen/a2a/v1/a2a_pb.js";
