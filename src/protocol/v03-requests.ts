/** The v0.3 dialect of request params (message/send, tasks/*, push configs), both directions. */
import { type JsonObject } from "@bufbuild/protobuf";
import type { CancelTaskRequest, DeleteTaskPushNotificationConfigRequest, GetTaskPushNotificationConfigRequest, GetTaskRequest, ListTaskPushNotificationConfigsRequest, SendMessageRequest, SubscribeToTaskRequest, TaskPushNotificationConfig } from "../../gen/a2a/v1/a2a_pb.js";
import { invalidParams } from "./a2a-error.js";
import type { V03SendParams, V03TaskPushConfig } from "./v03-types.js";
import { compact, isObject, nonEmpty } from "./v03-json.js";
import { v03ToV1Message, v1ToV03Message } from "./v03-parts.js";

/**
 * A v0.3 PushNotificationConfig → a v1.0 TaskPushNotificationConfig. v0.3
 * clients address "the" config of a task without an id, so a config set
 * without one gets the task id as its id (and `get` without one asks for it).
 */
export function v03ToV1PushConfig(config: unknown, taskId: unknown): unknown {
  if (!isObject(config)) return config;
  const auth = config.authentication;
  const authentication = isObject(auth)
    ? compact({ scheme: Array.isArray(auth.schemes) ? auth.schemes[0] : auth.scheme, credentials: auth.credentials })
    : auth;
  const id = config.id ?? (typeof taskId === "string" && taskId !== "" ? taskId : undefined);
  return compact({ taskId, id, url: config.url, token: config.token, authentication });
}

/** v0.3 MessageSendConfiguration → v1.0 SendMessageConfiguration; `blocking: false` is `returnImmediately: true`. */
export function v03ToV1SendConfiguration(config: unknown): unknown {
  if (!isObject(config)) return config;
  const { blocking } = config;
  if (blocking !== undefined && blocking !== null && typeof blocking !== "boolean") {
    throw invalidParams("configuration.blocking", "must be a boolean");
  }
  return compact({
    acceptedOutputModes: config.acceptedOutputModes,
    historyLength: config.historyLength,
    // v0.3: absent means blocking, like v1.0's returnImmediately unset (§3.2.2).
    returnImmediately: blocking === false ? true : undefined,
    taskPushNotificationConfig: config.pushNotificationConfig === undefined ? undefined : v03ToV1PushConfig(config.pushNotificationConfig, undefined),
  });
}

/** v0.3 MessageSendParams → v1.0 SendMessageRequest. */
export function v03ToV1SendParams(params: unknown): unknown {
  if (!isObject(params)) return params;
  return compact({ message: v03ToV1Message(params.message), configuration: v03ToV1SendConfiguration(params.configuration), metadata: params.metadata });
}

/** v0.3 TaskQueryParams → v1.0 GetTaskRequest. */
export function v03ToV1TaskQuery(params: unknown): unknown {
  if (!isObject(params)) return params;
  return compact({ id: params.id, historyLength: params.historyLength });
}

/** v0.3 TaskIdParams (tasks/cancel) → v1.0 CancelTaskRequest. */
export function v03ToV1CancelParams(params: unknown): unknown {
  if (!isObject(params)) return params;
  return compact({ id: params.id, metadata: params.metadata });
}

/** v0.3 TaskIdParams (tasks/resubscribe) → v1.0 SubscribeToTaskRequest. */
export function v03ToV1SubscribeParams(params: unknown): unknown {
  if (!isObject(params)) return params;
  return compact({ id: params.id });
}

/** v0.3 TaskPushNotificationConfig (tasks/pushNotificationConfig/set) → v1.0 TaskPushNotificationConfig. */
export function v03ToV1PushSetParams(params: unknown): unknown {
  if (!isObject(params)) return params;
  if (params.pushNotificationConfig === undefined) return compact({ taskId: params.taskId });
  return v03ToV1PushConfig(params.pushNotificationConfig, params.taskId);
}

/** v0.3 GetTaskPushNotificationConfigParams → v1.0 GetTaskPushNotificationConfigRequest. */
export function v03ToV1PushGetParams(params: unknown): unknown {
  if (!isObject(params)) return params;
  return compact({ taskId: params.id, id: params.pushNotificationConfigId ?? params.id });
}

/** v0.3 ListTaskPushNotificationConfigParams → v1.0 ListTaskPushNotificationConfigsRequest. */
export function v03ToV1PushListParams(params: unknown): unknown {
  if (!isObject(params)) return params;
  return compact({ taskId: params.id });
}

/** v0.3 DeleteTaskPushNotificationConfigParams → v1.0 DeleteTaskPushNotificationConfigRequest. */
export function v03ToV1PushDeleteParams(params: unknown): unknown {
  if (!isObject(params)) return params;
  return compact({ taskId: params.id, id: params.pushNotificationConfigId });
}

/** A v0.3 TaskPushNotificationConfig (a result, or the set params) → a v1.0 TaskPushNotificationConfig. */
export function v03ToV1TaskPushConfig(config: unknown): unknown {
  return v03ToV1PushSetParams(config);
}

/** TaskPushNotificationConfig → v0.3 TaskPushNotificationConfig. */
export function v1ToV03PushConfig(config: TaskPushNotificationConfig): V03TaskPushConfig {
  return {
    taskId: config.taskId,
    pushNotificationConfig: compact({
      id: config.id || undefined,
      url: config.url,
      token: config.token || undefined,
      authentication: config.authentication
        ? compact({ schemes: config.authentication.scheme ? [config.authentication.scheme] : [], credentials: config.authentication.credentials || undefined })
        : undefined,
    }),
  };
}

/** SendMessageRequest → v0.3 MessageSendParams; `blocking` is written whenever there is a configuration. */
export function v1ToV03SendParams(req: SendMessageRequest): V03SendParams {
  const c = req.configuration;
  return compact({
    message: req.message ? v1ToV03Message(req.message) : undefined,
    configuration: c
      ? compact({
          acceptedOutputModes: nonEmpty(c.acceptedOutputModes),
          historyLength: c.historyLength,
          blocking: !c.returnImmediately,
          pushNotificationConfig: c.taskPushNotificationConfig ? v1ToV03PushConfig(c.taskPushNotificationConfig).pushNotificationConfig : undefined,
        })
      : undefined,
    metadata: req.metadata,
  });
}

/** GetTaskRequest → v0.3 TaskQueryParams. */
export function v1ToV03TaskQuery(req: GetTaskRequest): { id: string; historyLength?: number } {
  return compact({ id: req.id, historyLength: req.historyLength });
}

/** CancelTaskRequest → v0.3 TaskIdParams. */
export function v1ToV03CancelParams(req: CancelTaskRequest): { id: string; metadata?: JsonObject } {
  return compact({ id: req.id, metadata: req.metadata });
}

/** SubscribeToTaskRequest → v0.3 TaskIdParams (tasks/resubscribe). */
export function v1ToV03SubscribeParams(req: SubscribeToTaskRequest): { id: string } {
  return { id: req.id };
}

/** GetTaskPushNotificationConfigRequest → v0.3 GetTaskPushNotificationConfigParams. */
export function v1ToV03PushGetParams(req: GetTaskPushNotificationConfigRequest): { id: string; pushNotificationConfigId?: string } {
  return compact({ id: req.taskId, pushNotificationConfigId: req.id || undefined });
}

/** ListTaskPushNotificationConfigsRequest → v0.3 ListTaskPushNotificationConfigParams. */
export function v1ToV03PushListParams(req: ListTaskPushNotificationConfigsRequest): { id: string } {
  return { id: req.taskId };
}

/** DeleteTaskPushNotificationConfigRequest → v0.3 DeleteTaskPushNotificationConfigParams. */
export function v1ToV03PushDeleteParams(req: DeleteTaskPushNotificationConfigRequest): { id: string; pushNotificationConfigId: string } {
  return { id: req.taskId, pushNotificationConfigId: req.id };
}
