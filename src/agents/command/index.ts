/** The command agent: runs a program per turn, its stdout the task's artifact and its exit the task's state. */
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
