import type { AgentCard } from "../../../gen/a2a/v1/a2a_pb.js";
import { StreamResponseSchema, type StreamResponse } from "../../../gen/a2a/v1/a2a_pb.js";
import { stderrLogger, type A2AServiceApi, type Logger } from "../../core/index.js";
import {
  answerEventStream,
  BodyAbortedError,
  ClientGone,
  DEFAULT_MAX_BODY_BYTES,
  DEFAULT_MAX_JSON_DEPTH,
  encodeOnce,
  httpCallContext,
  HttpFailure,
  nothingServedAt,
  lastEventId,
  negotiateServiceParams,
  queryParams,
  writeProtoJson,
  type A2AVersion,
  type FacadeAdmission,
  type HttpRequest,
  type HttpResponse,
} from "../http/index.js";
import { readJsonBody } from "./request-body.js";
import { statusBody, toRestFailure } from "./rest-errors.js";
import { sendFailure, sendResult } from "./rest-response.js";
import type { RouteInput } from "./rest-routes.js";
import { matchRoute } from "./route-match.js";
import { serveV03 } from "./v03-handler.js";
import { matchV03Route } from "./v03-routes.js";

/**
 * The A2A versions the v1.0 routes speak: a request without A2A-Version is
 * read as 1.0 there, and "0.3" is VersionNotSupported (§3.6.2). v0.3's
 * HTTP+JSON binding has routes of its own under `/v1/…` (v03-routes.ts).
 */
export const REST_VERSIONS: readonly A2AVersion[] = ["1.0"];

/** How to build an HTTP+JSON endpoint. */
export interface RestHandlerOptions {
  /** The one A2A service implementation. */
  readonly service: A2AServiceApi;
  /** The agent card this endpoint serves, for extension negotiation (§3.3.4), unless the admission names one. */
  readonly card: (req: HttpRequest) => AgentCard;
  /** The path the routes live under, e.g. "/agents/echo"; default the server root. */
  readonly basePath?: string;
  /** Where unexpected failures are reported; default JSON lines on stderr. */
  readonly logger?: Logger;
  /** Largest accepted request body in bytes; default 10 MiB. */
  readonly maxBodyBytes?: number;
  /** Deepest accepted nesting of arrays and objects in a request body; default 64. */
  readonly maxJsonDepth?: number;
  /** Idle time before an SSE comment line keeps a stream open; default 15 s. */
  readonly keepAliveMs?: number;
}

/**
 * A node:http / node:http2-compat handler that resolves false when the
 * path is not under its base (the caller tries something else) and true
 * once it has answered. `admission` is what the server decided about the
 * request: the caller's tenant and agent (§13.1), and the agent's card.
 */
export type RestHandler = (req: HttpRequest, res: HttpResponse, admission?: FacadeAdmission) => Promise<boolean>;

/** §11.7: each event is a bare StreamResponse, its JSON text made once for every stream that sends it (fan-out). */
const streamEventText = encodeOnce((event: StreamResponse) => JSON.stringify(writeProtoJson(StreamResponseSchema, event)));

/**
 * The HTTP+JSON binding (§11) of the A2A service: the routes of §11.3
 * (each also under a `/{tenant}` prefix), ProtoJSON bodies and results,
 * §11.5 query parameters, §11.6 errors and §11.7 SSE streams. Every path
 * under the base is its own: an unknown one is 404 and a known one with
 * the wrong method 405, both in the binding's error form.
 */
export function createRestHandler(options: RestHandlerOptions): RestHandler {
  const logger = options.logger ?? stderrLogger;
  const maxBodyBytes = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  const maxJsonDepth = options.maxJsonDepth ?? DEFAULT_MAX_JSON_DEPTH;
  const base = (options.basePath ?? "").replace(/\/+$/, "");

  return async (req, res, admission) => {
    const path = pathOf(req.url);
    const relative = base === "" ? path : path === base ? "/" : path.startsWith(`${base}/`) ? path.slice(base.length) : undefined;
    if (relative === undefined) return false;
    // The v0.3 binding's routes live under /v1/ (v1.0's never begin with a segment "v1" but as a tenant prefix, which they yield to).
    if (relative.startsWith("/v1/")) {
      const legacy = matchV03Route(req.method ?? "", relative);
      if (legacy.kind !== "notFound") {
        await serveV03(req, res, legacy, options, admission);
        return true;
      }
    }

    const abort = new ClientGone();
    res.once("close", () => {
      if (!res.writableFinished) abort.abort();
    });
    let headers: Readonly<Record<string, string>> = {};
    let operation: string | undefined;
    try {
      const match = matchRoute(req.method ?? "", relative);
      if (match.kind === "notFound") throw new HttpFailure("notFound", nothingServedAt(req.method, path));
      if (match.kind === "wrongMethod") {
        const allow = match.allow.join(", ");
        throw new HttpFailure("methodNotAllowed", `${path} answers ${allow}, not ${req.method}`, { allow });
      }
      const route = match.route;
      operation = route.rpc.name;
      const params = negotiateServiceParams(req, admission?.card ?? options.card(req), REST_VERSIONS);
      headers = params.headers;
      const input: RouteInput = {
        fields: match.fields,
        query: queryParams(req),
        body: route.source === "body" ? await readJsonBody(req, maxBodyBytes, maxJsonDepth) : undefined,
      };
      const ctx = httpCallContext(req, {
        rpc: route.rpc,
        signal: abort.controller,
        scope: admission?.scope,
        version: params.version ?? "1.0",
        extensions: params.extensions.requested,
        protocolName: "rest",
      });
      if (route.kind === "unary") {
        const result = await route.invoke(options.service, input, ctx);
        if (!abort.aborted) sendResult(req, res, result, headers);
        return true;
      }
      const streamHeaders = headers;
      await answerEventStream({
        req,
        res,
        abort,
        headers: streamHeaders,
        keepAliveMs: options.keepAliveMs,
        open: () => route.open(options.service, input, ctx, route.resumable ? lastEventId(req) : undefined),
        encode: streamEventText,
        refuse: (e) => sendFailure(req, res, toRestFailure(e, logger, operation), streamHeaders),
        // An `error` event holding the §11.6 body, as SSE clients of this binding read it.
        failure: (e) => ({ event: "error", data: JSON.stringify(statusBody(toRestFailure(e, logger, operation))) }),
      });
    } catch (e) {
      // A client gone mid-body has no one to answer.
      if (!(e instanceof BodyAbortedError) && !abort.aborted) sendFailure(req, res, toRestFailure(e, logger, operation), headers);
    }
    return true;
  };
}

/**
 * The path of a request target, without query or fragment, with runs of
 * '/' read as one: a client that joins a base URL ending in '/' with a path
 * starting with one (`//message:send`) reaches the same route. No §11.3
 * path has an empty segment, so nothing else can be meant.
 */
function pathOf(url: string | undefined): string {
  const target = url ?? "/";
  const end = target.search(/[?#]/);
  return (end < 0 ? target : target.slice(0, end)).replace(/\/{2,}/g, "/");
}
