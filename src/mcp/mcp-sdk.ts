import type { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";

/**
 * The official MCP SDK, loaded on the first MCP session rather than at
 * start: its modules (zod schemas, ajv, hono) cost a hub that nobody calls
 * over MCP a quarter of a second of start-up, and more on a busy machine.
 * Imported by name so that a bundle keeps them external and lazy.
 */
async function load() {
  const [server, types, http] = await Promise.all([
    import("@modelcontextprotocol/sdk/server/mcp.js"),
    import("@modelcontextprotocol/sdk/types.js"),
    import("@modelcontextprotocol/sdk/server/streamableHttp.js"),
  ]);
  return { ...server, ...types, ...http };
}

let loaded: ReturnType<typeof load> | undefined;

/** The SDK's server, protocol types and Streamable HTTP transport. */
export function mcpSdk(): ReturnType<typeof load> {
  return (loaded ??= load());
}

/** The SDK's stdio server transport. */
export async function stdioServerTransport(): Promise<typeof StdioServerTransport> {
  return (await import("@modelcontextprotocol/sdk/server/stdio.js")).StdioServerTransport;
}
