import type { DescMethod, MessageShape } from "@bufbuild/protobuf";
import type { Empty } from "@bufbuild/protobuf/wkt";
import {
  type AgentCard,
  type CancelTaskRequest,
  type DeleteTaskPushNotificationConfigRequest,
  type GetExtendedAgentCardRequest,
  type GetTaskPushNotificationConfigRequest,
  type GetTaskRequest,
  type ListTaskPushNotificationConfigsRequest,
  type ListTaskPushNotificationConfigsResponse,
  type ListTasksRequest,
  type ListTasksResponse,
  type SendMessageRequest,
  type SendMessageResponse,
  type StreamResponse,
  type SubscribeToTaskRequest,
  type Task,
  type TaskPushNotificationConfig,
} from "../../gen/a2a/v1/a2a_pb.js";
import { OPERATIONS, type A2AVersion, type Operation } from "../protocol/index.js";
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
  /** §9.4.7, §9.4.8; undefined where this client does not speak the version's method (v0.3). */
  readonly createPushConfig?: JsonRpcOp<TaskPushNotificationConfig, TaskPushNotificationConfig>;
  readonly getPushConfig?: JsonRpcOp<GetTaskPushNotificationConfigRequest, TaskPushNotificationConfig>;
  readonly listPushConfigs?: JsonRpcOp<ListTaskPushNotificationConfigsRequest, ListTaskPushNotificationConfigsResponse>;
  readonly deletePushConfig?: JsonRpcOp<DeleteTaskPushNotificationConfigRequest, Empty>;
  readonly extendedCard?: JsonRpcOp<GetExtendedAgentCardRequest, AgentCard>;
}

/** An operation's v1.0 method: its name and ProtoJSON request and result, from the one operation table. */
function v1<M extends DescMethod>(op: Operation<M>): JsonRpcOp<MessageShape<M["input"]>, MessageShape<M["output"]>> {
  const method = op.jsonRpc.v1;
  const input: M["input"] = op.rpc.input;
  const output: M["output"] = op.rpc.output;
  return { method, params: (r) => encodeRequest(input, r), result: (json) => decodeResult(output, json, `the ${method} result`) };
}

/**
 * An operation's v0.3 method, translated both ways by the operation's v0.3
 * dialect in the one operation table, the server's own, so the two
 * directions cannot drift apart.
 */
function v03<M extends DescMethod>(op: Operation<M>): JsonRpcOp<MessageShape<M["input"]>, MessageShape<M["output"]>> {
  const method = op.jsonRpc.v03;
  const dialect = op.v03;
  if (!method || !dialect?.toV03Params || !dialect.toV1Result) throw new Error(`${op.rpc.name} has no v0.3 JSON-RPC method a client can call`);
  const toV03Params = dialect.toV03Params.bind(dialect);
  const toV1Result = dialect.toV1Result.bind(dialect);
  const output: M["output"] = op.rpc.output;
  const what = op.streaming ? `a ${method} event` : `the ${method} result`;
  return { method, params: (r) => toV03Params(r), result: (json) => decodeResult(output, toV1Result(json), what) };
}

/** §9.4: v1.0 methods, PascalCase, ProtoJSON params and results. */
export const JSONRPC_V1: JsonRpcDialect = {
  version: "1.0",
  send: v1(OPERATIONS.sendMessage),
  stream: v1(OPERATIONS.sendStreamingMessage),
  get: v1(OPERATIONS.getTask),
  list: v1(OPERATIONS.listTasks),
  cancel: v1(OPERATIONS.cancelTask),
  subscribe: v1(OPERATIONS.subscribeToTask),
  createPushConfig: v1(OPERATIONS.createTaskPushNotificationConfig),
  getPushConfig: v1(OPERATIONS.getTaskPushNotificationConfig),
  listPushConfigs: v1(OPERATIONS.listTaskPushNotificationConfigs),
  deletePushConfig: v1(OPERATIONS.deleteTaskPushNotificationConfig),
  extendedCard: v1(OPERATIONS.getExtendedAgentCard),
};

/** A v0.3 status-update with `final: true` is the last event of its stream (v0.3 schema). */
function isFinal(json: unknown): boolean {
  return typeof json === "object" && json !== null && (json as { kind?: unknown }).kind === "status-update" && (json as { final?: unknown }).final === true;
}

/** v0.3 methods (slash names, kind-tagged JSON). */
export const JSONRPC_V03: JsonRpcDialect = {
  version: "0.3",
  send: v03(OPERATIONS.sendMessage),
  stream: { ...v03(OPERATIONS.sendStreamingMessage), last: isFinal },
  get: v03(OPERATIONS.getTask),
  cancel: v03(OPERATIONS.cancelTask),
  subscribe: { ...v03(OPERATIONS.subscribeToTask), last: isFinal },
};
