import type { DescMessage, JsonObject, MessageShape } from "@bufbuild/protobuf";
import { invalidParams } from "../../core/index.js";
import { callUnaryJson, openSequenced, readProtoJson, type StreamRoute, type UnaryRoute } from "../http/index.js";
import { OPERATION_LIST, type Operation } from "../../protocol/index.js";
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
  /** POST reads the request message from the body; GET and DELETE from the query (§11.5). */
  readonly source: "body" | "query";
}

/** A route answered with one JSON response: reads the request, calls the service, and writes the result as ProtoJSON. */
export interface UnaryRestRoute extends UnaryRoute<RouteInput>, RouteBase {}

/** A route answered with an SSE stream of StreamResponse (§11.7). */
export interface StreamRestRoute extends StreamRoute<RouteInput>, RouteBase {}

/** A route of the HTTP+JSON binding. */
export type RestRoute = UnaryRestRoute | StreamRestRoute;

type Normalize = (json: JsonObject) => unknown;


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
  // The lenient readers keep an object an object. A copy by Object.assign, not a spread: the path's fields are
  // added to it, and keys added to a spread copy give each object a hidden class of its own (docs/hot-path-objects.md).
  const bound: JsonObject = Object.assign({}, (normalize ? normalize(json as JsonObject) : json) as JsonObject);
  for (const [field, value] of Object.entries(input.fields)) {
    const given = bound[field];
    if (given !== undefined && given !== null && given !== "" && given !== value) {
      throw invalidParams(field, `is ${JSON.stringify(given)} in the request but ${JSON.stringify(value)} in the path`);
    }
    bound[field] = value;
  }
  return readProtoJson(schema, bound);
}

/** One route of an operation: its request read from the body or the query with the path bound over it. */
function route(op: Operation, method: RestMethod, template: string): RestRoute {
  const source = method === "POST" ? "body" : "query";
  const read = (input: RouteInput) => readRequest(op.rpc.input, source, input, op.lenient);
  const base = { method, template: compileTemplate(template), rpc: op.rpc, source } as const;
  if (op.streaming) {
    return { ...base, kind: "stream", resumable: op.resumable, open: (s, input, ctx, afterSeq) => openSequenced(s, op.rpc, read(input), ctx, afterSeq) };
  }
  return { ...base, kind: "unary", invoke: (s, input, ctx) => callUnaryJson(s, op.rpc, read(input), ctx) };
}

/**
 * §11.3 and §5.3: every route of the binding, from the one operation table.
 * Each is also served under a `/{tenant}` prefix, which binds the
 * request's `tenant` field.
 */
export const REST_ROUTES: readonly RestRoute[] = OPERATION_LIST.flatMap((op) => op.rest.map((r) => route(op, r.verb, r.path)));
