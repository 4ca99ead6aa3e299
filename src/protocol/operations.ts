import type { DescMethod, MessageShape } from "@bufbuild/protobuf";
import { A2AService } from "../../gen/a2a/v1/a2a_pb.js";
import { lenientListTasksRequest, lenientPushConfig, lenientSendRequest } from "./dialect-v1.js";
import { v03ToV1AgentCard, v1ToV03AgentCard } from "./v03-card.js";
import {
  v03ToV1CancelParams,
  v03ToV1PushDeleteParams,
  v03ToV1PushGetParams,
  v03ToV1PushListParams,
  v03ToV1PushSetParams,
  v03ToV1SendParams,
  v03ToV1SubscribeParams,
  v03ToV1TaskQuery,
  v1ToV03CancelParams,
  v1ToV03PushConfig,
  v1ToV03SendParams,
  v1ToV03SubscribeParams,
  v1ToV03TaskQuery,
} from "./v03-requests.js";
import { v03ToV1SendResult, v03ToV1StreamResult, v03ToV1Task, v1ToV03SendResult, v1ToV03StreamResult, v1ToV03Task } from "./v03-tasks.js";

/** An A2A operation, by the service method's local name (§5.3: one operation, one gRPC method). */
export type OperationName = keyof typeof A2AService.method;

/** The HTTP methods the HTTP+JSON binding uses (§11.1). */
export type RestVerb = "GET" | "POST" | "DELETE";

/**
 * The v0.3 JSON-RPC dialect of an operation, both ways: the server reads
 * v0.3 params and writes v0.3 answers, a client the reverse (only for the
 * operations a client calls in v0.3).
 */
export interface V03Dialect<M extends DescMethod = DescMethod> {
  /** v0.3 params to the JSON of the v1.0 request. */
  toV1Params(params: unknown): unknown;
  /** The v1.0 answer (the response, or one stream event) as v0.3 JSON. */
  toV03Result(answer: MessageShape<M["output"]>): unknown;
  /** The v1.0 request as v0.3 params. */
  toV03Params?(request: MessageShape<M["input"]>): unknown;
  /** A v0.3 result (or stream event) to the JSON of the v1.0 answer. */
  toV1Result?(json: unknown): unknown;
}

/** One operation on every binding: the columns each binding reads. */
export interface Operation<M extends DescMethod = DescMethod> {
  /** The gRPC/Connect method; its `input` and `output` are the v1.0 request and response (a stream's event). */
  readonly rpc: M;
  /** Whether the answer is a stream of StreamResponse (§3.1.2, §3.1.6). */
  readonly streaming: boolean;
  /** Whether a dropped stream resumes after Last-Event-ID (subscriptions). */
  readonly resumable: boolean;
  /** Reads the request's JSON leniently (either enum spelling, either part shape) before ProtoJSON. */
  readonly lenient?: (json: unknown) => unknown;
  /** §9.4: the v1.0 JSON-RPC method name, and the v0.3 one where v0.3 had the operation. */
  readonly jsonRpc: { readonly v1: string; readonly v03?: string };
  /** §11.3: the HTTP+JSON routes (each also served under a `/{tenant}` prefix). */
  readonly rest: ReadonlyArray<{ readonly verb: RestVerb; readonly path: string }>;
  /** How the v0.3 method (`jsonRpc.v03`) translates; present exactly when there is one. */
  readonly v03?: V03Dialect<M>;
}

const m = A2AService.method;

function op<M extends DescMethod>(
  rpc: M,
  jsonRpc: Operation["jsonRpc"],
  rest: Operation["rest"],
  options: { lenient?: Operation["lenient"]; resumable?: boolean; v03?: V03Dialect<M> } = {},
): Operation<M> {
  if ((jsonRpc.v03 === undefined) !== (options.v03 === undefined)) throw new Error(`${rpc.name}: a v0.3 method name needs its dialect, and a dialect its name`);
  return { rpc, streaming: rpc.methodKind === "server_streaming", resumable: options.resumable ?? false, lenient: options.lenient, jsonRpc, rest, v03: options.v03 };
}

/** v0.3 send and stream params; a stream's answer is translated event by event. */
const V03_SEND = { toV1Params: v03ToV1SendParams, toV03Params: v1ToV03SendParams };
const V03_TASK_RESULT = { toV03Result: v1ToV03Task, toV1Result: v03ToV1Task };
const V03_STREAM_RESULT = { toV03Result: v1ToV03StreamResult, toV1Result: v03ToV1StreamResult };

/**
 * §5.3: every A2A operation with its name or route on each binding, written
 * once. The JSON-RPC method tables (v1.0 and v0.3), the REST routes and the
 * client's dialects are derived from it. Subscribe answers GET as well as
 * POST: §11.3.2 names POST, while v0.3's REST binding subscribed with GET
 * and clients ported from it still do.
 */
export const OPERATIONS = {
  sendMessage: op(m.sendMessage, { v1: "SendMessage", v03: "message/send" }, [{ verb: "POST", path: "/message:send" }], { lenient: lenientSendRequest, v03: { ...V03_SEND, toV03Result: v1ToV03SendResult, toV1Result: v03ToV1SendResult } }),
  sendStreamingMessage: op(m.sendStreamingMessage, { v1: "SendStreamingMessage", v03: "message/stream" }, [{ verb: "POST", path: "/message:stream" }], { lenient: lenientSendRequest, v03: { ...V03_SEND, ...V03_STREAM_RESULT } }),
  getTask: op(m.getTask, { v1: "GetTask", v03: "tasks/get" }, [{ verb: "GET", path: "/tasks/{id}" }], { v03: { toV1Params: v03ToV1TaskQuery, toV03Params: v1ToV03TaskQuery, ...V03_TASK_RESULT } }),
  listTasks: op(m.listTasks, { v1: "ListTasks" }, [{ verb: "GET", path: "/tasks" }], { lenient: lenientListTasksRequest }),
  cancelTask: op(m.cancelTask, { v1: "CancelTask", v03: "tasks/cancel" }, [{ verb: "POST", path: "/tasks/{id}:cancel" }], { v03: { toV1Params: v03ToV1CancelParams, toV03Params: v1ToV03CancelParams, ...V03_TASK_RESULT } }),
  subscribeToTask: op(
    m.subscribeToTask,
    { v1: "SubscribeToTask", v03: "tasks/resubscribe" },
    [
      { verb: "GET", path: "/tasks/{id}:subscribe" },
      { verb: "POST", path: "/tasks/{id}:subscribe" },
    ],
    { resumable: true, v03: { toV1Params: v03ToV1SubscribeParams, toV03Params: v1ToV03SubscribeParams, ...V03_STREAM_RESULT } },
  ),
  createTaskPushNotificationConfig: op(
    m.createTaskPushNotificationConfig,
    { v1: "CreateTaskPushNotificationConfig", v03: "tasks/pushNotificationConfig/set" },
    [{ verb: "POST", path: "/tasks/{taskId}/pushNotificationConfigs" }],
    { lenient: lenientPushConfig, v03: { toV1Params: v03ToV1PushSetParams, toV03Result: v1ToV03PushConfig } },
  ),
  listTaskPushNotificationConfigs: op(
    m.listTaskPushNotificationConfigs,
    { v1: "ListTaskPushNotificationConfigs", v03: "tasks/pushNotificationConfig/list" },
    [{ verb: "GET", path: "/tasks/{taskId}/pushNotificationConfigs" }],
    // v0.3: the result is a bare array of TaskPushNotificationConfig.
    { v03: { toV1Params: v03ToV1PushListParams, toV03Result: (res) => res.configs.map(v1ToV03PushConfig) } },
  ),
  getTaskPushNotificationConfig: op(
    m.getTaskPushNotificationConfig,
    { v1: "GetTaskPushNotificationConfig", v03: "tasks/pushNotificationConfig/get" },
    [{ verb: "GET", path: "/tasks/{taskId}/pushNotificationConfigs/{id}" }],
    { v03: { toV1Params: v03ToV1PushGetParams, toV03Result: v1ToV03PushConfig } },
  ),
  deleteTaskPushNotificationConfig: op(
    m.deleteTaskPushNotificationConfig,
    { v1: "DeleteTaskPushNotificationConfig", v03: "tasks/pushNotificationConfig/delete" },
    [{ verb: "DELETE", path: "/tasks/{taskId}/pushNotificationConfigs/{id}" }],
    // v0.3: the result is null.
    { v03: { toV1Params: v03ToV1PushDeleteParams, toV03Result: () => null } },
  ),
  getExtendedAgentCard: op(m.getExtendedAgentCard, { v1: "GetExtendedAgentCard", v03: "agent/getAuthenticatedExtendedCard" }, [{ verb: "GET", path: "/extendedAgentCard" }], {
    // v0.3's method takes no params.
    v03: { toV1Params: () => ({}), toV03Result: v1ToV03AgentCard, toV1Result: v03ToV1AgentCard },
  }),
} as const satisfies Readonly<Record<OperationName, Operation>>;

/** The operations in table order. */
export const OPERATION_LIST: readonly Operation[] = Object.values(OPERATIONS);
