import type * as http2 from "node:http2";
import { fromBinary, type DescMessage, type DescMethod } from "@bufbuild/protobuf";
import { Code, ConnectError, type createHandlerContext, type HandlerContext } from "@connectrpc/connect";
import { parseTimeout, setTrailerStatus } from "@connectrpc/connect/protocol-grpc";
import { EXTENSIONS_HEADER, headerValue, type HttpRequest } from "../http/index.js";
import { directContext, judgeCall, type DirectRouteOptions } from "./direct-context.js";
import { readOneMessage } from "./grpc-envelope.js";

/** The content types of gRPC with the protobuf codec (gRPC over HTTP/2 §Requests). */
const GRPC_PROTO = new Set(["application/grpc", "application/grpc+proto"]);

/** Why the request signal is aborted when the client resets the stream: a reason of our own, not a DOMException per call. */
const CLIENT_GONE = new ConnectError("the client went away", Code.Canceled);
/** Ends a deadline timer after a call finished in time. */
const FINISHED = new ConnectError("the call finished", Code.Canceled);

/**
 * Whether a request is plain gRPC with the protobuf codec over HTTP/2 and an
 * uncompressed body (gRPC over HTTP/2 §Requests: grpc-encoding): the only
 * requests the direct path answers; gRPC-Web, Connect, the JSON codec and
 * compressed requests stay with connect-node.
 */
export function isDirectGrpc(req: HttpRequest): boolean {
  if (req.httpVersionMajor < 2 || req.method !== "POST") return false;
  if (!GRPC_PROTO.has(String(req.headers["content-type"]).toLowerCase())) return false;
  const encoding = req.headers["grpc-encoding"];
  return encoding === undefined || encoding === "identity";
}

/** One gRPC call answered on the direct path, from its metadata to its trailers. */
export class GrpcCall {
  /** Response headers: those connect-node sends for the same call. */
  readonly headers: Record<string, string> = { "content-type": "application/grpc+proto" };
  readonly res: http2.Http2ServerResponse;
  private readonly gone = new AbortController();
  private ended = false;
  private ctx: ReturnType<typeof createHandlerContext> | undefined;

  constructor(
    private readonly options: DirectRouteOptions,
    private readonly req: HttpRequest,
    res: unknown,
  ) {
    // Only HTTP/2 requests come here (isDirectGrpc).
    this.res = res as http2.Http2ServerResponse;
    this.res.once("close", () => {
      if (!this.ended) this.gone.abort(CLIENT_GONE);
    });
  }

  /** Aborted when the client went away before the call ended. */
  get goneSignal(): AbortSignal {
    return this.gone.signal;
  }

  /**
   * The handler context and the request message, checked in the order
   * connect-node checks them, so a client gets the same status whichever
   * path served it: a unary call's deadline header and body come before the
   * interceptors (tenant §7.4, version §3.6.2), a server stream's after
   * them. Throws the ConnectError a client is answered with.
   */
  async open(method: DescMethod, input: DescMessage): Promise<{ ctx: HandlerContext; message: unknown }> {
    const { req, options } = this;
    const timeout = parseTimeout(headerValue(req, "grpc-timeout") ?? null, Number.MAX_SAFE_INTEGER);
    const { ctx, values } = directContext(req, method, "grpc", timeout.timeoutMs, this.gone.signal);
    this.ctx = ctx;
    const unary = method.methodKind === "unary";
    const read = async (): Promise<unknown> => {
      if (timeout.error) throw timeout.error;
      return parse(input, await readOneMessage(req, options.readMaxBytes, ctx.signal, unary ? "unary" : "server-streaming"));
    };
    const message = unary ? await read() : undefined;
    const extensions = judgeCall(options, req, values);
    // §10.2: the activated extensions are echoed as response metadata.
    if (extensions) this.headers[EXTENSIONS_HEADER] = extensions;
    return { ctx, message: unary ? message : await read() };
  }

  /** Sends the response head if it is not out yet. */
  head(): void {
    if (!this.res.headersSent && !this.res.writableEnded) this.res.writeHead(200, this.headers);
  }

  /**
   * Ends the call with its status in the trailers (gRPC over HTTP/2
   * §Responses), `failure` or OK; nothing when the client already went.
   */
  finish(failure: ConnectError | undefined): void {
    // The deadline timer of a call that ended in time must not fire later.
    if (this.ctx && this.ctx.timeoutMs() !== undefined) this.ctx.abort(FINISHED);
    if (this.gone.signal.aborted || this.res.writableEnded) return;
    this.ended = true;
    this.head();
    const trailers: Record<string, string> = {};
    setTrailerStatus(new Headers(), failure).forEach((value, key) => (trailers[key] = value));
    this.res.addTrailers(trailers);
    this.res.end();
  }

  /** After an unexpected failure of the path itself: the call is reset, never left open. */
  abandon(e: unknown): void {
    this.options.logger.error("gRPC call failed", { error: e instanceof Error ? (e.stack ?? e.message) : String(e) });
    if (!this.res.writableEnded) this.res.destroy();
  }
}

/** The request message, or the INTERNAL error connect-node answers a body it cannot parse with. */
function parse(schema: DescMessage, bytes: Uint8Array): unknown {
  try {
    return fromBinary(schema, bytes);
  } catch (e) {
    throw new ConnectError(`parse binary: ${e instanceof Error ? e.message : String(e)}`, Code.Internal);
  }
}
