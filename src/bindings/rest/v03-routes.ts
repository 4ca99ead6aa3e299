import type { JsonObject } from "@bufbuild/protobuf";
import { invalidParams, V03_RPCS, type V03Rpc } from "../../protocol/index.js";
import { compileTemplate, templateVerbs, type PathTemplate } from "./path-template.js";
import type { RestMethod, RouteInput } from "./rest-routes.js";
import { matchAmong, type RouteMatch } from "./route-match.js";

/** A route of the v0.3 HTTP+JSON binding: its path, and how the v0.3 proto request is made from the HTTP request. */
export interface V03Route {
  readonly method: RestMethod;
  readonly template: PathTemplate;
  readonly rpc: V03Rpc;
  /** Whether the request has a body to read (POST). */
  readonly body: boolean;
  /** The v0.3 proto request as ProtoJSON, from the path's fields, the query and the body. */
  request(input: RouteInput): JsonObject;
}

const bodyObject = (input: RouteInput): JsonObject => {
  if (input.body === undefined) return {};
  if (typeof input.body === "object" && input.body !== null && !Array.isArray(input.body)) return input.body as JsonObject;
  throw invalidParams("body", "must be a JSON object");
};
const taskName = (input: RouteInput) => `tasks/${input.fields.id!}`;
const configName = (input: RouteInput) => `${taskName(input)}/pushNotificationConfigs/${input.fields.configId!}`;

function route(method: RestMethod, path: string, rpc: V03Rpc, request: (input: RouteInput) => JsonObject): V03Route {
  return { method, template: compileTemplate(path), rpc, body: method === "POST", request };
}

/**
 * The v0.3 HTTP+JSON routes (the google.api.http rules of the v0.3 proto,
 * under /v1/), each the ProtoJSON of a v0.3 proto request. Subscribe answers
 * POST as well as the proto's GET, as the v1.0 binding does.
 */
export const V03_ROUTES: readonly V03Route[] = [
  route("POST", "/v1/message:send", V03_RPCS.sendMessage, bodyObject),
  route("POST", "/v1/message:stream", V03_RPCS.sendStreamingMessage, bodyObject),
  route("GET", "/v1/tasks/{id}", V03_RPCS.getTask, (i): JsonObject => {
    const historyLength = i.query.get("historyLength") ?? i.query.get("history_length");
    if (historyLength !== null && !/^-?\d+$/.test(historyLength)) throw invalidParams("historyLength", `must be an integer, not ${JSON.stringify(historyLength)}`);
    return historyLength === null ? { name: taskName(i) } : { name: taskName(i), historyLength: Number(historyLength) };
  }),
  route("POST", "/v1/tasks/{id}:cancel", V03_RPCS.cancelTask, (i) => ({ name: taskName(i) })),
  route("GET", "/v1/tasks/{id}:subscribe", V03_RPCS.taskSubscription, (i) => ({ name: taskName(i) })),
  route("POST", "/v1/tasks/{id}:subscribe", V03_RPCS.taskSubscription, (i) => ({ name: taskName(i) })),
  // The proto's rule reads `body: "config"`: the body is the TaskPushNotificationConfig.
  route("POST", "/v1/tasks/{id}/pushNotificationConfigs", V03_RPCS.createTaskPushNotificationConfig, (i) => ({ parent: taskName(i), config: bodyObject(i) })),
  route("GET", "/v1/tasks/{id}/pushNotificationConfigs", V03_RPCS.listTaskPushNotificationConfig, (i) => ({ parent: taskName(i) })),
  route("GET", "/v1/tasks/{id}/pushNotificationConfigs/{configId}", V03_RPCS.getTaskPushNotificationConfig, (i) => ({ name: configName(i) })),
  route("DELETE", "/v1/tasks/{id}/pushNotificationConfigs/{configId}", V03_RPCS.deleteTaskPushNotificationConfig, (i) => ({ name: configName(i) })),
  route("GET", "/v1/card", V03_RPCS.getAgentCard, () => ({})),
];

const VERBS = templateVerbs(V03_ROUTES.map((r) => r.template));

/** The v0.3 route of a path relative to the binding's base ("/v1/tasks/t-1"). */
export function matchV03Route(method: string, path: string): RouteMatch<V03Route> {
  return matchAmong(V03_ROUTES, VERBS, method, path.replace(/^\//, "").split("/"));
}
