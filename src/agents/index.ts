/** Built-in agents: echo (here), command/ (a program per turn), remote/ (an A2A agent elsewhere). */
export { EchoAgent } from "./echo-agent.js";
export { echoCard } from "./echo-card.js";
export { AgentOptionsError } from "./agent-options.js";
// Each subfolder's door is passed on whole: what it exports is what the layer offers of it.
export * from "./command/index.js";
export * from "./remote/index.js";
