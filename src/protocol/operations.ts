import type { DescMethod } from "@bufbuild/protobuf";
import { A2AService } from "../../gen/a2a/v1/a2a_pb.js";
import { lenientListTasksRequest, lenientPushConfig, lenientSendRequest } from "./dialect-v1.js";

/** An A2A operation, by the service method's local name (§5.3: one operation, one gRPC method). */
export type OperationName = keyof typeof A2AService.method;

/** The HTTP methods the HTTP+JSON binding uses (§11.1). */
export type RestVerb = "GET" | "POST" | "DELETE";

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
}

const m = A2AService.method;

function op<M extends DescMethod>(rpc: M, jsonRpc: Operation["jsonRpc"], rest: Operation["rest"], options: { lenient?: Operation["lenient"]; resumable?: boolean } = {}): Operation<M> {
  return { rpc, streaming: rpc.methodKind === "server_streaming", resumable: options.resumable ?? false, lenient: options.lenient, jsonRpc, rest };
}

/**
 * §5.3: every A2A operation with its name or route on each binding, written
 * once. The JSON-RPC method tables (v1.0 and v0.3), the REST routes and the
 * client's dialects are derived from it. Subscribe answers GET as well as
 * POST: §11.3.2 names POST, while v0.3's REST binding subscribed with GET
 * and clients ported from it still do.
 */
export const OPERATIONS = {
  sendMessage: op(m.sendMessage, { v1: "SendMessage", v03: "message/send" }, [{ verb: "POST", path: "/message:send" }], { lenient: lenientSendRequest }),
  sendStreamingMessage: op(m.sendStreamingMessage, { v1: "SendStreamingMessage", v03: "message/stream" }, [{ verb: "POST", path: "/message:stream" }], { lenient: lenientSendRequest }),
  getTask: op(m.getTask, { v1: "GetTask", v03: "tasks/get" }, [{ verb: "GET", path: "/tasks/{id}" }]),
  listTasks: op(m.listTasks, { v1: "ListTasks" }, [{ verb: "GET", path: "/tasks" }], { lenient: lenientListTasksRequest }),
  cancelTask: op(m.cancelTask, { v1: "CancelTask", v03: "tasks/cancel" }, [{ verb: "POST", path: "/tasks/{id}:cancel" }]),
  subscribeToTask: op(
    m.subscribeToTask,
    { v1: "SubscribeToTask", v03: "tasks/resubscribe" },
    [
      { verb: "GET", path: "/tasks/{id}:subscribe" },
      { verb: "POST", path: "/tasks/{id}:subscribe" },
    ],
    { resumable: true },
  ),
  createTaskPushNotificationConfig: op(
    m.createTaskPushNotificationConfig,
    { v1: "CreateTaskPushNotificationConfig", v03: "tasks/pushNotificationConfig/set" },
    [{ verb: "POST", path: "/tasks/{taskId}/pushNotificationConfigs" }],
    { lenient: lenientPushConfig },
  ),
  listTaskPushNotificationConfigs: op(
    m.listTaskPushNotificationConfigs,
    { v1: "ListTaskPushNotificationConfigs", v03: "tasks/pushNotificationConfig/list" },
    [{ verb: "GET", path: "/tasks/{taskId}/pushNotificationConfigs" }],
  ),
  getTaskPushNotificationConfig: op(
    m.getTaskPushNotificationConfig,
    { v1: "GetTaskPushNotificationConfig", v03: "tasks/pushNotificationConfig/get" },
    [{ verb: "GET", path: "/tasks/{taskId}/pushNotificationConfigs/{id}" }],
  ),
  deleteTaskPushNotificationConfig: op(
    m.deleteTaskPushNotificationConfig,
    { v1: "DeleteTaskPushNotificationConfig", v03: "tasks/pushNotificationConfig/delete" },
    [{ verb: "DELETE", path: "/tasks/{taskId}/pushNotificationConfigs/{id}" }],
  ),
  getExtendedAgentCard: op(m.getExtendedAgentCard, { v1: "GetExtendedAgentCard", v03: "agent/getAuthenticatedExtendedCard" }, [{ verb: "GET", path: "/extendedAgentCard" }]),
} as const satisfies Readonly<Record<OperationName, Operation>>;

/** The operations in table order. */
export const OPERATION_LIST: readonly Operation[] = Object.values(OPERATIONS);
