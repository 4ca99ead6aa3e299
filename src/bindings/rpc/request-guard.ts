import type { ConnectError } from "@connectrpc/connect";
import { codeToHttpStatus, codeToString, errorToJsonBytes } from "@connectrpc/connect/protocol-connect";
import { setTrailerStatus } from "@connectrpc/connect/protocol-grpc";
import { A2AService } from "../../../gen/a2a/v1/a2a_pb.js";
import { abandonBody, HTTP_FAILURES, sendJson, writeHead, type HttpRequest, type HttpResponse } from "../http/index.js";

/** Where connect-node serves the A2A RPCs: /lf.a2a.v1.A2AService/<Method>. */
const RPC_PREFIX = `/${A2AService.typeName}/`;

/** The content types connect-node answers, by protocol (Connect, gRPC, gRPC-Web), as clients send them. */
const ACCEPTED = /^application\/(?:(?:connect\+)?(?:json|proto)|grpc(?:-web)?(?:\+(?:proto|json))?)(?:\s*;.*)?$/i;

/** What a client that sent something else is told to send. */
const EXPECTED =
  "application/json or application/proto (Connect unary), application/connect+json or application/connect+proto (Connect streaming), " +
  "application/grpc[+proto|+json] (gRPC), application/grpc-web[+proto|+json] (gRPC-Web)";

/**
 * connect-node answers an RPC request with no or an unknown Content-Type,
 * or one sent with GET, with an empty 415 or 405: a client learns nothing
 * from it. Those requests are answered here instead, with the Connect
 * protocol's JSON error body saying what is expected. Everything else goes
 * to connect-node untouched.
 */
export function guardRpcRequests<Req extends HttpRequest, Res extends HttpResponse>(
  handler: (req: Req, res: Res) => void,
  /**
   * Whether a request carries no valid credentials on a hub that wants them:
   * such a call is refused here, from its headers, before its body is read
   * (§7.4; the refusal is the one the guard counted). Unary Connect answers 401, gRPC and
   * gRPC-Web a trailers-only UNAUTHENTICATED; Connect streaming is left to
   * the interceptor, whose answer is a framed body.
   */
  unauthenticated?: (req: Req) => ConnectError | undefined,
): (req: Req, res: Res) => void {
  return (req, res) => {
    if (!req.url?.startsWith(RPC_PREFIX)) return handler(req, res);
    const method = A2AService.methods.find((m) => req.url!.slice(RPC_PREFIX.length).split("?")[0] === m.name);
    if (!method) return handler(req, res);
    if (req.method !== "POST") {
      const row = HTTP_FAILURES.methodNotAllowed;
      // The Connect protocol's error body, its code the table row's.
      const body = { code: codeToString(row.grpcCode), message: `${RPC_PREFIX}${method.name} is called with POST, not ${req.method}` };
      return sendJson(res, row.httpStatus, body, { allow: "POST", ...abandonBody(req, res, { keepAlive: true }) });
    }
    const type = req.headers["content-type"];
    if (typeof type === "string" && ACCEPTED.test(type.trim())) {
      const refusal = unauthenticated && !/^application\/connect\+/i.test(type) ? unauthenticated(req) : undefined;
      if (refusal) return refuseUnauthenticated(req, res, type, refusal);
      return handler(req, res);
    }
    // Connect protocol: 415 for an unsupported Content-Type, with the error in the JSON body.
    const message = `${type ? `Content-Type ${JSON.stringify(type)} is not served` : "the request has no Content-Type"}; send ${EXPECTED}`;
    sendJson(res, 415, { code: "invalid_argument", message }, abandonBody(req, res, { keepAlive: true }));
  };
}

/**
 * The refusal of a call without valid credentials, in its protocol's form, its body left unread:
 * the same status, message, ErrorInfo and WWW-Authenticate the interceptor would give it (§7.4, §10.6).
 */
function refuseUnauthenticated(req: HttpRequest, res: HttpResponse, type: string, error: ConnectError): void {
  const headers: Record<string, string> = {};
  error.metadata.forEach((value, key) => void (headers[key] = value));
  if (/^application\/grpc/i.test(type)) {
    // A trailers-only answer: the status (and its details) in the one HEADERS frame, which ends the stream.
    const status = new Headers();
    setTrailerStatus(status, error);
    status.forEach((value, key) => void (headers[key] = value));
    headers["content-type"] = type.split(";")[0]!.trim();
    if ("stream" in res) {
      // HTTP/2: the compatibility response would send the status as plain headers and trailers after it.
      // What the client still sends of the request is read and dropped: a reset right after the answer can
      // overtake it on the wire (as on Node 26), and the client then sees no status.
      res.stream.respond({ ...headers, ":status": 200 }, { endStream: true });
      req.resume();
      return;
    }
    writeHead(res, 200, { ...headers, ...abandonBody(req, res) });
    res.end();
    return;
  }
  // Connect unary: the HTTP status of the code, the error as Connect's JSON body.
  const body = Buffer.from(errorToJsonBytes(error, {}));
  writeHead(res, codeToHttpStatus(error.code), { ...headers, "content-type": "application/json", "content-length": String(body.byteLength), ...abandonBody(req, res) });
  res.end(body);
}
