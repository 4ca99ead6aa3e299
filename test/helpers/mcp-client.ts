import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ElicitRequestSchema, type CallToolResult, type ElicitResult } from "@modelcontextprotocol/sdk/types.js";

/** How a test MCP client connects: a bearer token, and an answer to elicitations when it declares them. */
export interface McpClientOptions {
  readonly token?: string;
  /** Declares form elicitation and answers every question with this. */
  readonly elicit?: (question: string) => ElicitResult | Promise<ElicitResult>;
}

/** The official SDK client over Streamable HTTP to a hub's /mcp. */
export async function connectMcp(hubUrl: string, options: McpClientOptions = {}): Promise<Client> {
  const client = new Client({ name: "a2a-hub-test", version: "1.0.0" }, { capabilities: options.elicit ? { elicitation: { form: {} } } : {} });
  if (options.elicit) {
    const answer = options.elicit;
    client.setRequestHandler(ElicitRequestSchema, (req) => answer(req.params.message));
  }
  const transport = new StreamableHTTPClientTransport(new URL("mcp", hubUrl), {
    requestInit: options.token ? { headers: { authorization: `Bearer ${options.token}` } } : undefined,
  });
  await client.connect(transport);
  return client;
}

/** The structured content of a tool result, typed as the hub writes it. */
export interface TaskContent {
  readonly taskId?: string;
  readonly contextId?: string;
  readonly state?: string;
  readonly question?: string;
  readonly data: unknown[];
  readonly error?: { reason: string; message: string };
}

export function structured(r: unknown): TaskContent {
  return (r as CallToolResult).structuredContent as unknown as TaskContent;
}

/** The text blocks of a tool result, joined by newlines. */
export function texts(r: unknown): string[] {
  return ((r as CallToolResult).content ?? []).flatMap((c) => (c.type === "text" ? [c.text] : []));
}
