/** Built-in agents. */
export { EchoAgent } from "./echo-agent.js";
export { echoCard } from "./echo-card.js";
export { AgentOptionsError } from "./agent-options.js";
export {
  COMMAND_DEFAULTS,
  COMMAND_ENV,
  CommandAgent,
  commandCard,
  parseCommandAgentOptions,
  type CommandAgentOptions,
  type ResolvedCommandOptions,
} from "./command-agent.js";
export { INPUT_REQUIRED_MARKER, InputRequestFilter } from "./input-request-filter.js";
export { OUTPUT_ARTIFACT_ID } from "./stdout-artifact.js";
export { bridgedCard, RemoteAgent, remoteCard, type RemoteAgentOptions } from "./remote-agent.js";
export { loadRemoteRegistry, parseRemoteAgentOptions, remoteHostedAgent } from "./remote-registry.js";
export type { RemoteLink } from "./remote-mirror.js";
