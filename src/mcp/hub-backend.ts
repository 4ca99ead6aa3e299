import type { DescMethod } from "@bufbuild/protobuf";
import type { HandlerContext } from "@connectrpc/connect";
import { create } from "@bufbuild/protobuf";
import { A2AService, CancelTaskRequestSchema, GetTaskRequestSchema, ListTasksRequestSchema } from "../../gen/a2a/v1/a2a_pb.js";
import { facadeCallContext, type A2ACore, type CallScope } from "../core/index.js";
import type { AgentBackend } from "./agent-backend.js";

/** Who calls: the tenant the bearer token maps to, and which agents it may use (§7.5). */
export interface McpCaller {
  readonly tenant: string;
  readonly mayCall: (agentId: string) => boolean;
  /** The scope check of the caller's token (§7.5): an operation it may not run is refused as on every binding. */
  readonly refuseOperation?: CallScope["refuseOperation"];
}

/**
 * The hub's own service as an AgentBackend. Every call goes through
 * `core.service` with the context the JSON facades give it (scope,
 * service parameters), so an MCP tool call meets the same validation,
 * limits, storage and telemetry as any other binding; nothing here
 * touches the store or the engine.
 */
export function hubBackend(core: Pick<A2ACore, "service" | "agents">, caller: McpCaller): AgentBackend {
  const { service } = core;
  const ctx = (method: DescMethod, agentId: string, signal?: AbortSignal): HandlerContext => {
    const scope: CallScope = { tenant: caller.tenant, agentId, mayCall: caller.mayCall, refuseOperation: caller.refuseOperation };
    // MCP speaks A2A v1.0 semantics to the core; it activates no extensions.
    return facadeCallContext({ method, signal, scope, params: { version: "1.0", extensions: [] }, protocolName: "mcp" });
  };
  const m = A2AService.method;
  return {
    agents: async () => core.agents.all().filter((a) => caller.mayCall(a.id)).map((a) => ({ id: a.id, card: a.card })),
    stream: (agentId, req, signal) => service.sendStreamingMessage(req, ctx(m.sendStreamingMessage, agentId, signal)),
    send: (agentId, req, signal) => service.sendMessage(req, ctx(m.sendMessage, agentId, signal)),
    get: (agentId, id) => service.getTask(create(GetTaskRequestSchema, { id }), ctx(m.getTask, agentId)),
    cancel: (agentId, id) => service.cancelTask(create(CancelTaskRequestSchema, { id }), ctx(m.cancelTask, agentId)),
    recent: async (agentId, pageSize) => (await service.listTasks(create(ListTasksRequestSchema, { pageSize }), ctx(m.listTasks, agentId))).tasks,
  };
}
