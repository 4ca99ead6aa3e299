/** Built-in agents. */
export { EchoAgent } from "./echo-agent.js";
export { echoCard } from "./echo-card.js";
