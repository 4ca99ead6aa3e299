import { setMaxListeners } from "node:events";
import type { HandlerContext } from "@connectrpc/connect";
import type { AgentCard } from "../../../gen/a2a/v1/a2a_pb.js";
import { stderrLogger, type A2AServiceApi, type CallScope, type Logger } from "../../core/index.js";
import {
  abandonBody,
  answerEventStream,
  BodyTimeoutError,
  BodyTooLargeError,
  ClientGone,
  DEFAULT_MAX_BODY_BYTES,
  DEFAULT_MAX_JSON_DEPTH,
  httpCallContext,
  HTTP_FAILURES,
  jsonDepthRefusal,
  lastEventId,
  negotiateServiceParams,
  readBody,
  requireJsonContentType,
  sendJson,
  type A2AVersion,
  type ExtensionNegotiation,
  type FacadeAdmission,
  type FacadeRefusal,
  type HttpRequest,
  type HttpResponse,
  type ServiceParamsNegotiation,
} from "../http/index.js";
import {
  checkEnvelope,
  EnvelopeError,
  errorResponse,
  resultResponse,
  type EnvelopeCheck,
  type JsonRpcId,
  type JsonRpcRequest,
  type JsonRpcResponse,
} from "../../protocol/index.js";
import { httpLevelRefusal, toJsonRpcError } from "./jsonrpc-errors.js";
import { drainStream, jsonRpcFraming } from "./jsonrpc-stream.js";
import { readRpcBody, type RpcElement } from "./rpc-body.js";
import { lookupMethod } from "./method-table.js";
import type { RpcMethod, StreamRpcMethod, UnaryRpcMethod } from "./rpc-method.js";


/** The largest body of a refused request that is still read, to answer with its ids. */
const REFUSED_BODY_BYTES = 64 * 1024;
/** Default cap on the number of requests in one batch. */
export const DEFAULT_MAX_BATCH_SIZE = 100;

/** How to build a JSON-RPC endpoint. */
export interface JsonRpcHandlerOptions {
  /** The one A2A service implementation. */
  readonly service: A2AServiceApi;
  /** The agent card this endpoint serves, for extension negotiation (§3.3.4), unless the admission names one. */
  readonly card: (req: HttpRequest) => AgentCard;
  /** Largest accepted request body in bytes; default 10 MiB. */
  readonly maxBodyBytes?: number;
  /** Deepest accepted nesting of arrays and objects in a request body; default 64. */
  readonly maxJsonDepth?: number;
  /** Where unexpected failures are reported; default JSON lines on stderr. */
  readonly logger?: Logger;
  /** Idle time before an SSE comment line keeps a stream open; default 15 s. */
  readonly keepAliveMs?: number;
  /** Largest accepted batch; default 100. */
  readonly maxBatchSize?: number;
}

/** Why a request is refused before it runs: every element's answer carries its table code and ErrorInfo. */
export type JsonRpcRefusal = FacadeRefusal;

/**
 * A node:http / node:http2-compat request handler. `admission` is what the
 * server decided about the request: the caller's tenant and agent (§13.1),
 * and a refusal (authentication, rate limits) answered in the JSON-RPC
 * envelope, each request's id echoed, under its HTTP status and headers.
 */
export type JsonRpcHandler = (req: HttpRequest, res: HttpResponse, admission?: FacadeAdmission) => Promise<void>;

/** What one HTTP exchange has settled before any JSON-RPC request is run. */
interface Exchange {
  readonly req: HttpRequest;
  readonly res: HttpResponse;
  /** The A2A-Version the client asked for; undefined: the method's own version. */
  readonly version: A2AVersion | undefined;
  readonly extensions: ExtensionNegotiation;
  /** Headers every response of this exchange carries. */
  readonly headers: Readonly<Record<string, string>>;
  /** Aborted when the client goes away. */
  readonly abort: ClientGone;
  /** The caller's tenant and agent (§13.1); undefined means the default scope. */
  readonly scope: CallScope | undefined;
  /** A call of this exchange refused for its scope or credentials: a single call's answer then takes its HTTP status. */
  refused?: unknown;
}

/**
 * The JSON-RPC 2.0 binding (§9) of the A2A service, for `POST` on the
 * endpoint URL. Speaks the v1.0 methods and the v0.3 ones on the same URL;
 * the method name picks the dialect of the reply. Protocol errors are HTTP
 * 200 with a JSON-RPC error object. Works with node:http and the
 * node:http2 compatibility API alike.
 */
export function createJsonRpcHandler(options: JsonRpcHandlerOptions): JsonRpcHandler {
  const logger = options.logger ?? stderrLogger;
  const maxBodyBytes = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  const maxJsonDepth = options.maxJsonDepth ?? DEFAULT_MAX_JSON_DEPTH;
  const maxBatchSize = options.maxBatchSize ?? DEFAULT_MAX_BATCH_SIZE;

  /** The call context every facade call gets: same context values connect-node would set. */
  function contextFor(x: Exchange, method: RpcMethod, signal: AbortController | undefined): HandlerContext {
    return httpCallContext(x.req, {
      rpc: method.rpc,
      signal,
      scope: x.scope,
      version: x.version ?? method.version,
      extensions: x.extensions.requested,
      protocolName: "jsonrpc",
    });
  }

  /** One unary request's response (undefined for a notification). */
  async function callUnary(x: Exchange, request: JsonRpcRequest, method: UnaryRpcMethod): Promise<JsonRpcResponse | undefined> {
    try {
      const result = await method.invoke(options.service, paramsOf(request), contextFor(x, method, x.abort.controller));
      return request.notification ? undefined : resultResponse(request.id, result ?? null);
    } catch (e) {
      // The client went away mid-call: nobody reads the answer, and its abort is not the server's failure to log.
      if (x.abort.aborted) return undefined;
      if (httpLevelRefusal(e)) x.refused = e;
      const error = toJsonRpcError(e, logger, method.name);
      return request.notification ? undefined : errorResponse(request.id, error);
    }
  }

  function openStream(x: Exchange, request: JsonRpcRequest, method: StreamRpcMethod, signal: AbortController | undefined): () => ReturnType<StreamRpcMethod["open"]> {
    return () => {
      return method.open(options.service, paramsOf(request), contextFor(x, method, signal), method.resumable ? lastEventId(x.req) : undefined);
    };
  }

  /**
   * The JSON answer to one checked element (undefined for a notification).
   * A non-notification call of a streaming method only gets here inside a
   * batch, whose one JSON array has no room for an event stream (§6).
   */
  async function answerChecked(x: Exchange, check: EnvelopeCheck): Promise<JsonRpcResponse | undefined> {
    if (!check.ok) return errorResponse(check.id, check.error.toJsonRpc());
    const request = check.request;
    const method = lookupMethod(request.method);
    if (!method) {
      if (request.notification) return undefined;
      return errorResponse(request.id, new EnvelopeError("methodNotFound", `${JSON.stringify(request.method)} is not a method of this endpoint`).toJsonRpc());
    }
    if (method.kind === "unary") return callUnary(x, request, method);
    if (request.notification) {
      drainStream(openStream(x, request, method, undefined), logger, method.name);
      return undefined;
    }
    return errorResponse(request.id, new EnvelopeError("invalidRequest", `${method.name} streams its answer and cannot be called inside a batch`).toJsonRpc());
  }

  /**
   * The envelope check of one element. A request too deep to read is
   * InvalidRequest with the id its envelope shows; one shaped as a
   * notification gets no answer (JSON-RPC 2.0 §4.1) and is not run.
   */
  function checkElement(element: RpcElement): EnvelopeCheck | undefined {
    if ("value" in element) return checkEnvelope(element.value);
    if (element.tooDeep.notification) {
      logger.warn("JSON-RPC notification dropped: it nests deeper than limits.maxJsonDepth", { limit: maxJsonDepth });
      return undefined;
    }
    return { ok: false, id: element.tooDeep.id, error: new EnvelopeError("invalidRequest", jsonDepthRefusal(maxJsonDepth)) };
  }

  async function answerSingle(x: Exchange, element: RpcElement): Promise<void> {
    const check = checkElement(element);
    if (!check) return reply(x, undefined);
    const method = check.ok ? lookupMethod(check.request.method) : undefined;
    if (check.ok && method?.kind === "stream" && !check.request.notification) {
      const request = check.request;
      await answerEventStream({
        req: x.req,
        res: x.res,
        open: openStream(x, request, method, x.abort.controller),
        abort: x.abort,
        headers: x.headers,
        keepAliveMs: options.keepAliveMs,
        ...jsonRpcFraming(x.res, request.id, method, x.headers, logger),
      });
      return;
    }
    reply(x, await answerChecked(x, check));
  }

  async function answerBatch(x: Exchange, batch: readonly RpcElement[]): Promise<void> {
    if (batch.length === 0) return reply(x, envelopeFailure(null, "invalidRequest", "an empty batch is not a request"));
    if (batch.length > maxBatchSize) {
      return reply(x, envelopeFailure(null, "invalidRequest", `a batch holds at most ${maxBatchSize} requests, got ${batch.length}`));
    }
    // Every call of a batch listens on the exchange's signal: up to maxBatchSize listeners is the plan, not a leak.
    setMaxListeners(maxBatchSize + 1, x.abort.signal);
    // JSON-RPC 2.0 §6: the requests may run concurrently; notifications get no entry.
    const responses = (
      await Promise.all(
        batch.map((element) => {
          const check = checkElement(element);
          return check ? answerChecked(x, check) : undefined;
        }),
      )
    ).filter((r): r is JsonRpcResponse => r !== undefined);
    reply(x, responses.length > 0 ? responses : undefined);
  }

  /** Writes a JSON answer; nothing to answer (notifications only) is 204. */
  function reply(x: Exchange, body: JsonRpcResponse | JsonRpcResponse[] | undefined): void {
    if (x.res.writableEnded || x.abort.aborted) return;
    if (body === undefined) return sendJson(x.res, 204, undefined, x.headers);
    // A batch's answers may differ, so only a single call's refusal is answered at the HTTP level.
    const refusal = Array.isArray(body) ? undefined : httpLevelRefusal(x.refused);
    if (refusal) sendJson(x.res, refusal.status, body, { ...x.headers, ...refusal.headers });
    else sendJson(x.res, 200, body, x.headers);
  }

  return async (req, res, admission) => {
    const abort = new ClientGone();
    res.once("close", () => {
      if (!res.writableFinished) abort.abort();
    });
    try {
      if (req.method !== "POST") {
        sendJson(res, HTTP_FAILURES.methodNotAllowed.httpStatus, errorResponse(null, new EnvelopeError("invalidRequest", `JSON-RPC requests are POSTed, not sent with ${req.method}`).toJsonRpc()), { allow: "POST" });
        return;
      }
      // §3.6.2: an unsupported version is refused before the envelope is read, so its id is null.
      let params: ServiceParamsNegotiation;
      try {
        params = negotiateServiceParams(req, admission?.card ?? options.card(req));
      } catch (e) {
        // A small body usually follows its headers at once: drain it and keep the connection.
        sendJson(res, 200, errorResponse(null, toJsonRpcError(e, logger)), abandonBody(req, res, { keepAlive: true }));
        return;
      }
      const x: Exchange = { req, res, version: params.version, extensions: params.extensions, headers: params.headers, abort, scope: admission?.scope };
      // §9.1: the body is JSON; another declared type is refused unread, hence with id null.
      try {
        requireJsonContentType(req);
      } catch (e) {
        sendJson(res, 200, errorResponse(null, toJsonRpcError(e, logger)), { ...x.headers, ...abandonBody(req, res, { keepAlive: true }) });
        return;
      }

      // A refused caller (no valid token, over its rate limit) gets its ids back only from a small body; a larger
      // or chunked one is refused from its headers, unread, with id null (§7.4), so refusals stay cheap.
      const refusal = admission?.refusal;
      if (refusal && !(Number(req.headers["content-length"]) <= REFUSED_BODY_BYTES)) {
        sendJson(res, refusal.httpStatus, errorResponse(null, toJsonRpcError(refusal.error, logger)), { ...x.headers, ...refusal.headers, ...abandonBody(req, res) });
        return;
      }
      let body: Buffer;
      try {
        body = await readBody(req, refusal ? REFUSED_BODY_BYTES : maxBodyBytes);
      } catch (e) {
        if (e instanceof BodyTooLargeError) {
          sendJson(res, 200, envelopeFailure(null, "invalidRequest", `${e.message}; send a smaller request`), { ...x.headers, ...abandonBody(req, res) });
        } else if (e instanceof BodyTimeoutError) {
          // RFC 9110 §15.5.9: a slow sender is told why before its connection closes (the one port sets Connection: close).
          sendJson(res, 408, envelopeFailure(null, "invalidRequest", `${e.message}; send the whole body promptly`), x.headers);
        }
        // Otherwise the client is gone: there is no one to answer.
        return;
      }

      const read = readRpcBody(body, maxJsonDepth);
      if (read.kind === "parseError") {
        reply(x, envelopeFailure(null, "parseError", read.detail));
        return;
      }
      if (refusal) {
        const refuse = (e: RpcElement): JsonRpcResponse => errorResponse(elementId(e), toJsonRpcError(refusal.error, logger));
        const answer = read.kind === "batch" ? read.elements.map(refuse) : refuse(read.element);
        sendJson(res, refusal.httpStatus, answer, { ...x.headers, ...refusal.headers });
        return;
      }
      if (read.kind === "batch") await answerBatch(x, read.elements);
      else await answerSingle(x, read.element);
    } catch (e) {
      // A failure outside any call (e.g. the card callback threw).
      const error = toJsonRpcError(e, logger);
      if (!res.headersSent) sendJson(res, 200, errorResponse(null, error));
      else if (!res.writableEnded) res.end();
    }
  };
}

/** `params` as the method readers take it (checkEnvelope let only an object, an array or nothing through). */
function paramsOf(request: JsonRpcRequest): unknown {
  return request.params;
}

function envelopeFailure(id: JsonRpcId, kind: "parseError" | "invalidRequest", detail: string): JsonRpcResponse {
  return errorResponse(id, new EnvelopeError(kind, detail).toJsonRpc());
}


/** The id of a request as read, when it has a valid one (JSON-RPC 2.0 §4: string, number or null). */
function elementId(element: RpcElement): JsonRpcId {
  if ("tooDeep" in element) return element.tooDeep.id;
  const value = element.value;
  const id = typeof value === "object" && value !== null ? (value as { id?: unknown }).id : undefined;
  return typeof id === "string" || typeof id === "number" ? id : null;
}
