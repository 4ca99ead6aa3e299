import type { JsonObject } from "@bufbuild/protobuf";
import {
  AgentCardSchema,
  CancelTaskRequestSchema,
  ListTaskPushNotificationConfigsRequestSchema,
  ListTaskPushNotificationConfigsResponseSchema,
  ListTasksRequestSchema,
  ListTasksResponseSchema,
  SendMessageRequestSchema,
  SendMessageResponseSchema,
  StreamResponseSchema,
  TaskPushNotificationConfigSchema,
  TaskSchema,
  type StreamResponse,
} from "../../gen/a2a/v1/a2a_pb.js";
import { fromHttpError } from "./binding-errors.js";
import { invalidResponse } from "./client-failure.js";
import type { ClientTransport, TransportCall } from "./client-transport.js";
import { httpCall, isEventStream, readJson, throwHttpError } from "./http-call.js";
import { decodeResult, encodeRequest } from "./proto-json.js";
import { readSseJson } from "./sse-reader.js";
import { withEventId } from "./stream-event-id.js";

/** §11.1: the media type of request bodies. */
const A2A_JSON = "application/a2a+json";

/**
 * §11: the HTTP+JSON/REST binding. Paths of §11.3 under the interface URL,
 * with the tenant as a leading path segment when there is one (the proto's
 * `/{tenant}/…` bindings); ProtoJSON bodies (§11.4); GET parameters in the
 * query (§11.5); SSE carrying StreamResponse objects (§11.7).
 */
export class RestTransport implements ClientTransport {
  private readonly base: string;

  constructor(
    url: string,
    private readonly fetch?: typeof globalThis.fetch,
  ) {
    this.base = url.replace(/\/+$/, "");
  }

  send: ClientTransport["send"] = async (req, call) =>
    decodeResult(SendMessageResponseSchema, await this.json("POST", this.path(req.tenant, "/message:send"), call, encodeRequest(SendMessageRequestSchema, req, ["tenant"])), "the message:send result");

  stream: ClientTransport["stream"] = (req, call) => this.events(this.path(req.tenant, "/message:stream"), call, encodeRequest(SendMessageRequestSchema, req, ["tenant"]));

  get: ClientTransport["get"] = async (req, call) => {
    const query = req.historyLength === undefined ? "" : `?historyLength=${req.historyLength}`;
    return decodeResult(TaskSchema, await this.json("GET", this.path(req.tenant, `/tasks/${encodeURIComponent(req.id)}${query}`), call), "the task");
  };

  list: ClientTransport["list"] = async (req, call) =>
    decodeResult(ListTasksResponseSchema, await this.json("GET", this.path(req.tenant, `/tasks${query(encodeRequest(ListTasksRequestSchema, req, ["tenant"]))}`), call), "the task list");

  cancel: ClientTransport["cancel"] = async (req, call) =>
    decodeResult(TaskSchema, await this.json("POST", this.path(req.tenant, `/tasks/${encodeURIComponent(req.id)}:cancel`), call, encodeRequest(CancelTaskRequestSchema, req, ["tenant", "id"])), "the canceled task");

  subscribe: ClientTransport["subscribe"] = (req, call) => this.events(this.path(req.tenant, `/tasks/${encodeURIComponent(req.id)}:subscribe`), call);

  // §11.3.3: a task's push configs, the task id (and the config's) in the path.
  createPushConfig: ClientTransport["createPushConfig"] = async (req, call) =>
    decodeResult(
      TaskPushNotificationConfigSchema,
      await this.json("POST", this.pushPath(req.tenant, req.taskId), call, encodeRequest(TaskPushNotificationConfigSchema, req, ["tenant", "taskId"])),
      "the created push config",
    );

  getPushConfig: ClientTransport["getPushConfig"] = async (req, call) =>
    decodeResult(TaskPushNotificationConfigSchema, await this.json("GET", this.pushPath(req.tenant, req.taskId, req.id), call), "the push config");

  listPushConfigs: ClientTransport["listPushConfigs"] = async (req, call) => {
    const params = query(encodeRequest(ListTaskPushNotificationConfigsRequestSchema, req, ["tenant", "taskId"]));
    return decodeResult(ListTaskPushNotificationConfigsResponseSchema, await this.json("GET", `${this.pushPath(req.tenant, req.taskId)}${params}`, call), "the push config list");
  };

  deletePushConfig: ClientTransport["deletePushConfig"] = async (req, call) => {
    await this.json("DELETE", this.pushPath(req.tenant, req.taskId, req.id), call);
  };

  // §11.3.4
  extendedCard: ClientTransport["extendedCard"] = async (req, call) => decodeResult(AgentCardSchema, await this.json("GET", this.path(req.tenant, "/extendedAgentCard"), call), "the extended agent card");

  close(): void {}

  private pushPath(tenant: string, taskId: string, id?: string): string {
    return this.path(tenant, `/tasks/${encodeURIComponent(taskId)}/pushNotificationConfigs${id === undefined ? "" : `/${encodeURIComponent(id)}`}`);
  }

  private path(tenant: string, rest: string): string {
    return `${this.base}${tenant ? `/${encodeURIComponent(tenant)}` : ""}${rest}`;
  }

  /** A unary exchange's JSON answer; an empty body (a DELETE's google.protobuf.Empty) reads as `{}`. */
  private async json(method: "GET" | "POST" | "DELETE", url: string, call: TransportCall, body?: JsonObject): Promise<unknown> {
    const headers: Record<string, string> = { ...call.headers, accept: `${A2A_JSON}, application/json` };
    if (body !== undefined) headers["content-type"] = A2A_JSON;
    const response = await httpCall({ method, url, headers, body, signal: call.signal, fetch: this.fetch });
    if (!response.ok) await throwHttpError(response);
    if (method === "DELETE" && (response.status === 204 || response.headers.get("content-length") === "0")) return {};
    return readJson(response, `the answer of ${method} ${url}`);
  }

  private async *events(url: string, call: TransportCall, body?: JsonObject): AsyncGenerator<StreamResponse> {
    const response = await httpCall({
      method: "POST",
      url,
      headers: { ...call.headers, accept: "text/event-stream", "content-type": A2A_JSON },
      body: body ?? {},
      signal: call.signal,
      fetch: this.fetch,
    });
    if (!response.ok) await throwHttpError(response);
    if (!isEventStream(response)) throw invalidResponse(`${url} answered ${response.headers.get("content-type") ?? "no content type"}, not an event stream`);
    if (!response.body) throw invalidResponse(`the stream of ${url} has no body`);
    for await (const { event, id, json } of readSseJson(response.body, `an event of ${url}`)) {
      // An error after the stream started arrives as an event carrying the §11.6 body.
      if (event === "error" || isErrorBody(json)) {
        const error = (json as { error?: { code?: unknown } }).error;
        throw fromHttpError(typeof error?.code === "number" ? error.code : 500, "", json);
      }
      yield withEventId(decodeResult(StreamResponseSchema, json, `an event of ${url}`), id);
    }
  }
}

/** §11.5: a GET's request fields as query parameters (scalars, enum names and timestamps: the requests have nothing else). */
function query(fields: JsonObject): string {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(fields)) if (value !== null && typeof value !== "object") params.set(key, String(value));
  return params.size > 0 ? `?${params.toString()}` : "";
}

function isErrorBody(json: unknown): boolean {
  return typeof json === "object" && json !== null && "error" in json && !("task" in json || "message" in json || "statusUpdate" in json || "artifactUpdate" in json);
}
