import type * as http2 from "node:http2";
import { fromBinary, type DescMessage, type DescMethod } from "@bufbuild/protobuf";
import { Code, ConnectError, type HandlerContext } from "@connectrpc/connect";
import { parseTimeout, setTrailerStatus } from "@connectrpc/connect/protocol-grpc";
import { ClientGone, endHttp2Answer, endHttp2GrpcAnswer, EXTENSIONS_HEADER, headerValue, type HttpRequest } from "../../../http/index.js";
import { CLIENT_GONE, directContext, judgeCall, type DirectRouteOptions } from "../direct-context.js";
import { grpcFrame, readOneMessage } from "./envelope.js";

/** The content types of gRPC and gRPC-Web with the protobuf codec (gRPC over HTTP/2 §Requests; gRPC-Web protocol). */
const GRPC_PROTO = new Set(["application/grpc", "application/grpc+proto"]);
const GRPC_WEB_PROTO = new Set(["application/grpc-web", "application/grpc-web+proto"]);

/** gRPC-Web: the flag of the frame that carries the trailers in the body. */
const TRAILER_FLAG = 0x80;

/** The status of a call that ended OK (gRPC over HTTP/2 §Responses), as setTrailerStatus writes it. */
const OK_TRAILERS: Readonly<Record<string, string>> = Object.freeze({ "grpc-status": "0" });
/** The same for gRPC-Web: the trailer frame, made once (the response copies it out; nobody writes into it). */
const OK_WEB_TRAILER = webTrailerFrame("grpc-status: 0\r\n");


/**
 * Which protocol a request speaks, if the direct path answers it: gRPC over
 * HTTP/2 or gRPC-Web over either version, with the protobuf codec and an
 * uncompressed body (grpc-encoding). gRPC-Web's text form, the JSON codec,
 * compressed requests and Connect streams stay with connect-node.
 */
export function directGrpcProtocol(req: HttpRequest): "grpc" | "grpc-web" | undefined {
  if (req.method !== "POST") return undefined;
  const encoding = req.headers["grpc-encoding"];
  if (encoding !== undefined && encoding !== "identity") return undefined;
  const type = String(req.headers["content-type"]).toLowerCase();
  if (GRPC_PROTO.has(type)) return req.httpVersionMajor >= 2 ? "grpc" : undefined;
  return GRPC_WEB_PROTO.has(type) ? "grpc-web" : undefined;
}

/** One gRPC call answered on the direct path, from its metadata to its trailers. */
export class GrpcCall {
  /** Response headers: those connect-node sends for the same call. */
  readonly headers: Record<string, string>;
  /** HTTP/2 for gRPC; gRPC-Web also comes over HTTP/1.1, whose response writes the same way. */
  readonly res: http2.Http2ServerResponse;
  private readonly gone = new ClientGone();
  private ended = false;
  /** Ends the call's deadline timer (direct-context.ts). */
  private finishContext: () => void = () => {};

  constructor(
    private readonly options: DirectRouteOptions,
    private readonly req: HttpRequest,
    res: unknown,
    private readonly web: boolean,
  ) {
    this.headers = { "content-type": web ? "application/grpc-web+proto" : "application/grpc+proto" };
    this.res = res as http2.Http2ServerResponse;
    this.res.once("close", () => {
      if (!this.ended) this.gone.abort(CLIENT_GONE);
    });
  }

  /** Whether the client went away before the call ended. */
  get clientGone(): boolean {
    return this.gone.aborted;
  }

  /** Aborted when the client went away before the call ended (made on first read: a stream waits on it). */
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
    const { ctx, values, finish, deadline } = directContext(req, method, this.web ? "grpc-web" : "grpc", timeout.timeoutMs, this.gone);
    this.finishContext = finish;
    const unary = method.methodKind === "unary";
    const read = async (): Promise<unknown> => {
      if (timeout.error) throw timeout.error;
      return parse(input, await readOneMessage(req, options.readMaxBytes, deadline, unary ? "unary" : "server-streaming"));
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
   * Ends the call with its status, `failure` or OK: in HTTP trailers (gRPC
   * over HTTP/2 §Responses), or for gRPC-Web in a last frame of the body
   * flagged 0x80, its lines `name: value` as connect-node writes them;
   * nothing when the client already went. `last`, a unary call's answer
   * message (given only with an OK end), is framed and goes out in the same
   * write as the status: a gRPC-Web answer then leaves as one DATA frame
   * rather than two (docs/performance-notes.md). Either answer is written on
   * the HTTP/2 stream itself when it can be (http2-answer.ts).
   */
  finish(failure: ConnectError | undefined, last?: Uint8Array): void {
    this.finishContext();
    if (this.gone.aborted || this.res.writableEnded) return;
    this.ended = true;
    // A unary gRPC-Web answer that ends OK carries its status in the body, not in HTTP trailers.
    if (!failure && this.web && last && endHttp2Answer(this.req, this.res, this.headers, grpcFrame(last, OK_WEB_TRAILER))) return;
    // So does a unary gRPC answer over HTTP/2, with its status in trailers.
    if (!failure && !this.web && last && endHttp2GrpcAnswer(this.req, this.res, this.headers, grpcFrame(last), OK_TRAILERS)) return;
    this.head();
    // Most calls end OK, whose status is one fixed line: no Headers to build and walk for it.
    if (!failure) {
      if (this.web) this.res.end(last ? grpcFrame(last, OK_WEB_TRAILER) : OK_WEB_TRAILER);
      else {
        this.res.addTrailers(OK_TRAILERS);
        if (last) this.res.end(grpcFrame(last));
        else this.res.end();
      }
      return;
    }
    const status = setTrailerStatus(new Headers(), failure);
    if (this.web) {
      let lines = "";
      status.forEach((value, key) => (lines += `${key}: ${value}\r\n`));
      this.res.end(webTrailerFrame(lines));
      return;
    }
    const trailers: Record<string, string> = {};
    status.forEach((value, key) => (trailers[key] = value));
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

/** A gRPC-Web trailer frame: the status lines `name: value` as connect-node writes them, in a body frame flagged 0x80. */
function webTrailerFrame(lines: string): Buffer {
  const frame = grpcFrame(Buffer.from(lines));
  frame[0] = TRAILER_FLAG;
  return frame;
}
