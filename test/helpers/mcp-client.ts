import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { until } from "./until.js";
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

/** The id a progress notification names its task by ("task <id>: <state>"). */
const TASK_NAMED = /^task (\S+):/;

/**
 * Calls a tool, cancels the call (MCP notifications/cancelled) once a
 * progress notification names its task, and returns that task's id after
 * the call has ended without a result.
 */
export async function callAndCancel(client: Client, name: string, args: Record<string, unknown>): Promise<string> {
  const abort = new AbortController();
  let taskId = "";
  const call = client.callTool({ name, arguments: args }, undefined, {
    signal: abort.signal,
    onprogress: (p) => {
      taskId ||= TASK_NAMED.exec(p.message ?? "")?.[1] ?? "";
    },
  });
  await until("the task is named in a progress notification", async () => taskId !== "");
  abort.abort();
  const outcome = await call.then(
    () => "answered",
    () => "ended",
  );
  if (outcome !== "ended") throw new Error(`the canceled call of ${name} was answered`);
  return taskId;
}

/** Connects a client to a hub's /mcp, runs `fn` with it, and closes it. */
export async function usingMcp<T>(hubUrl: string, options: McpClientOptions, fn: (client: Client) => Promise<T>): Promise<T> {
  const client = await connectMcp(hubUrl, options);
  try {
    return await fn(client);
  } finally {
    await client.close();
  }
}
