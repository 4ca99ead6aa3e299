import { randomUUID } from "node:crypto";
import type { HandlerContext } from "@connectrpc/connect";
import { create } from "@bufbuild/protobuf";
import { EmptySchema, type Empty } from "@bufbuild/protobuf/wkt";
import {
  ListTaskPushNotificationConfigsResponseSchema,
  TaskPushNotificationConfigSchema,
  type DeleteTaskPushNotificationConfigRequest,
  type GetTaskPushNotificationConfigRequest,
  type ListTaskPushNotificationConfigsRequest,
  type ListTaskPushNotificationConfigsResponse,
  type TaskPushNotificationConfig,
} from "../../../gen/a2a/v1/a2a_pb.js";
import { A2AError, invalidParams, taskNotFound } from "../../protocol/index.js";
import { serviceParamsKey } from "../call-context.js";
import { resolveCall } from "../resolve-call.js";
import { requirePush } from "../capabilities.js";
import type { CoreDeps } from "../core-deps.js";
import type { StoreScope } from "../../store/index.js";

/**
 * §4.3.1: a config needs an http(s) url; a missing id is generated. The
 * `prefix` names fields when the config sits inside another request.
 */
export function preparePushConfig(config: TaskPushNotificationConfig, prefix = ""): TaskPushNotificationConfig {
  if (!config.url) throw invalidParams(`${prefix}url`, "is required");
  let url: URL;
  try {
    url = new URL(config.url);
  } catch {
    throw invalidParams(`${prefix}url`, "is not an absolute URL");
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") throw invalidParams(`${prefix}url`, "must be http or https");
  if (config.authentication && !config.authentication.scheme) throw invalidParams(`${prefix}authentication.scheme`, "is required");
  return create(TaskPushNotificationConfigSchema, { ...config, tenant: "", id: config.id || randomUUID() });
}

/** The payload shape a config's webhooks get: v0.3 for configs made under A2A-Version 0.3, else v1.0. */
export function pushVersion(requestVersion: string): string {
  return requestVersion.startsWith("0.") ? "0.3" : "1.0";
}

/** §13.2: refuses a webhook URL whose host resolves to an address the operator has not allowed. */
export async function checkPushUrl(deps: CoreDeps, config: TaskPushNotificationConfig, prefix = ""): Promise<void> {
  const why = await deps.pushUrlRefusal?.(config.url);
  if (why) throw invalidParams(`${prefix}url`, why);
}

async function locate(deps: CoreDeps, ctx: HandlerContext, tenant: string, taskId: string, field: string): Promise<StoreScope> {
  const { scope, agent } = resolveCall(deps, ctx, tenant);
  requirePush(agent);
  if (!taskId) throw invalidParams(field, "is required");
  if (!(await deps.store.getHead(scope, taskId))) throw taskNotFound(taskId);
  return scope;
}

/** §3.1.7: stores a config durably for the task; at most `limits.pushConfigsPerTask` each. */
export async function createPushConfig(deps: CoreDeps, ctx: HandlerContext, req: TaskPushNotificationConfig): Promise<TaskPushNotificationConfig> {
  const scope = await locate(deps, ctx, req.tenant, req.taskId, "taskId");
  const config = preparePushConfig(req);
  await checkPushUrl(deps, config);
  const replaces = (await deps.store.getPushConfig(scope, req.taskId, config.id)) !== undefined;
  if (!replaces && (await deps.store.countPushConfigs(scope, req.taskId)) >= deps.limits.pushConfigsPerTask) {
    throw invalidParams("taskId", `a task holds at most ${deps.limits.pushConfigsPerTask} push notification configs (limits.pushConfigsPerTask)`);
  }
  // A write goes into a unit of work like every other; the answer waits until it is durable.
  deps.engine.work.open();
  deps.store.putPushConfig(scope, config, pushVersion(ctx.values.get(serviceParamsKey).version));
  await deps.engine.work.durable();
  return config;
}

/** §3.1.8: one config; a missing one is TaskNotFound. */
export async function getPushConfig(deps: CoreDeps, ctx: HandlerContext, req: GetTaskPushNotificationConfigRequest): Promise<TaskPushNotificationConfig> {
  const scope = await locate(deps, ctx, req.tenant, req.taskId, "taskId");
  if (!req.id) throw invalidParams("id", "is required");
  const config = await deps.store.getPushConfig(scope, req.taskId, req.id);
  if (!config) throw new A2AError("TaskNotFound", `push notification config ${JSON.stringify(req.id)} not found for task ${JSON.stringify(req.taskId)}`, { metadata: { taskId: req.taskId } });
  return config;
}

/** §3.1.9: every config of the task, in one page. */
export async function listPushConfigs(deps: CoreDeps, ctx: HandlerContext, req: ListTaskPushNotificationConfigsRequest): Promise<ListTaskPushNotificationConfigsResponse> {
  const scope = await locate(deps, ctx, req.tenant, req.taskId, "taskId");
  if (req.pageSize < 0) throw invalidParams("pageSize", "must be 0 or more");
  return create(ListTaskPushNotificationConfigsResponseSchema, { configs: await deps.store.listPushConfigs(scope, req.taskId), nextPageToken: "" });
}

/** §3.1.10: idempotent; deleting a config that is gone succeeds. */
export async function deletePushConfig(deps: CoreDeps, ctx: HandlerContext, req: DeleteTaskPushNotificationConfigRequest): Promise<Empty> {
  const scope = await locate(deps, ctx, req.tenant, req.taskId, "taskId");
  if (!req.id) throw invalidParams("id", "is required");
  await deps.store.deletePushConfig(scope, req.taskId, req.id);
  return create(EmptySchema);
}
