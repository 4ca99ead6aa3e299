/**
 * a2a-hub as a library: host your own agent by implementing AgentExecutor
 * and passing it to startHub.
 */
export type { AgentExecutor, ArtifactOptions, EventSink, ExecutionContext } from "./execution/index.js";
export { startHub, defaultAgents, type Hub, type HubOptions } from "./server/index.js";
export { A2AError, type A2AErrorName, type HostedAgent, type Logger } from "./core/index.js";
export { CommandAgent, EchoAgent, echoCard, loadRemoteRegistry, RemoteAgent } from "./agents/index.js";
export { agentCard, createCardSigner, loadSigningKey, type CardFacts, type CardSigner, type SigningKeyConfig, type SkillFacts } from "./cards/index.js";
export { A2AClient, CardSignatureError, cardVerifier, clientFailureOf, type BindingName, type CardTrust, type ClientOptions } from "./client/index.js";
export { DEFAULT_JWKS_PATH, type CardSigning } from "./server/index.js";
/** The host startHub serves on (HTTP/1.1 and h2c on one port, TLS by ALPN), for a handler of your own. */
export { createOnePortServer, type OnePortServer } from "./server/index.js";
export { DataDirLockedError, SqliteTaskStore, type TaskStore } from "./store/index.js";
export * from "../gen/a2a/v1/a2a_pb.js";
