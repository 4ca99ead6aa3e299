/** The remote agent: hosts an agent served elsewhere, delegating each turn over A2A and mirroring its task here. */
export { bridgedCard, RemoteAgent, remoteCard, type RemoteAgentOptions } from "./remote-agent.js";
export { loadRemoteRegistry, parseRemoteAgentOptions, remoteHostedAgent } from "./remote-registry.js";
export type { RemoteLink } from "./remote-mirror.js";
