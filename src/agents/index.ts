/** Built-in agents: echo (here), command/ (a program per turn), remote/ (an A2A agent elsewhere). */
export { EchoAgent } from "./echo-agent.js";
export { echoCard } from "./echo-card.js";
export { AgentOptionsError } from "./agent-options.js";
export {
  COMMAND_DEFAULTS,
  COMMAND_ENV,
  CommandAgent,
  commandCard,
  parseCommandAgentOptions,
  INPUT_REQUIRED_MARKER,
  InputRequestFilter,
  OUTPUT_ARTIFACT_ID,
  type CommandAgentOptions,
  type ResolvedCommandOptions,
} from "./command/index.js";
export { bridgedCard, loadRemoteRegistry, parseRemoteAgentOptions, RemoteAgent, remoteCard, remoteHostedAgent, type RemoteAgentOptions, type RemoteLink } from "./remote/index.js";
