/**
 * The MCP server (Model Context Protocol, revision 2025-11-25, on the
 * official SDK): every agent a caller may use is a tool, its tasks are
 * resources (`a2a://tasks/{id}`); served at `/mcp` over Streamable HTTP
 * through the hub's one A2A service, and over stdio by `a2a-hub mcp`,
 * bridging a remote hub or agent through the A2A client.
 */
export type { AgentBackend, BackendAgent } from "./agent-backend.js";
export { createAgentMcpServer, type AgentMcpOptions } from "./agent-mcp-server.js";
export { hubBackend, type McpCaller } from "./hub-backend.js";
export { createMcpRoute, MCP_PATH, type McpOptions, type McpRoute, type McpRouteOptions } from "./mcp-http-route.js";
export { PROTECTED_RESOURCE_PATHS, protectedResourceMetadata } from "./protected-resource.js";
export { agentTools, type AgentTool, type ToolGrouping } from "./tool-catalog.js";
export { SKILL_METADATA_KEY } from "./tool-input.js";
export { taskUri } from "./tool-result.js";
export { remoteBackend } from "./remote-backend.js";
export { serveMcpStdio, type StdioStreams } from "./stdio-bridge.js";
