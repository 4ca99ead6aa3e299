import type { JsonObject } from "@bufbuild/protobuf";
import {
  CancelTaskRequestSchema,
  ListTasksRequestSchema,
  ListTasksResponseSchema,
  SendMessageRequestSchema,
  SendMessageResponseSchema,
  StreamResponseSchema,
  TaskSchema,
  type StreamResponse,
} from "../../gen/a2a/v1/a2a_pb.js";
import { fromHttpError } from "./binding-errors.js";
import { invalidResponse } from "./client-failure.js";
import type { ClientTransport, TransportCall } from "./client-transport.js";
import { httpCall, isEventStream, readJson, throwHttpError } from "./http-call.js";
import { decodeResult, encodeRequest } from "./proto-json.js";
import { readSse } from "./sse-reader.js";

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

  list: ClientTransport["list"] = async (req, call) => {
    const params = new URLSearchParams();
    for (const [key, value] of Object.entries(encodeRequest(ListTasksRequestSchema, req, ["tenant"]))) {
      // §11.5: scalars, enum names and timestamps only; the request has nothing else.
      if (value !== null && typeof value !== "object") params.set(key, String(value));
    }
    const query = params.size > 0 ? `?${params.toString()}` : "";
    return decodeResult(ListTasksResponseSchema, await this.json("GET", this.path(req.tenant, `/tasks${query}`), call), "the task list");
  };

  cancel: ClientTransport["cancel"] = async (req, call) =>
    decodeResult(TaskSchema, await this.json("POST", this.path(req.tenant, `/tasks/${encodeURIComponent(req.id)}:cancel`), call, encodeRequest(CancelTaskRequestSchema, req, ["tenant", "id"])), "the canceled task");

  subscribe: ClientTransport["subscribe"] = (req, call) => this.events(this.path(req.tenant, `/tasks/${encodeURIComponent(req.id)}:subscribe`), call);

  close(): void {}

  private path(tenant: string, rest: string): string {
    return `${this.base}${tenant ? `/${encodeURIComponent(tenant)}` : ""}${rest}`;
  }

  private async json(method: "GET" | "POST", url: string, call: TransportCall, body?: JsonObject): Promise<unknown> {
    const headers: Record<string, string> = { ...call.headers, accept: `${A2A_JSON}, application/json` };
    if (body !== undefined) headers["content-type"] = A2A_JSON;
    const response = await httpCall({ method, url, headers, body, signal: call.signal, fetch: this.fetch });
    if (!response.ok) await throwHttpError(response);
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
    for await (const message of readSse(response.body)) {
      if (message.data.trim() === "") continue;
      let json: unknown;
      try {
        json = JSON.parse(message.data);
      } catch (e) {
        throw invalidResponse(`an event of ${url} is not JSON: ${message.data.slice(0, 120)}`, e);
      }
      // An error after the stream started arrives as an event carrying the §11.6 body.
      if (message.event === "error" || isErrorBody(json)) {
        const error = (json as { error?: { code?: unknown } }).error;
        throw fromHttpError(typeof error?.code === "number" ? error.code : 500, "", json);
      }
      yield decodeResult(StreamResponseSchema, json, `an event of ${url}`);
    }
  }
}

function isErrorBody(json: unknown): boolean {
  return typeof json === "object" && json !== null && "error" in json && !("task" in json || "message" in json || "statusUpdate" in json || "artifactUpdate" in json);
}
