import { fromJson, toJson, type JsonValue, type MessageInitShape } from "@bufbuild/protobuf";
import { Code, ConnectError, type Client } from "@connectrpc/connect";
import {
  A2AService,
  ListTasksRequestSchema,
  ListTasksResponseSchema,
  SendMessageRequestSchema,
  SendMessageResponseSchema,
  StreamResponseSchema,
  TaskSchema,
  type ListTasksResponse,
  type SendMessageRequest,
  type SendMessageResponse,
  type StreamResponse,
  type Task,
} from "../../gen/a2a/v1/a2a_pb.js";
import { ErrorInfoSchema } from "../../gen/google/rpc/error_details_pb.js";
import { readReply, type HttpReply } from "./http-reply.js";
import { rpc } from "./jsonrpc-requests.js";
import { openSse, type SseStream } from "./sse.js";

/** The bindings a load test drives: two over connect-node, two over fetch. */
export type Binding = "grpc" | "connect" | "jsonrpc" | "rest";
export const BINDINGS: readonly Binding[] = ["grpc", "connect", "jsonrpc", "rest"];

/** A stream event as the client saw it; `seq` is the SSE id where the binding carries one. */
export interface SeenEvent {
  readonly seq?: number;
  readonly event: StreamResponse;
}

/**
 * An error answer of any binding, read down to what a test decides on: the
 * A2A ErrorInfo reason (when the server sent one) and the binding's own
 * code ("grpc FailedPrecondition", "jsonrpc -32002", "http 400").
 */
export class CallError extends Error {
  constructor(
    readonly binding: Binding,
    readonly code: string,
    readonly reason: string | undefined,
    message: string,
  ) {
    super(`${binding} ${code}${reason ? ` ${reason}` : ""}: ${message}`);
  }
}

/** One A2A client shape over every binding, so a load loop need not care which one it holds. */
export interface BindingClient {
  readonly binding: Binding;
  send(req: SendMessageRequest): Promise<SendMessageResponse>;
  stream(req: SendMessageRequest): AsyncGenerator<SeenEvent>;
  /** With `lastEventId` (SSE bindings only), a resumption: the logged events after that seq (§3.1.6). */
  subscribe(id: string, lastEventId?: number): AsyncGenerator<SeenEvent>;
  cancel(id: string): Promise<Task>;
  get(id: string): Promise<Task>;
  list(req: MessageInitShape<typeof ListTasksRequestSchema>): Promise<ListTasksResponse>;
}

/** A hub as tests reach it: its root URL and its connect-node clients (a ServerProcess, say). */
export interface ReachableHub {
  readonly url: string;
  client(transport: "connect" | "grpc"): Client<typeof A2AService>;
}

/** A BindingClient of `binding` for `hub`. */
export function bindingClientFor(hub: ReachableHub, binding: Binding): BindingClient {
  if (binding === "jsonrpc") return jsonRpcBindingClient(hub.url);
  if (binding === "rest") return restBindingClient(hub.url);
  return connectBindingClient(hub.client(binding), binding);
}

/** A BindingClient over a connect-node client (gRPC or Connect). */
export function connectBindingClient(client: Client<typeof A2AService>, binding: "grpc" | "connect"): BindingClient {
  const wrap = async <T>(p: () => Promise<T>): Promise<T> => {
    try {
      return await p();
    } catch (e) {
      throw fromConnect(binding, e);
    }
  };
  async function* events(open: () => AsyncIterable<StreamResponse>): AsyncGenerator<SeenEvent> {
    try {
      for await (const event of open()) yield { event };
    } catch (e) {
      throw fromConnect(binding, e);
    }
  }
  return {
    binding,
    send: (req) => wrap(() => client.sendMessage(req)),
    stream: (req) => events(() => client.sendStreamingMessage(req)),
    subscribe: (id, lastEventId) => {
      if (lastEventId !== undefined) throw new Error(`${binding} carries no Last-Event-ID: resubscribe without it`);
      return events(() => client.subscribeToTask({ id }));
    },
    cancel: (id) => wrap(() => client.cancelTask({ id })),
    get: (id) => wrap(() => client.getTask({ id })),
    list: (req) => wrap(() => client.listTasks(req)),
  };
}

function fromConnect(binding: Binding, e: unknown): unknown {
  if (!(e instanceof ConnectError)) return e;
  return new CallError(binding, Code[e.code] ?? String(e.code), e.findDetails(ErrorInfoSchema)[0]?.reason, e.rawMessage);
}

/** A BindingClient over JSON-RPC 2.0 (v1.0 method names), `url` being the hub's root. */
export function jsonRpcBindingClient(url: string): BindingClient {
  let nextId = 1;
  const unary = async (method: string, params: JsonValue): Promise<any> => {
    const r = await readReply(await fetch(url, { method: "POST", body: JSON.stringify(rpc(method, params, nextId++)), headers: { "content-type": "application/json" } }));
    if (r.json?.error) throw rpcError(r.json.error);
    if (r.json?.result === undefined) throw new CallError("jsonrpc", `http ${r.status}`, undefined, `no result: ${r.text.slice(0, 300)}`);
    return r.json.result;
  };
  const stream = (method: string, params: JsonValue, lastEventId?: number): AsyncGenerator<SeenEvent> =>
    sseEvents("jsonrpc", () =>
      openSse(url, { method: "POST", body: JSON.stringify(rpc(method, params, nextId++)), headers: { "content-type": "application/json", ...resumeHeader(lastEventId) } }),
      (data) => {
        if (data.error) throw rpcError(data.error);
        return data.result;
      },
      (json) => rpcError(json?.error),
    );
  return {
    binding: "jsonrpc",
    send: async (req) => fromJson(SendMessageResponseSchema, await unary("SendMessage", toJson(SendMessageRequestSchema, req))),
    stream: (req) => stream("SendStreamingMessage", toJson(SendMessageRequestSchema, req)),
    subscribe: (id, lastEventId) => stream("SubscribeToTask", { id }, lastEventId),
    cancel: async (id) => fromJson(TaskSchema, await unary("CancelTask", { id })),
    get: async (id) => fromJson(TaskSchema, await unary("GetTask", { id })),
    list: async (req) => fromJson(ListTasksResponseSchema, await unary("ListTasks", listJson(req))),
  };
}

/** WHATWG HTML §9.2.4: the last event id a client saw, sent back to resume after it. */
function resumeHeader(lastEventId: number | undefined): Record<string, string> {
  return lastEventId === undefined ? {} : { "last-event-id": String(lastEventId) };
}

function rpcError(error: any): CallError {
  const reason = Array.isArray(error?.data) ? error.data.find((d: any) => typeof d?.reason === "string")?.reason : undefined;
  return new CallError("jsonrpc", `jsonrpc ${error?.code}`, reason, String(error?.message ?? JSON.stringify(error)));
}

/** A BindingClient over the HTTP+JSON binding, `base` being the hub's root URL. */
export function restBindingClient(base: string): BindingClient {
  const root = base.replace(/\/+$/, "");
  const call = async (method: string, path: string, body?: JsonValue): Promise<any> => {
    const r = await readReply(
      await fetch(`${root}${path}`, { method, body: body === undefined ? undefined : JSON.stringify(body), headers: body === undefined ? {} : { "content-type": "application/a2a+json" } }),
    );
    if (r.status !== 200) throw restError(r.json, r);
    return r.json;
  };
  const stream = (path: string, body: JsonValue, lastEventId?: number): AsyncGenerator<SeenEvent> =>
    sseEvents("rest", () =>
      openSse(`${root}${path}`, { method: "POST", body: JSON.stringify(body), headers: { "content-type": "application/a2a+json", ...resumeHeader(lastEventId) } }),
      (data) => {
        if (data.error) throw restError(data);
        return data;
      },
      (json) => restError(json),
    );
  return {
    binding: "rest",
    send: async (req) => fromJson(SendMessageResponseSchema, await call("POST", "/message:send", toJson(SendMessageRequestSchema, req))),
    stream: (req) => stream("/message:stream", toJson(SendMessageRequestSchema, req)),
    subscribe: (id, lastEventId) => stream(`/tasks/${encodeURIComponent(id)}:subscribe`, {}, lastEventId),
    cancel: async (id) => fromJson(TaskSchema, await call("POST", `/tasks/${encodeURIComponent(id)}:cancel`, {})),
    get: async (id) => fromJson(TaskSchema, await call("GET", `/tasks/${encodeURIComponent(id)}`)),
    list: async (req) => {
      const query = new URLSearchParams(Object.entries(listJson(req)).map(([k, v]) => [k, String(v)]));
      return fromJson(ListTasksResponseSchema, await call("GET", `/tasks?${query}`));
    },
  };
}

function restError(json: any, reply?: HttpReply): CallError {
  const error = json?.error;
  const reason = Array.isArray(error?.details) ? error.details.find((d: any) => typeof d?.reason === "string")?.reason : undefined;
  return new CallError("rest", `http ${error?.code ?? reply?.status}`, reason, String(error?.message ?? reply?.text.slice(0, 300) ?? JSON.stringify(json)));
}

/** The set fields of a ListTasks request as ProtoJSON query/params values. */
function listJson(req: MessageInitShape<typeof ListTasksRequestSchema>): Record<string, string | number> {
  const out: Record<string, string | number> = {};
  if (req.contextId) out.contextId = req.contextId;
  if (req.pageSize) out.pageSize = req.pageSize;
  if (req.pageToken) out.pageToken = req.pageToken;
  return out;
}

/**
 * Reads an SSE answer as StreamResponses with their SSE ids; a refusal
 * before the stream (a plain JSON body) and an error event both throw.
 * Leaving the loop early aborts the request.
 */
async function* sseEvents(
  binding: Binding,
  open: () => Promise<SseStream>,
  resultOf: (data: any) => unknown,
  refusal: (json: any) => CallError,
): AsyncGenerator<SeenEvent> {
  const s = await open();
  if (!s.events) throw s.json?.error ? refusal(s.json) : new CallError(binding, `http ${s.status}`, undefined, `not an event stream: ${JSON.stringify(s.json)}`);
  try {
    for await (const m of s.events) {
      if (m.data === undefined) continue;
      const event = fromJson(StreamResponseSchema, resultOf(m.data) as JsonValue);
      yield { seq: m.id === undefined ? undefined : Number(m.id), event };
    }
  } finally {
    s.abort.abort();
  }
}
