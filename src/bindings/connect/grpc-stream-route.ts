import type * as http2 from "node:http2";
import { fromBinary, toBinary, type DescMessage, type DescMethod } from "@bufbuild/protobuf";
import { Code, ConnectError, createHandlerContext, type HandlerContext } from "@connectrpc/connect";
import { parseTimeout, setTrailerStatus } from "@connectrpc/connect/protocol-grpc";
import { A2AService, SendMessageRequestSchema, StreamResponseSchema, SubscribeToTaskRequestSchema } from "../../../gen/a2a/v1/a2a_pb.js";
import type { AccessGuard } from "../../auth/index.js";
import { callScopeKey, serviceParamsKey, type A2AServiceApi, type Logger, type SequencedEvent } from "../../core/index.js";
import { encodeOnce, EXTENSIONS_HEADER, headerValue, requestHeaders, VERSION_HEADER, type HttpRequest, type HttpResponse } from "../http/index.js";
import { rpcCallScope } from "./access-interceptor.js";
import { deadlineOf, toConnectError } from "./connect-errors.js";
import { rpcContextValues } from "./context-values.js";
import { grpcFrame, readOneMessage } from "./grpc-envelope.js";
import { rpcServiceParams } from "./service-params-interceptor.js";

/** What the gRPC stream path needs: what connect-node is given for the same calls. */
export interface GrpcStreamOptions {
  readonly service: A2AServiceApi;
  readonly guard: AccessGuard;
  readonly logger: Logger;
  /** The largest request message read, as connect-node's readMaxBytes. */
  readonly readMaxBytes: number;
}

/** One server-streaming RPC answered here. */
interface StreamRoute {
  readonly method: DescMethod;
  readonly input: DescMessage;
  open(service: A2AServiceApi, message: never, ctx: HandlerContext): AsyncIterable<SequencedEvent>;
}

const ROUTES = new Map<string, StreamRoute>([
  [
    `/${A2AService.typeName}/${A2AService.method.sendStreamingMessage.name}`,
    { method: A2AService.method.sendStreamingMessage, input: SendMessageRequestSchema, open: (s, m, ctx) => s.sendStreamingMessageSequenced(m, ctx) },
  ],
  [
    `/${A2AService.typeName}/${A2AService.method.subscribeToTask.name}`,
    { method: A2AService.method.subscribeToTask, input: SubscribeToTaskRequestSchema, open: (s, m, ctx) => s.subscribeSequenced(m, ctx) },
  ],
]);

/** The content types of gRPC with the protobuf codec (gRPC over HTTP/2 §Requests). */
const GRPC_PROTO = new Set(["application/grpc", "application/grpc+proto"]);

/** Why the request signal is aborted when the client resets the stream: a reason of our own, not a DOMException per stream. */
const CLIENT_GONE = new ConnectError("the client went away", Code.Canceled);
/** Ends a deadline timer after a stream finished in time. */
const FINISHED = new ConnectError("the stream finished", Code.Canceled);

/** §10: one protobuf encode per event, shared by every gRPC stream that sends it (fan-out). */
const frameOf = encodeOnce((event: SequencedEvent["event"]) => grpcFrame(toBinary(StreamResponseSchema, event)));

/**
 * Answers gRPC SendStreamingMessage and SubscribeToTask over HTTP/2 without
 * connect-node, and hands every other request to `next` (connect-node).
 *
 * Why: a stream that connect-node serves passes each event through a
 * chain of async iterables (serialize, envelope, join, write) and, at its
 * end, aborts its context (a DOMException per stream); with 10,000
 * subscribers of one task that costs seconds before the first of them
 * hears of a CancelTask. Here an event is one write of bytes encoded once
 * for all subscribers, and the stream's end costs its trailers.
 *
 * What a client sees is what connect-node sends for the same call: the
 * same headers, messages and trailers, the same status codes and
 * google.rpc.Status details (the same interceptor logic decides scope and
 * service parameters, §7.4, §10.2). Only plain gRPC with the protobuf
 * codec and an uncompressed request is answered here; gRPC-Web, Connect,
 * the JSON codec and compressed requests go to connect-node.
 */
export function serveGrpcStreams<Req extends HttpRequest, Res extends HttpResponse>(
  options: GrpcStreamOptions,
  next: (req: Req, res: Res) => void,
): (req: Req, res: Res) => void {
  return (req, res) => {
    const route = req.httpVersionMajor >= 2 && req.method === "POST" ? ROUTES.get(req.url ?? "") : undefined;
    if (!route || !GRPC_PROTO.has(String(req.headers["content-type"]).toLowerCase()) || !identityEncoded(req)) return next(req, res);
    answer(options, route, req, res).catch((e: unknown) => {
      options.logger.error("gRPC stream failed", { error: e instanceof Error ? (e.stack ?? e.message) : String(e) });
      if (!res.writableEnded) res.destroy();
    });
  };
}

/** A request body sent without compression (gRPC over HTTP/2 §Requests: grpc-encoding). */
function identityEncoded(req: HttpRequest): boolean {
  const encoding = req.headers["grpc-encoding"];
  return encoding === undefined || encoding === "identity";
}

async function answer(options: GrpcStreamOptions, route: StreamRoute, req: HttpRequest, response: HttpResponse): Promise<void> {
  const { service, logger } = options;
  // Only HTTP/2 requests come here (serveGrpcStreams).
  const res = response as http2.Http2ServerResponse;
  const gone = new AbortController();
  let ended = false;
  res.once("close", () => {
    if (!ended) gone.abort(CLIENT_GONE);
  });
  const headers: Record<string, string> = { "content-type": "application/grpc+proto" };
  let ctx: ReturnType<typeof createHandlerContext> | undefined;
  let iterator: AsyncIterator<SequencedEvent> | undefined;
  let done = false;
  let failure: ConnectError | undefined;
  try {
    // The order connect-node checks in: the interceptors (tenant, then version), then the deadline, then the body.
    const values = rpcContextValues(req);
    values.set(callScopeKey, rpcCallScope(options.guard, headerValue(req, "authorization")));
    const params = rpcServiceParams(headerValue(req, VERSION_HEADER), headerValue(req, EXTENSIONS_HEADER), logger);
    values.set(serviceParamsKey, params);
    if (params.extensions.length > 0) headers[EXTENSIONS_HEADER] = params.extensions.join(", ");
    const timeout = parseTimeout(headerValue(req, "grpc-timeout") ?? null, Number.MAX_SAFE_INTEGER);
    if (timeout.error) throw timeout.error;
    ctx = createHandlerContext({
      service: A2AService,
      method: route.method as never,
      protocolName: "grpc",
      requestMethod: "POST",
      url: req.url ?? "",
      timeoutMs: timeout.timeoutMs,
      requestSignal: gone.signal,
      requestHeader: requestHeaders(req),
      contextValues: values,
    });
    const message = parse(route.input, await readOneMessage(req, options.readMaxBytes, ctx.signal));
    iterator = route.open(service, message as never, ctx)[Symbol.asyncIterator]();
    let step = await iterator.next();
    // As connect-node: the head waits for the first event, so an error found up front is still a status.
    if (!res.headersSent && !res.writableEnded) res.writeHead(200, headers);
    while (!step.done) {
      if (!res.write(frameOf(step.value.event)) && !(await drained(res, gone.signal))) break;
      step = await iterator.next();
    }
    done = step.done === true;
  } catch (e) {
    failure = toConnectError(e, logger);
  } finally {
    if (iterator && !done) await iterator.return?.().catch(() => undefined);
  }
  // A stream ended by its deadline says so (DEADLINE_EXCEEDED), not OK.
  if (!failure && ctx) failure = deadlineOf(ctx);
  if (ctx && timeoutSet(ctx)) ctx.abort(FINISHED);
  if (gone.signal.aborted || res.writableEnded) return;
  ended = true;
  if (!res.headersSent) res.writeHead(200, headers);
  const trailers: Record<string, string> = {};
  setTrailerStatus(new Headers(), failure).forEach((value, key) => (trailers[key] = value));
  res.addTrailers(trailers);
  res.end();
}

/** The request message, or the INTERNAL error connect-node answers a body it cannot parse with. */
function parse(schema: DescMessage, bytes: Uint8Array): unknown {
  try {
    return fromBinary(schema, bytes);
  } catch (e) {
    throw new ConnectError(`parse binary: ${e instanceof Error ? e.message : String(e)}`, Code.Internal);
  }
}

function timeoutSet(ctx: HandlerContext): boolean {
  return ctx.timeoutMs() !== undefined;
}

/** Resolves true once the response drained, false if it closed first (the reader went away or was dropped). */
function drained(res: http2.Http2ServerResponse, gone: AbortSignal): Promise<boolean> {
  return new Promise((resolve) => {
    const settle = (): void => {
      res.off("drain", settle);
      res.off("close", settle);
      resolve(!gone.aborted);
    };
    res.on("drain", settle);
    res.on("close", settle);
  });
}
