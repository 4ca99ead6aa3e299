import type { DescMessage, MessageShape } from "@bufbuild/protobuf";
import {
  CancelTaskRequestSchema,
  GetTaskRequestSchema,
  ListTasksRequestSchema,
  ListTasksResponseSchema,
  SendMessageRequestSchema,
  SendMessageResponseSchema,
  StreamResponseSchema,
  SubscribeToTaskRequestSchema,
  TaskSchema,
  type CancelTaskRequest,
  type GetTaskRequest,
  type ListTasksRequest,
  type ListTasksResponse,
  type SendMessageRequest,
  type SendMessageResponse,
  type StreamResponse,
  type SubscribeToTaskRequest,
  type Task,
} from "../../gen/a2a/v1/a2a_pb.js";
import { dialectV03, type A2AVersion } from "../protocol/index.js";
import { decodeResult, encodeRequest } from "./proto-json.js";

/** One JSON-RPC method: its name, how the request becomes params and the result becomes the generated type. */
export interface JsonRpcOp<Req, Res> {
  readonly method: string;
  params(req: Req): unknown;
  result(json: unknown): Res;
}

/** A streaming method; `last` says when an event ends the stream on its own (v0.3 `final`). */
export interface JsonRpcStreamOp<Req> extends JsonRpcOp<Req, StreamResponse> {
  last?(json: unknown): boolean;
}

/** The methods of one A2A version's JSON-RPC dialect, as a client calls them. */
export interface JsonRpcDialect {
  readonly version: A2AVersion;
  readonly send: JsonRpcOp<SendMessageRequest, SendMessageResponse>;
  readonly stream: JsonRpcStreamOp<SendMessageRequest>;
  readonly get: JsonRpcOp<GetTaskRequest, Task>;
  /** Undefined where the version has no such method (v0.3 has no ListTasks). */
  readonly list?: JsonRpcOp<ListTasksRequest, ListTasksResponse>;
  readonly cancel: JsonRpcOp<CancelTaskRequest, Task>;
  readonly subscribe: JsonRpcStreamOp<SubscribeToTaskRequest>;
}

function v1<Req extends DescMessage, Res extends DescMessage>(method: string, req: Req, res: Res): JsonRpcOp<MessageShape<Req>, MessageShape<Res>> {
  return { method, params: (r) => encodeRequest(req, r), result: (json) => decodeResult(res, json, `the ${method} result`) };
}

/** §9.4: v1.0 methods, PascalCase, ProtoJSON params and results. */
export const JSONRPC_V1: JsonRpcDialect = {
  version: "1.0",
  send: v1("SendMessage", SendMessageRequestSchema, SendMessageResponseSchema),
  stream: v1("SendStreamingMessage", SendMessageRequestSchema, StreamResponseSchema),
  get: v1("GetTask", GetTaskRequestSchema, TaskSchema),
  list: v1("ListTasks", ListTasksRequestSchema, ListTasksResponseSchema),
  cancel: v1("CancelTask", CancelTaskRequestSchema, TaskSchema),
  subscribe: v1("SubscribeToTask", SubscribeToTaskRequestSchema, StreamResponseSchema),
};

/** A v0.3 status-update with `final: true` is the last event of its stream (v0.3 schema). */
function isFinal(json: unknown): boolean {
  return typeof json === "object" && json !== null && (json as { kind?: unknown }).kind === "status-update" && (json as { final?: unknown }).final === true;
}

/**
 * v0.3 methods (slash names, kind-tagged JSON), translated both ways by the
 * server's own dialect-v03 so the two directions cannot drift apart.
 */
export const JSONRPC_V03: JsonRpcDialect = {
  version: "0.3",
  send: {
    method: "message/send",
    params: (r) => dialectV03.v1ToV03SendParams(r),
    result: (json) => decodeResult(SendMessageResponseSchema, dialectV03.v03ToV1SendResult(json), "the message/send result"),
  },
  stream: {
    method: "message/stream",
    params: (r) => dialectV03.v1ToV03SendParams(r),
    result: (json) => decodeResult(StreamResponseSchema, dialectV03.v03ToV1StreamResult(json), "a message/stream event"),
    last: isFinal,
  },
  get: {
    method: "tasks/get",
    params: (r) => dialectV03.v1ToV03TaskQuery(r),
    result: (json) => decodeResult(TaskSchema, dialectV03.v03ToV1Task(json), "the tasks/get result"),
  },
  cancel: {
    method: "tasks/cancel",
    params: (r) => dialectV03.v1ToV03CancelParams(r),
    result: (json) => decodeResult(TaskSchema, dialectV03.v03ToV1Task(json), "the tasks/cancel result"),
  },
  subscribe: {
    method: "tasks/resubscribe",
    params: (r) => dialectV03.v1ToV03SubscribeParams(r),
    result: (json) => decodeResult(StreamResponseSchema, dialectV03.v03ToV1StreamResult(json), "a tasks/resubscribe event"),
    last: isFinal,
  },
};
