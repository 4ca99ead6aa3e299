import type { AgentCard, SendMessageRequest, SendMessageResponse, StreamResponse, Task } from "../../gen/a2a/v1/a2a_pb.js";

/** An agent an MCP client may call: its id (unique where it is hosted) and its card. */
export interface BackendAgent {
  readonly id: string;
  readonly card: AgentCard;
}

/**
 * The A2A operations the MCP server performs for one caller: over the hub's
 * own service (the `/mcp` endpoint) or over the A2A client to a remote hub
 * or agent (the stdio bridge). Failures are A2AError, named as on every
 * binding, so that a tool error carries the A2A reason.
 */
export interface AgentBackend {
  /** The agents this caller may use, in a stable order. */
  agents(): Promise<readonly BackendAgent[]>;
  /** §3.1.2: sends a message and streams the task's events (or one Message). */
  stream(agentId: string, req: SendMessageRequest, signal: AbortSignal): AsyncIterable<StreamResponse>;
  /** §3.1.1: sends a message and waits for the task to settle (for agents without streaming). */
  send(agentId: string, req: SendMessageRequest, signal: AbortSignal): Promise<SendMessageResponse>;
  /** §3.1.3: the stored task. */
  get(agentId: string, taskId: string): Promise<Task>;
  /** §3.1.5: cancels a task. */
  cancel(agentId: string, taskId: string): Promise<Task>;
  /** §3.1.4: the most recent tasks of an agent (one page). */
  recent(agentId: string, pageSize: number): Promise<readonly Task[]>;
}
