import {
  A2AService,
  CancelTaskRequestSchema,
  DeleteTaskPushNotificationConfigRequestSchema,
  GetExtendedAgentCardRequestSchema,
  GetTaskPushNotificationConfigRequestSchema,
  GetTaskRequestSchema,
  ListTaskPushNotificationConfigsRequestSchema,
  SendMessageRequestSchema,
  SubscribeToTaskRequestSchema,
  TaskPushNotificationConfigSchema,
} from "../../../gen/a2a/v1/a2a_pb.js";
import { dialectV03, dialectV1 } from "../../protocol/index.js";
import type { RpcMethod } from "./rpc-method.js";

const { lenientPushConfig, lenientSendRequest, readV1 } = dialectV1;
const {
  v03ToV1CancelParams,
  v03ToV1PushDeleteParams,
  v03ToV1PushGetParams,
  v03ToV1PushListParams,
  v03ToV1PushSetParams,
  v03ToV1SendParams,
  v03ToV1SubscribeParams,
  v03ToV1TaskQuery,
  v1ToV03AgentCard,
  v1ToV03PushConfig,
  v1ToV03SendResult,
  v1ToV03StreamResult,
  v1ToV03Task,
} = dialectV03;

const m = A2AService.method;

/**
 * The v0.3 methods (slash-separated names of the v0.3.0 schema). Each reads
 * its v0.3 params into the v1.0 request, calls the same service method as
 * its v1.0 twin, and writes the v0.3 result.
 */
export const V03_METHODS: readonly RpcMethod[] = [
  {
    kind: "unary",
    name: "message/send",
    version: "0.3",
    rpc: m.sendMessage,
    invoke: async (s, params, ctx) => v1ToV03SendResult(await s.sendMessage(readV1(SendMessageRequestSchema, v03ToV1SendParams(params), lenientSendRequest), ctx)),
  },
  {
    kind: "stream",
    name: "message/stream",
    version: "0.3",
    rpc: m.sendStreamingMessage,
    resumable: false,
    open: (s, params, ctx) => s.sendStreamingMessageSequenced(readV1(SendMessageRequestSchema, v03ToV1SendParams(params), lenientSendRequest), ctx),
    encode: v1ToV03StreamResult,
  },
  {
    kind: "unary",
    name: "tasks/get",
    version: "0.3",
    rpc: m.getTask,
    invoke: async (s, params, ctx) => v1ToV03Task(await s.getTask(readV1(GetTaskRequestSchema, v03ToV1TaskQuery(params)), ctx)),
  },
  {
    kind: "unary",
    name: "tasks/cancel",
    version: "0.3",
    rpc: m.cancelTask,
    invoke: async (s, params, ctx) => v1ToV03Task(await s.cancelTask(readV1(CancelTaskRequestSchema, v03ToV1CancelParams(params)), ctx)),
  },
  {
    kind: "stream",
    name: "tasks/resubscribe",
    version: "0.3",
    rpc: m.subscribeToTask,
    resumable: true,
    open: (s, params, ctx, afterSeq) => s.subscribeSequenced(readV1(SubscribeToTaskRequestSchema, v03ToV1SubscribeParams(params)), ctx, afterSeq),
    encode: v1ToV03StreamResult,
  },
  {
    kind: "unary",
    name: "tasks/pushNotificationConfig/set",
    version: "0.3",
    rpc: m.createTaskPushNotificationConfig,
    invoke: async (s, params, ctx) =>
      v1ToV03PushConfig(await s.createTaskPushNotificationConfig(readV1(TaskPushNotificationConfigSchema, v03ToV1PushSetParams(params), lenientPushConfig), ctx)),
  },
  {
    kind: "unary",
    name: "tasks/pushNotificationConfig/get",
    version: "0.3",
    rpc: m.getTaskPushNotificationConfig,
    invoke: async (s, params, ctx) =>
      v1ToV03PushConfig(await s.getTaskPushNotificationConfig(readV1(GetTaskPushNotificationConfigRequestSchema, v03ToV1PushGetParams(params)), ctx)),
  },
  {
    kind: "unary",
    name: "tasks/pushNotificationConfig/list",
    version: "0.3",
    rpc: m.listTaskPushNotificationConfigs,
    // v0.3: the result is a bare array of TaskPushNotificationConfig.
    invoke: async (s, params, ctx) =>
      (await s.listTaskPushNotificationConfigs(readV1(ListTaskPushNotificationConfigsRequestSchema, v03ToV1PushListParams(params)), ctx)).configs.map(v1ToV03PushConfig),
  },
  {
    kind: "unary",
    name: "tasks/pushNotificationConfig/delete",
    version: "0.3",
    rpc: m.deleteTaskPushNotificationConfig,
    // v0.3: the result is null.
    invoke: async (s, params, ctx) => {
      await s.deleteTaskPushNotificationConfig(readV1(DeleteTaskPushNotificationConfigRequestSchema, v03ToV1PushDeleteParams(params)), ctx);
      return null;
    },
  },
  {
    kind: "unary",
    name: "agent/getAuthenticatedExtendedCard",
    version: "0.3",
    rpc: m.getExtendedAgentCard,
    invoke: async (s, _params, ctx) => v1ToV03AgentCard(await s.getExtendedAgentCard(readV1(GetExtendedAgentCardRequestSchema, {}), ctx)),
  },
];
