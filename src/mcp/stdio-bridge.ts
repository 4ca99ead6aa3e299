import type { Readable, Writable } from "node:stream";
import type { AgentBackend } from "./agent-backend.js";
import { createAgentMcpServer, type AgentMcpOptions } from "./agent-mcp-server.js";
import { stdioServerTransport } from "./mcp-sdk.js";

/** Where the stdio server reads and writes: the process's own streams, or a test's. */
export interface StdioStreams {
  readonly stdin: Readable;
  readonly stdout: Writable;
}

/**
 * Serves the backend's agents as MCP tools over stdio (MCP transports,
 * "stdio": newline-delimited JSON-RPC on stdin and stdout, nothing else on
 * stdout) until the host closes stdin.
 */
export async function serveMcpStdio(backend: AgentBackend, streams: StdioStreams, options: AgentMcpOptions = {}): Promise<void> {
  const mcp = await createAgentMcpServer(backend, options);
  const transport = new (await stdioServerTransport())(streams.stdin, streams.stdout);
  const ended = new Promise<void>((resolve) => {
    streams.stdin.once("end", resolve);
    streams.stdin.once("close", resolve);
    transport.onclose = resolve;
  });
  await mcp.connect(transport);
  await ended;
  await mcp.close();
}
