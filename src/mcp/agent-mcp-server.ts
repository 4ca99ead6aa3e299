import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { ClientCapabilities } from "@modelcontextprotocol/sdk/types.js";
import type { Logger } from "../core/index.js";
import type { AgentBackend } from "./agent-backend.js";
import { mcpSdk } from "./mcp-sdk.js";
import { callAgentTool, type ToolCallPeer } from "./tool-call.js";
import { agentTools, type ToolGrouping } from "./tool-catalog.js";
import { listTaskResources, ProtocolError, readTaskResource, TASK_TEMPLATE } from "./task-resources.js";

/** JSON-RPC 2.0 §5.1: the code of a request whose params are wrong. */
const INVALID_PARAMS = -32602;

/** How the MCP server presents the agents. */
export interface AgentMcpOptions {
  /** One tool per agent (default) or per skill. */
  readonly tools?: ToolGrouping;
  /** serverInfo.version. */
  readonly version?: string;
  /** Where failures that are not A2A errors are reported. */
  readonly logger?: Logger;
}

/** How long a question put to the client by elicitation stays open (ms). */
const ELICIT_TIMEOUT_MS = 10 * 60_000;

/** Whether the client takes form elicitations (MCP client/elicitation: an empty object means form). */
function elicitsForms(c: ClientCapabilities | undefined): boolean {
  const e = c?.elicitation as { form?: unknown; url?: unknown } | undefined;
  return e !== undefined && (e.form !== undefined || e.url === undefined);
}

/**
 * The MCP server of one session: the caller's agents as tools, their tasks
 * as resources. Tools are listed afresh from the backend on each request
 * (the agents a tenant may use are its own; nothing is cached across
 * callers). The handlers are set on the SDK's protocol server, because the
 * tools are data (cards, JSON Schema) rather than code registered ahead.
 */
export async function createAgentMcpServer(backend: AgentBackend, options: AgentMcpOptions = {}): Promise<McpServer> {
  const { McpServer, CallToolRequestSchema, ElicitResultSchema, ListResourcesRequestSchema, ListResourceTemplatesRequestSchema, ListToolsRequestSchema, ReadResourceRequestSchema } = await mcpSdk();
  const mcp = new McpServer(
    { name: "a2a-hub", title: "a2a-hub agents", version: options.version ?? "0.1.0" },
    {
      capabilities: { tools: { listChanged: false }, resources: { listChanged: false } },
      instructions: "Each tool is an A2A agent. A result names the agent's task and its state; call again with taskId to answer a task that asks for input. Tasks are readable as a2a://tasks/{id}.",
    },
  );
  const server = mcp.server;
  const tools = async () => {
    const agents = await backend.agents();
    return { agents, tools: agentTools(agents, options.tools) };
  };
  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: (await tools()).tools.map((t) => t.tool) }));
  server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    const { agents, tools: list } = await tools();
    const tool = list.find((t) => t.tool.name === request.params.name);
    const agent = tool && agents.find((a) => a.id === tool.agentId);
    // MCP server/tools "Error Handling": an unknown tool is a protocol error.
    if (!tool || !agent) throw new ProtocolError(INVALID_PARAMS, `Unknown tool: ${request.params.name}`);
    const token = request.params._meta?.progressToken;
    const peer: ToolCallPeer = {
      signal: extra.signal,
      progress:
        token === undefined
          ? undefined
          : (progress, message) => extra.sendNotification({ method: "notifications/progress", params: { progressToken: token, progress, message } }),
      elicit: elicitsForms(server.getClientCapabilities())
        ? (question) =>
            extra.sendRequest(
              {
                method: "elicitation/create",
                params: {
                  message: question,
                  requestedSchema: { type: "object", properties: { answer: { type: "string", title: "Answer", description: question } }, required: ["answer"] },
                },
              },
              ElicitResultSchema,
              // A person answers: longer than the SDK's 60 s default, and withdrawn when the call is canceled.
              { signal: extra.signal, timeout: ELICIT_TIMEOUT_MS },
            )
        : undefined,
      report: (e) => options.logger?.error("MCP tool call failed", { tool: tool.tool.name, error: e instanceof Error ? e.stack : String(e) }),
    };
    return callAgentTool(backend, agent, tool, request.params.arguments, peer);
  });
  server.setRequestHandler(ListResourceTemplatesRequestSchema, () => ({ resourceTemplates: [TASK_TEMPLATE] }));
  server.setRequestHandler(ListResourcesRequestSchema, async () => ({ resources: await listTaskResources(backend) }));
  server.setRequestHandler(ReadResourceRequestSchema, (request) => readTaskResource(backend, request.params.uri));
  return mcp;
}
