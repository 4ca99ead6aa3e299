import type { DescMessage, DescMethod, JsonObject, MessageShape } from "@bufbuild/protobuf";
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
  SubscribeToTaskRequestSchema,
  TaskPushNotificationConfigSchema,
  TaskSchema,
} from "../../../gen/a2a/v1/a2a_pb.js";
import { invalidParams, type A2AServiceApi, type SequencedEvent } from "../../core/index.js";
import { readProtoJson, writeProtoJson } from "../http/index.js";
import { dialectV1 } from "../jsonrpc/index.js";
import { compileTemplate, type PathTemplate } from "./path-template.js";
import { queryToJson } from "./query-params.js";

/** What a matched request offers to build the request message from. */
export interface RouteInput {
  /** The fields the path binds (`id`, `taskId`, and `tenant` from the optional prefix). */
  readonly fields: Readonly<Record<string, string>>;
  readonly query: URLSearchParams;
  /** The parsed JSON body; undefined when the request has none. */
  readonly body: unknown;
}

/** The HTTP methods the binding uses (§11.1). */
export type RestMethod = "GET" | "POST" | "DELETE";

interface RouteBase {
  readonly method: RestMethod;
  readonly template: PathTemplate;
  /** The A2AService RPC it translates to (§5.3). */
  readonly rpc: DescMethod;
  /** POST reads the request message from the body; GET and DELETE from the query (§11.5). */
  readonly source: "body" | "query";
}

/** A route answered with one JSON response. */
export interface UnaryRoute extends RouteBase {
  readonly kind: "unary";
  /** Reads the request, calls the service, and writes the result as ProtoJSON. */
  invoke(service: A2AServiceApi, input: RouteInput, ctx: HandlerContext): Promise<JsonObject>;
}

/** A route answered with an SSE stream of StreamResponse (§11.7). */
export interface StreamRoute extends RouteBase {
  readonly kind: "stream";
  /** Whether Last-Event-ID resumes it (subscriptions). */
  readonly resumable: boolean;
  /** Reads the request and opens the stream; reading errors surface on the first `next()` at the latest. */
  open(service: A2AServiceApi, input: RouteInput, ctx: HandlerContext, afterSeq?: number): AsyncIterable<SequencedEvent>;
}

/** A route of the HTTP+JSON binding. */
export type RestRoute = UnaryRoute | StreamRoute;

type Normalize = (json: JsonObject) => unknown;

const m = A2AService.method;
const { lenientListTasksRequest, lenientPushConfig, lenientSendRequest } = dialectV1;

/**
 * The request message of a route: the body (POST) or the query (GET,
 * DELETE), read leniently like the JSON-RPC v1.0 dialect, with the path's
 * fields bound over it. A body that names a different value than its path
 * is InvalidParams naming that field.
 */
function readRequest<Desc extends DescMessage>(schema: Desc, source: RouteBase["source"], input: RouteInput, normalize?: Normalize): MessageShape<Desc> {
  let json: unknown;
  if (source === "query") json = queryToJson(schema, input.query);
  else if (input.body === undefined) json = {};
  else if (typeof input.body === "object" && input.body !== null && !Array.isArray(input.body)) json = input.body;
  else throw invalidParams("body", `must be a JSON object (${schema.name})`);
  // The lenient readers keep an object an object.
  const bound: JsonObject = { ...((normalize ? normalize(json as JsonObject) : json) as JsonObject) };
  for (const [field, value] of Object.entries(input.fields)) {
    const given = bound[field];
    if (given !== undefined && given !== null && given !== "" && given !== value) {
      throw invalidParams(field, `is ${JSON.stringify(given)} in the request but ${JSON.stringify(value)} in the path`);
    }
    bound[field] = value;
  }
  return readProtoJson(schema, bound);
}

function unary<Req extends DescMessage, Res extends DescMessage>(
  method: RestMethod,
  template: string,
  rpc: DescMethod,
  request: Req,
  response: Res,
  call: (service: A2AServiceApi, req: MessageShape<Req>, ctx: HandlerContext) => Promise<MessageShape<Res>>,
  normalize?: Normalize,
): UnaryRoute {
  const source = method === "POST" ? "body" : "query";
  return {
    kind: "unary",
    method,
    template: compileTemplate(template),
    rpc,
    source,
    invoke: async (service, input, ctx) => writeProtoJson(response, await call(service, readRequest(request, source, input, normalize), ctx)),
  };
}

function subscribe(method: RestMethod): StreamRoute {
  const source = method === "POST" ? "body" : "query";
  return {
    kind: "stream",
    method,
    template: compileTemplate("/tasks/{id}:subscribe"),
    rpc: m.subscribeToTask,
    source,
    resumable: true,
    open: (s, input, ctx, afterSeq) => s.subscribeSequenced(readRequest(SubscribeToTaskRequestSchema, source, input), ctx, afterSeq),
  };
}

/**
 * §11.3 and §5.3: every route of the binding. Each is also served under a
 * `/{tenant}` prefix, which binds the request's `tenant` field. Subscribe
 * answers GET as well as POST: §11.3.2 names POST, while v0.3's REST
 * binding subscribed with GET and clients ported from it still do.
 */
export const REST_ROUTES: readonly RestRoute[] = [
  unary("POST", "/message:send", m.sendMessage, SendMessageRequestSchema, SendMessageResponseSchema, (s, r, c) => s.sendMessage(r, c), lenientSendRequest),
  {
    kind: "stream",
    method: "POST",
    template: compileTemplate("/message:stream"),
    rpc: m.sendStreamingMessage,
    source: "body",
    resumable: false,
    open: (s, input, ctx) => s.sendStreamingMessageSequenced(readRequest(SendMessageRequestSchema, "body", input, lenientSendRequest), ctx),
  },
  unary("GET", "/tasks/{id}", m.getTask, GetTaskRequestSchema, TaskSchema, (s, r, c) => s.getTask(r, c)),
  unary("GET", "/tasks", m.listTasks, ListTasksRequestSchema, ListTasksResponseSchema, (s, r, c) => s.listTasks(r, c), lenientListTasksRequest),
  unary("POST", "/tasks/{id}:cancel", m.cancelTask, CancelTaskRequestSchema, TaskSchema, (s, r, c) => s.cancelTask(r, c)),
  subscribe("GET"),
  subscribe("POST"),
  unary(
    "POST",
    "/tasks/{taskId}/pushNotificationConfigs",
    m.createTaskPushNotificationConfig,
    TaskPushNotificationConfigSchema,
    TaskPushNotificationConfigSchema,
    (s, r, c) => s.createTaskPushNotificationConfig(r, c),
    lenientPushConfig,
  ),
  unary(
    "GET",
    "/tasks/{taskId}/pushNotificationConfigs",
    m.listTaskPushNotificationConfigs,
    ListTaskPushNotificationConfigsRequestSchema,
    ListTaskPushNotificationConfigsResponseSchema,
    (s, r, c) => s.listTaskPushNotificationConfigs(r, c),
  ),
  unary(
    "GET",
    "/tasks/{taskId}/pushNotificationConfigs/{id}",
    m.getTaskPushNotificationConfig,
    GetTaskPushNotificationConfigRequestSchema,
    TaskPushNotificationConfigSchema,
    (s, r, c) => s.getTaskPushNotificationConfig(r, c),
  ),
  unary(
    "DELETE",
    "/tasks/{taskId}/pushNotificationConfigs/{id}",
    m.deleteTaskPushNotificationConfig,
    DeleteTaskPushNotificationConfigRequestSchema,
    EmptySchema,
    (s, r, c) => s.deleteTaskPushNotificationConfig(r, c),
  ),
  unary("GET", "/extendedAgentCard", m.getExtendedAgentCard, GetExtendedAgentCardRequestSchema, AgentCardSchema, (s, r, c) => s.getExtendedAgentCard(r, c)),
];
