/**
 * The v0.3 proto's service (`a2a.v1.A2AService`), method by method, as the
 * v1.0 operation it is. The v0.3 gRPC and HTTP+JSON bindings both speak these
 * messages (binary, or ProtoJSON under /v1/...); each request goes proto shape
 * → v0.3 JSON → the operation's v0.3 dialect → the v1.0 request, and each
 * answer back the same way, so the v0.3 ↔ v1.0 rules stay the JSON-RPC
 * dialect's alone.
 */
import type { DescMethod, JsonObject } from "@bufbuild/protobuf";
import { A2AService as V03Service } from "../../gen/a2a/v03/a2a_pb.js";
import { OPERATIONS, type Operation, type V03Dialect } from "./operations.js";
import {
  v03CardToProto,
  v03ConfigIdsOf,
  v03PushConfigFromProto,
  v03PushConfigToProto,
  v03SendParamsFromProto,
  v03StreamResultToProto,
  v03TaskIdOf,
  v03TaskToProto,
} from "./v03-proto.js";
import type { V03AgentCard } from "./v03-types.js";

/** One method of the v0.3 service, translated onto a v1.0 operation. */
export interface V03Rpc {
  /** The v0.3 proto method (package a2a.v1). */
  readonly rpc: DescMethod;
  /** The v1.0 operation it is; its `rpc` is what the service runs. */
  readonly op: Operation;
  /** The v0.3 request (ProtoJSON) → the JSON of the v1.0 request, to be read with the operation's lenient reader. */
  toV1(request: JsonObject): unknown;
  /** The v1.0 answer (the response, or one stream event) → ProtoJSON of the v0.3 answer. */
  toV03(answer: unknown): JsonObject;
}

const taskId = (r: JsonObject) => ({ id: v03TaskIdOf(r.name) });
const configIds = (r: JsonObject) => {
  const { taskId: id, configId } = v03ConfigIdsOf(r.name);
  return { id, pushNotificationConfigId: configId || undefined };
};

function v03Rpc(rpc: DescMethod, op: Operation, params: (r: JsonObject) => unknown, result: (v03: unknown) => JsonObject): V03Rpc {
  const dialect = op.v03 as V03Dialect;
  return { rpc, op, toV1: (r) => dialect.toV1Params(params(r)), toV03: (answer) => result(dialect.toV03Result(answer as never)) };
}

const m = V03Service.method;

/** Every method of the v0.3 service, by its local name. */
export const V03_RPCS: Readonly<Record<keyof typeof m, V03Rpc>> = {
  sendMessage: v03Rpc(m.sendMessage, OPERATIONS.sendMessage, v03SendParamsFromProto, v03StreamResultToProto),
  sendStreamingMessage: v03Rpc(m.sendStreamingMessage, OPERATIONS.sendStreamingMessage, v03SendParamsFromProto, v03StreamResultToProto),
  // proto3: a historyLength of 0 is "not set": the whole history, as v0.3 JSON without the field.
  getTask: v03Rpc(m.getTask, OPERATIONS.getTask, (r) => ({ ...taskId(r), historyLength: r.historyLength || undefined }), v03TaskToProto),
  cancelTask: v03Rpc(m.cancelTask, OPERATIONS.cancelTask, taskId, v03TaskToProto),
  taskSubscription: v03Rpc(m.taskSubscription, OPERATIONS.subscribeToTask, taskId, v03StreamResultToProto),
  createTaskPushNotificationConfig: v03Rpc(
    m.createTaskPushNotificationConfig,
    OPERATIONS.createTaskPushNotificationConfig,
    (r) => v03PushConfigFromProto(v03TaskIdOf(r.parent, "parent"), r.config, typeof r.configId === "string" ? r.configId : ""),
    v03PushConfigToProto,
  ),
  getTaskPushNotificationConfig: v03Rpc(m.getTaskPushNotificationConfig, OPERATIONS.getTaskPushNotificationConfig, configIds, v03PushConfigToProto),
  listTaskPushNotificationConfig: v03Rpc(
    m.listTaskPushNotificationConfig,
    OPERATIONS.listTaskPushNotificationConfigs,
    (r) => ({ id: v03TaskIdOf(r.parent, "parent") }),
    (configs) => ({ configs: (configs as unknown[]).map(v03PushConfigToProto) }),
  ),
  // v0.3's GetAgentCard is the card for an authenticated client: the v1.0 extended card (§3.1.11).
  getAgentCard: v03Rpc(m.getAgentCard, OPERATIONS.getExtendedAgentCard, () => ({}), (card) => v03CardToProto(card as V03AgentCard)),
  deleteTaskPushNotificationConfig: v03Rpc(m.deleteTaskPushNotificationConfig, OPERATIONS.deleteTaskPushNotificationConfig, configIds, () => ({})),
};

/** The v0.3 service descriptor, for the bindings that register or route it. */
export { V03Service };
