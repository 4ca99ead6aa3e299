import { fromJson, toJson, type JsonObject } from "@bufbuild/protobuf";
import { ERROR_TABLE, stderrLogger, type Logger } from "../../core/index.js";
import { dialectV1, invalidParams, type V03Rpc } from "../../protocol/index.js";
import {
  abandonBody,
  answerEventStream,
  BodyAbortedError,
  callUnary,
  ClientGone,
  DEFAULT_MAX_BODY_BYTES,
  DEFAULT_MAX_JSON_DEPTH,
  httpCallContext,
  HttpFailure,
  lastEventId,
  negotiateServiceParams,
  openSequenced,
  queryParams,
  sendJson,
  type A2AVersion,
  type FacadeAdmission,
  type HttpRequest,
  type HttpResponse,
} from "../http/index.js";
import { readJsonBody } from "./request-body.js";
import { toRestFailure, type RestFailure } from "./rest-errors.js";
import type { RestHandlerOptions } from "./rest-handler.js";
import type { RouteMatch } from "./route-match.js";
import type { V03Route } from "./v03-routes.js";

/** The v0.3 binding speaks v0.3 only: no A2A-Version header means 0.3 (§3.6.2). */
const V03_VERSIONS: readonly A2AVersion[] = ["0.3"];

/** JSON-RPC's Invalid Request, the code v0.3 error bodies give failures of the HTTP exchange itself. */
const INVALID_REQUEST = -32600;

/**
 * v0.3's HTTP+JSON error body: `{ code, message, data }` with the JSON-RPC
 * code of the error (v0.3 clients read the error from `code`), sent with the
 * §5.4 HTTP status; `data` holds the same google.rpc details as v1.0's body.
 */
export function v03ErrorBody(f: RestFailure): JsonObject {
  const row = Object.values(ERROR_TABLE).find((r) => r.reason === f.reason);
  const body: JsonObject = { code: row?.jsonRpcCode ?? INVALID_REQUEST, message: f.message };
  if (f.details.length > 0) body.data = [...f.details];
  return body;
}

/** A v0.3 proto request read from its ProtoJSON and turned into the v1.0 request (InvalidParams when it is not one). */
function v1Request(rpc: V03Rpc, json: JsonObject) {
  let proto: JsonObject;
  try {
    // Through the message and back: field names as the proto spells them or as ProtoJSON does, enums by name or number.
    proto = toJson(rpc.rpc.input, fromJson(rpc.rpc.input, json, { ignoreUnknownFields: false })) as JsonObject;
  } catch (e) {
    throw invalidParams("body", `is not a v0.3 ${rpc.rpc.input.name}: ${e instanceof Error ? e.message : String(e)}`);
  }
  return dialectV1.readV1(rpc.op.rpc.input, rpc.toV1(proto), rpc.op.lenient);
}

/** A v0.3 answer as canonical ProtoJSON of its proto message (what the proto cannot hold is left out). */
function v03Answer(rpc: V03Rpc, json: JsonObject): JsonObject {
  return toJson(rpc.rpc.output, fromJson(rpc.rpc.output, json, { ignoreUnknownFields: true })) as JsonObject;
}

/**
 * Answers one request of the v0.3 HTTP+JSON binding: the v0.3 proto's
 * request as ProtoJSON, translated onto the one v1.0 service, its answer
 * (or each SSE event) as ProtoJSON of the v0.3 proto, errors as v0.3 bodies.
 */
export async function serveV03(
  req: HttpRequest,
  res: HttpResponse,
  match: Exclude<RouteMatch<V03Route>, { kind: "notFound" }>,
  options: RestHandlerOptions,
  admission: FacadeAdmission | undefined,
): Promise<void> {
  const logger: Logger = options.logger ?? stderrLogger;
  const abort = new ClientGone();
  res.once("close", () => {
    if (!res.writableFinished) abort.abort();
  });
  let headers: Readonly<Record<string, string>> = {};
  const fail = (e: unknown) => {
    const f = toRestFailure(e, logger, match.kind === "found" ? match.route.rpc.rpc.name : undefined);
    if (res.headersSent) return void (res.writableEnded || res.end());
    // As for v1.0 errors: an unread body is drained, one that was too large closes the connection.
    sendJson(res, f.httpStatus, v03ErrorBody(f), { ...headers, ...f.headers, ...abandonBody(req, res, { keepAlive: f.httpStatus !== 413 }) });
  };
  try {
    if (match.kind === "wrongMethod") {
      const allow = match.allow.join(", ");
      throw new HttpFailure("methodNotAllowed", `${req.url} answers ${allow}, not ${req.method}`, { allow });
    }
    const route = match.route;
    const params = negotiateServiceParams(req, admission?.card ?? options.card(req), V03_VERSIONS);
    headers = params.headers;
    const body = route.body ? await readJsonBody(req, options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES, options.maxJsonDepth ?? DEFAULT_MAX_JSON_DEPTH) : undefined;
    const request = v1Request(route.rpc, route.request({ fields: match.fields, query: queryParams(req), body }));
    const rpc = route.rpc.op.rpc;
    const ctx = httpCallContext(req, { rpc, signal: abort.controller, scope: admission?.scope, version: params.version ?? "0.3", extensions: params.extensions.requested, protocolName: "rest" });
    if (!route.rpc.op.streaming) {
      const answer = v03Answer(route.rpc, route.rpc.toV03(await callUnary(options.service, rpc, request, ctx)));
      if (!abort.aborted) sendJson(res, 200, answer, headers);
      return;
    }
    await answerEventStream({
      req,
      res,
      abort,
      headers,
      keepAliveMs: options.keepAliveMs,
      open: () => openSequenced(options.service, rpc, request, ctx, route.rpc.op.resumable ? lastEventId(req) : undefined),
      encode: (event) => JSON.stringify(v03Answer(route.rpc, route.rpc.toV03(event))),
      refuse: fail,
      // v0.3 clients read a failed stream's last event as an `error` event holding the v0.3 error body.
      failure: (e) => ({ event: "error", data: JSON.stringify(v03ErrorBody(toRestFailure(e, logger))) }),
    });
  } catch (e) {
    if (!(e instanceof BodyAbortedError) && !abort.aborted) fail(e);
  }
}
