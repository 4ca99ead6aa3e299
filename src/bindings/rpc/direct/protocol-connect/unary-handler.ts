import { Code, ConnectError } from "@connectrpc/connect";
import { createMethodSerializationLookup, type MethodSerializationLookup } from "@connectrpc/connect/protocol";
import { codeToHttpStatus, contentTypeUnaryRegExp, errorToJsonBytes, parseTimeout } from "@connectrpc/connect/protocol-connect";
import { ClientGone, endHttp2Answer, EXTENSIONS_HEADER, headerValue, joined, readRequestBody, writeHead, type HttpRequest, type HttpResponse } from "../../../http/index.js";
import { WireAnswer } from "../../../../core/index.js";
import { wireJson } from "../../../../protocol/index.js";
import { toConnectError } from "../../call/index.js";
import { CLIENT_GONE, directContext, judgeCall, requestClosed, type DirectRouteOptions } from "../direct-context.js";
import type { DirectUnaryRoute } from "../protocol-grpc/index.js";

/** A unary RPC with its Connect codecs, as connect-node builds them (its read and write limits included). */
export interface ConnectUnaryRoute {
  readonly route: DirectUnaryRoute;
  readonly serialization: MethodSerializationLookup<never, never>;
}

/** The routes of the Connect unary protocol, by request path, for one server's body limit. */
export function connectUnaryRoutes(routes: ReadonlyArray<[string, DirectUnaryRoute]>, readMaxBytes: number): Map<string, ConnectUnaryRoute> {
  const limits = { readMaxBytes, writeMaxBytes: 0xffffffff };
  return new Map(routes.map(([path, route]) => [path, { route, serialization: createMethodSerializationLookup(route.rpc as never, undefined, undefined, limits) }]));
}


/**
 * Whether a request is a Connect unary POST with an uncompressed body in
 * the JSON or binary codec (Connect protocol §Unary-Request): the requests
 * the direct path answers. A Connect GET, a compressed body and every
 * other content type stay with connect-node.
 */
export function isDirectConnectUnary(req: HttpRequest): boolean {
  if (req.method !== "POST") return false;
  const type = req.headers["content-type"];
  if (typeof type !== "string" || !contentTypeUnaryRegExp.test(type)) return false;
  const encoding = req.headers["content-encoding"];
  return encoding === undefined || encoding === "identity";
}

/**
 * Answers a Connect unary call without connect-node, as connect-node would
 * answer it: the same checks in the same order (deadline header, body,
 * codec, then the interceptors' tenant §7.4 and version §3.6.2), the same
 * codecs, and the same error bodies and HTTP statuses. Why: connect-node
 * runs a unary call through its async-iterable pipeline, converts headers
 * to web Headers and back, and aborts every call's context with a
 * DOMException; Connect must not be the slow binding.
 */
export async function answerConnectUnary(options: DirectRouteOptions, entry: ConnectUnaryRoute, req: HttpRequest, res: HttpResponse): Promise<void> {
  const binary = /^application\/proto$/i.test(String(req.headers["content-type"]));
  const headers: Record<string, string> = { "content-type": binary ? "application/proto" : "application/json" };
  const gone = new ClientGone();
  let ended = false;
  res.once("close", () => {
    if (!ended) gone.abort(CLIENT_GONE);
  });
  const timeout = parseTimeout(headerValue(req, "connect-timeout-ms") ?? null, Number.MAX_SAFE_INTEGER);
  const { ctx, values, finish, deadline } = directContext(req, entry.route.rpc, "connect", timeout.timeoutMs, gone);
  let status = 200;
  let body: Uint8Array;
  try {
    if (timeout.error) throw timeout.error;
    const bytes = await readUnaryBody(req, options.readMaxBytes, deadline);
    const input = entry.serialization.getI(binary).parse(bytes);
    const extensions = judgeCall(options, req, values);
    // An answer the service gives already encoded (core/wire-answer.ts) goes out as it is, or written as JSON straight from its bytes.
    const output = await (entry.route.invokeWire ?? entry.route.invoke)(options.service, input, ctx);
    if (!(output instanceof WireAnswer)) body = entry.serialization.getO(binary).serialize(output as never);
    else body = binary ? output.bytes : Buffer.from(wireJson(entry.route.output, output.bytes, { required: false }));
    // §10.2: the activated extensions are echoed with the answer, as the interceptor does.
    if (extensions) headers[EXTENSIONS_HEADER] = extensions;
  } catch (e) {
    const error = toConnectError(e, options.logger);
    status = codeToHttpStatus(error.code);
    headers["content-type"] = "application/json";
    error.metadata.forEach((value, key) => (headers[key] = value));
    body = errorToJsonBytes(error, undefined);
  }
  finish();
  if (gone.aborted || res.writableEnded) return;
  ended = true;
  headers["content-length"] = String(body.byteLength);
  if (status === 200 && endHttp2Answer(req, res, headers, body)) return;
  writeHead(res, status, headers);
  res.end(body);
}

/**
 * The whole request body, with connect-node's limits and errors: a
 * Content-Length over `readMaxBytes` is RESOURCE_EXHAUSTED before a byte is
 * read, a body that outgrows it as it arrives the same, and a body that
 * breaks its Content-Length INVALID_ARGUMENT. Rejects with the signal's
 * reason when it aborts first (the call's deadline).
 */
function readUnaryBody(req: HttpRequest, readMaxBytes: number, signal: AbortSignal | undefined): Promise<Uint8Array> {
  const hint = lengthHint(req.headers["content-length"]);
  if (hint !== undefined && hint > readMaxBytes) {
    return Promise.reject(new ConnectError(`message size ${hint} is larger than configured readMaxBytes ${readMaxBytes}`, Code.ResourceExhausted));
  }
  const broken = (received: number): ConnectError => new ConnectError(`protocol error: promised ${hint} bytes, received ${received}`, Code.InvalidArgument);
  return readRequestBody(req, signal, {
    chunk(_chunks, received) {
      if (hint !== undefined && received > hint) return broken(received);
      return received > readMaxBytes ? new ConnectError(`message size is larger than configured readMaxBytes ${readMaxBytes}`, Code.ResourceExhausted) : undefined;
    },
    end(chunks, received) {
      return hint !== undefined && received < hint ? broken(received) : joined(chunks, received);
    },
    gone: requestClosed,
  });
}

/** A Content-Length connect-node trusts: a safe non-negative integer. */
function lengthHint(value: string | string[] | undefined): number | undefined {
  if (typeof value !== "string") return undefined;
  const n = parseInt(value, 10);
  return Number.isSafeInteger(n) && n >= 0 ? n : undefined;
}
