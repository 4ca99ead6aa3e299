import type { DescMessage, MessageShape } from "@bufbuild/protobuf";
import type { HandlerContext } from "@connectrpc/connect";
import { EmptySchema } from "@bufbuild/protobuf/wkt";
import {
  A2AService,
  AgentCardSchema,
  CancelTaskRequestSchema,
  DeleteTaskPushNotificationConfigRequestSchema,
  GetExtendedAgentCardRequestSchema,
  GetTaskPushNotificationConfigRequestSchema,
  GetTaskRequestSchema,
  ListTaskPushNotificationConfigsRequestSchema,
  ListTaskPushNotificationConfigsResponseSchema,
  ListTasksRequestSchema,
  ListTasksResponseSchema,
  SendMessageRequestSchema,
  SendMessageResponseSchema,
  StreamResponseSchema,
  SubscribeToTaskRequestSchema,
  TaskPushNotificationConfigSchema,
  TaskSchema,
} from "../../../gen/a2a/v1/a2a_pb.js";
import type { A2AServiceApi } from "../../core/index.js";
import { dialectV1 } from "../../protocol/index.js";
import type { RpcMethod, StreamRpcMethod, UnaryRpcMethod } from "./rpc-method.js";

const { lenientListTasksRequest, lenientPushConfig, lenientSendRequest, readV1, writeV1 } = dialectV1;

const m = A2AService.method;

function unary<Req extends DescMessage, Res extends DescMessage>(
  name: string,
  rpc: UnaryRpcMethod["rpc"],
  request: Req,
  response: Res,
  call: (service: A2AServiceApi, req: MessageShape<Req>, ctx: HandlerContext) => Promise<MessageShape<Res>>,
  normalize?: (json: unknown) => unknown,
): UnaryRpcMethod {
  return {
    kind: "unary",
    name,
    version: "1.0",
    rpc,
    invoke: async (service, params, ctx) => writeV1(response, await call(service, readV1(request, params, normalize), ctx)),
  };
}

const encodeV1: StreamRpcMethod["encode"] = (event) => writeV1(StreamResponseSchema, event);

/** §9.4: the v1.0 methods, PascalCase names matching the gRPC service (§5.3). */
export const V1_METHODS: readonly RpcMethod[] = [
  unary("SendMessage", m.sendMessage, SendMessageRequestSchema, SendMessageResponseSchema, (s, r, c) => s.sendMessage(r, c), lenientSendRequest),
  {
    kind: "stream",
    name: "SendStreamingMessage",
    version: "1.0",
    rpc: m.sendStreamingMessage,
    resumable: false,
    open: (s, params, ctx) => s.sendStreamingMessageSequenced(readV1(SendMessageRequestSchema, params, lenientSendRequest), ctx),
    encode: encodeV1,
  },
  unary("GetTask", m.getTask, GetTaskRequestSchema, TaskSchema, (s, r, c) => s.getTask(r, c)),
  unary("ListTasks", m.listTasks, ListTasksRequestSchema, ListTasksResponseSchema, (s, r, c) => s.listTasks(r, c), lenientListTasksRequest),
  unary("CancelTask", m.cancelTask, CancelTaskRequestSchema, TaskSchema, (s, r, c) => s.cancelTask(r, c)),
  {
    kind: "stream",
    name: "SubscribeToTask",
    version: "1.0",
    rpc: m.subscribeToTask,
    resumable: true,
    open: (s, params, ctx, afterSeq) => s.subscribeSequenced(readV1(SubscribeToTaskRequestSchema, params), ctx, afterSeq),
    encode: encodeV1,
  },
  unary(
    "CreateTaskPushNotificationConfig",
    m.createTaskPushNotificationConfig,
    TaskPushNotificationConfigSchema,
    TaskPushNotificationConfigSchema,
    (s, r, c) => s.createTaskPushNotificationConfig(r, c),
    lenientPushConfig,
  ),
  unary(
    "GetTaskPushNotificationConfig",
    m.getTaskPushNotificationConfig,
    GetTaskPushNotificationConfigRequestSchema,
    TaskPushNotificationConfigSchema,
    (s, r, c) => s.getTaskPushNotificationConfig(r, c),
  ),
  unary(
    "ListTaskPushNotificationConfigs",
    m.listTaskPushNotificationConfigs,
    ListTaskPushNotificationConfigsRequestSchema,
    ListTaskPushNotificationConfigsResponseSchema,
    (s, r, c) => s.listTaskPushNotificationConfigs(r, c),
  ),
  unary(
    "DeleteTaskPushNotificationConfig",
    m.deleteTaskPushNotificationConfig,
    DeleteTaskPushNotificationConfigRequestSchema,
    EmptySchema,
    (s, r, c) => s.deleteTaskPushNotificationConfig(r, c),
  ),
  unary("GetExtendedAgentCard", m.getExtendedAgentCard, GetExtendedAgentCardRequestSchema, AgentCardSchema, (s, r, c) => s.getExtendedAgentCard(r, c)),
];
