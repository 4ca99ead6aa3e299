import {
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
import { dialectV03, dialectV1, OPERATIONS, type Operation } from "../../protocol/index.js";
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

/** The name, version and RPC of an operation's v0.3 method, from the one operation table. */
function v03(op: Operation): { name: string; version: "0.3"; rpc: Operation["rpc"] } {
  if (!op.jsonRpc.v03) throw new Error(`${op.rpc.name} has no v0.3 JSON-RPC method`);
  return { name: op.jsonRpc.v03, version: "0.3", rpc: op.rpc };
}

/**
 * The v0.3 methods (slash-separated names of the v0.3.0 schema). Each reads
 * its v0.3 params into the v1.0 request, calls the same service method as
 * its v1.0 twin, and writes the v0.3 result.
 */
export const V03_METHODS: readonly RpcMethod[] = [
  {
    kind: "unary",
    ...v03(OPERATIONS.sendMessage),
    invoke: async (s, params, ctx) => v1ToV03SendResult(await s.sendMessage(readV1(SendMessageRequestSchema, v03ToV1SendParams(params), lenientSendRequest), ctx)),
  },
  {
    kind: "stream",
    ...v03(OPERATIONS.sendStreamingMessage),
    resumable: false,
    open: (s, params, ctx) => s.sendStreamingMessageSequenced(readV1(SendMessageRequestSchema, v03ToV1SendParams(params), lenientSendRequest), ctx),
    encode: v1ToV03StreamResult,
  },
  {
    kind: "unary",
    ...v03(OPERATIONS.getTask),
    invoke: async (s, params, ctx) => v1ToV03Task(await s.getTask(readV1(GetTaskRequestSchema, v03ToV1TaskQuery(params)), ctx)),
  },
  {
    kind: "unary",
    ...v03(OPERATIONS.cancelTask),
    invoke: async (s, params, ctx) => v1ToV03Task(await s.cancelTask(readV1(CancelTaskRequestSchema, v03ToV1CancelParams(params)), ctx)),
  },
  {
    kind: "stream",
    ...v03(OPERATIONS.subscribeToTask),
    resumable: true,
    open: (s, params, ctx, afterSeq) => s.subscribeSequenced(readV1(SubscribeToTaskRequestSchema, v03ToV1SubscribeParams(params)), ctx, afterSeq),
    encode: v1ToV03StreamResult,
  },
  {
    kind: "unary",
    ...v03(OPERATIONS.createTaskPushNotificationConfig),
    invoke: async (s, params, ctx) =>
      v1ToV03PushConfig(await s.createTaskPushNotificationConfig(readV1(TaskPushNotificationConfigSchema, v03ToV1PushSetParams(params), lenientPushConfig), ctx)),
  },
  {
    kind: "unary",
    ...v03(OPERATIONS.getTaskPushNotificationConfig),
    invoke: async (s, params, ctx) =>
      v1ToV03PushConfig(await s.getTaskPushNotificationConfig(readV1(GetTaskPushNotificationConfigRequestSchema, v03ToV1PushGetParams(params)), ctx)),
  },
  {
    kind: "unary",
    ...v03(OPERATIONS.listTaskPushNotificationConfigs),
    // v0.3: the result is a bare array of TaskPushNotificationConfig.
    invoke: async (s, params, ctx) =>
      (await s.listTaskPushNotificationConfigs(readV1(ListTaskPushNotificationConfigsRequestSchema, v03ToV1PushListParams(params)), ctx)).configs.map(v1ToV03PushConfig),
  },
  {
    kind: "unary",
    ...v03(OPERATIONS.deleteTaskPushNotificationConfig),
    // v0.3: the result is null.
    invoke: async (s, params, ctx) => {
      await s.deleteTaskPushNotificationConfig(readV1(DeleteTaskPushNotificationConfigRequestSchema, v03ToV1PushDeleteParams(params)), ctx);
      return null;
    },
  },
  {
    kind: "unary",
    ...v03(OPERATIONS.getExtendedAgentCard),
    invoke: async (s, _params, ctx) => v1ToV03AgentCard(await s.getExtendedAgentCard(readV1(GetExtendedAgentCardRequestSchema, {}), ctx)),
  },
];
