import { randomUUID } from "node:crypto";
import { createClient, ConnectError, Code, type Interceptor } from "@connectrpc/connect";
import { createGrpcTransport } from "@connectrpc/connect-node";
import { A2AService } from "../../gen/a2a/v1/a2a_pb.js";
import { sseMessages } from "./sse.js";

/** What one operation answered, reduced to what isolation tests compare. */
export type Outcome = "ok" | "not-found" | `other:${string}`;

/** Every task operation, over one binding, as one tenant calling one agent. */
export interface TenantClient {
  readonly binding: "jsonrpc" | "rest" | "grpc";
  /** Starts a task that stays open (input-required); returns its id. */
  open(): Promise<string>;
  get(id: string): Promise<Outcome>;
  cancel(id: string): Promise<Outcome>;
  subscribe(id: string): Promise<Outcome>;
  followUp(id: string): Promise<Outcome>;
  pushCreate(id: string): Promise<Outcome>;
  pushList(id: string): Promise<Outcome>;
  /** Ids of every task ListTasks shows. */
  list(): Promise<string[]>;
}

const userMessage = (text: string, taskId = "") => ({ messageId: randomUUID(), role: "ROLE_USER", parts: [{ text }], ...(taskId ? { taskId } : {}) });

/** JSON-RPC at the agent's own endpoint (POST /v1/a2a/agents/:id). */
export function jsonRpcClient(base: string, agentId: string, token: string): TenantClient {
  const url = new URL(`v1/a2a/agents/${agentId}`, base);
  const call = async (method: string, params: unknown): Promise<{ result?: any; error?: { code: number; message: string } }> => {
    const res = await fetch(url, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${token}`, "a2a-version": "1.0" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }),
    });
    // Streaming answers are SSE; the first event is what matters here.
    if (!res.headers.get("content-type")?.startsWith("text/event-stream")) return JSON.parse(await res.text());
    for await (const e of sseMessages(res.body!)) if (e.data !== undefined) return e.data;
    throw new Error(`${method}: the event stream ended without an event`);
  };
  const outcome = async (method: string, params: unknown): Promise<Outcome> => {
    const r = await call(method, params);
    if (!r.error) return "ok";
    return r.error.code === -32001 ? "not-found" : `other:${r.error.code} ${r.error.message}`;
  };
  return {
    binding: "jsonrpc",
    open: async () => (await call("SendMessage", { message: userMessage("input-required") })).result.task.id,
    get: (id) => outcome("GetTask", { id }),
    cancel: (id) => outcome("CancelTask", { id }),
    subscribe: (id) => outcome("SubscribeToTask", { id }),
    followUp: (id) => outcome("SendMessage", { message: userMessage("more", id), configuration: { returnImmediately: true } }),
    pushCreate: (id) => outcome("CreateTaskPushNotificationConfig", { taskId: id, url: "https://example.com/hook" }),
    pushList: (id) => outcome("ListTaskPushNotificationConfigs", { taskId: id }),
    list: async () => ((await call("ListTasks", { pageSize: 100 })).result.tasks ?? []).map((t: { id: string }) => t.id),
  };
}

/** HTTP+JSON under the agent's base path (/v1/a2a/agents/:id/...). */
export function restClient(base: string, agentId: string, token: string): TenantClient {
  const root = new URL(`v1/a2a/agents/${agentId}/`, base);
  const call = (method: string, path: string, body?: unknown) =>
    fetch(new URL(`./${path}`, root), {
      method,
      headers: { "content-type": "application/json", authorization: `Bearer ${token}` },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  const outcome = async (method: string, path: string, body?: unknown): Promise<Outcome> => {
    const res = await call(method, path, body);
    const text = await res.text();
    if (res.ok) return "ok";
    return res.status === 404 ? "not-found" : `other:${res.status} ${text.slice(0, 200)}`;
  };
  return {
    binding: "rest",
    open: async () => ((await (await call("POST", "message:send", { message: userMessage("input-required") })).json()) as any).task.id,
    get: (id) => outcome("GET", `tasks/${id}`),
    cancel: (id) => outcome("POST", `tasks/${id}:cancel`),
    subscribe: (id) => outcome("POST", `tasks/${id}:subscribe`),
    followUp: (id) => outcome("POST", "message:send", { message: userMessage("more", id), configuration: { returnImmediately: true } }),
    pushCreate: (id) => outcome("POST", `tasks/${id}/pushNotificationConfigs`, { url: "https://example.com/hook" }),
    pushList: (id) => outcome("GET", `tasks/${id}/pushNotificationConfigs`),
    list: async () => (((await (await call("GET", "tasks?pageSize=100")).json()) as any).tasks ?? []).map((t: { id: string }) => t.id),
  };
}

/** gRPC with the agent id in the request's `tenant` field, as the agent's card tells clients (§8.3.2). */
export function grpcClient(base: string, agentId: string, token: string): TenantClient {
  const auth: Interceptor = (next) => (req) => {
    req.header.set("authorization", `Bearer ${token}`);
    return next(req);
  };
  const client = createClient(A2AService, createGrpcTransport({ baseUrl: base.replace(/\/$/, ""), interceptors: [auth] }));
  const outcome = async (fn: () => Promise<unknown>): Promise<Outcome> => {
    try {
      await fn();
      return "ok";
    } catch (e) {
      const err = ConnectError.from(e);
      return err.code === Code.NotFound ? "not-found" : `other:${Code[err.code]} ${err.rawMessage}`;
    }
  };
  const msg = (text: string, taskId = "") => ({ messageId: randomUUID(), role: 1, parts: [{ content: { case: "text" as const, value: text } }], taskId });
  return {
    binding: "grpc",
    open: async () => {
      const r = await client.sendMessage({ tenant: agentId, message: msg("input-required") });
      if (r.payload.case !== "task") throw new Error("expected a task");
      return r.payload.value.id;
    },
    get: (id) => outcome(() => client.getTask({ tenant: agentId, id })),
    cancel: (id) => outcome(() => client.cancelTask({ tenant: agentId, id })),
    subscribe: (id) =>
      outcome(async () => {
        for await (const _ of client.subscribeToTask({ tenant: agentId, id })) break;
      }),
    followUp: (id) => outcome(() => client.sendMessage({ tenant: agentId, message: msg("more", id), configuration: { returnImmediately: true } })),
    pushCreate: (id) => outcome(() => client.createTaskPushNotificationConfig({ tenant: agentId, taskId: id, url: "https://example.com/hook" })),
    pushList: (id) => outcome(() => client.listTaskPushNotificationConfigs({ tenant: agentId, taskId: id })),
    list: async () => (await client.listTasks({ tenant: agentId, pageSize: 100 })).tasks.map((t) => t.id),
  };
}

export const CLIENT_FACTORIES = { jsonrpc: jsonRpcClient, rest: restClient, grpc: grpcClient } as const;
