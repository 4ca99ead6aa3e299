import { A2AService } from "../../../gen/a2a/v1/a2a_pb.js";
import * as http2 from "node:http2";
import { codeToHttpStatus, errorToJsonBytes } from "@connectrpc/connect/protocol-connect";
import { setTrailerStatus } from "@connectrpc/connect/protocol-grpc";
import { accessRefusal } from "../../auth/index.js";
import { silentLogger } from "../../core/index.js";
import { abandonBody, sendJson, writeHead, type HttpRequest, type HttpResponse } from "../http/index.js";
import { toConnectError } from "./connect-errors.js";

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
   * (§7.4), and `onRefused` is told. Unary Connect answers 401, gRPC and
   * gRPC-Web a trailers-only UNAUTHENTICATED; Connect streaming is left to
   * the interceptor, whose answer is a framed body.
   */
  unauthenticated?: { readonly test: (req: Req) => boolean; readonly onRefused: (req: Req) => void },
): (req: Req, res: Res) => void {
  return (req, res) => {
    if (!req.url?.startsWith(RPC_PREFIX)) return handler(req, res);
    const method = A2AService.methods.find((m) => req.url!.slice(RPC_PREFIX.length).split("?")[0] === m.name);
    if (!method) return handler(req, res);
    if (req.method !== "POST") {
      return sendJson(res, 405, { code: "unimplemented", message: `${RPC_PREFIX}${method.name} is called with POST, not ${req.method}` }, { allow: "POST", ...abandonBody(req, res, { keepAlive: true }) });
    }
    const type = req.headers["content-type"];
    if (typeof type === "string" && ACCEPTED.test(type.trim())) {
      if (unauthenticated && !/^application\/connect\+/i.test(type) && unauthenticated.test(req)) {
        unauthenticated.onRefused(req);
        return refuseUnauthenticated(req, res, type);
      }
      return handler(req, res);
    }
    // Connect protocol: 415 for an unsupported Content-Type, with the error in the JSON body.
    const message = `${type ? `Content-Type ${JSON.stringify(type)} is not served` : "the request has no Content-Type"}; send ${EXPECTED}`;
    sendJson(res, 415, { code: "invalid_argument", message }, abandonBody(req, res, { keepAlive: true }));
  };
}

/**
 * The refusal of a call without valid credentials, in its protocol's form
 * and with the same status, message and ErrorInfo the interceptor would
 * give it, its body left unread.
 */
function refuseUnauthenticated(req: HttpRequest, res: HttpResponse, type: string): void {
  const refusal = accessRefusal({ ok: false, why: "unauthenticated" });
  const error = toConnectError(refusal.error, silentLogger);
  if (/^application\/grpc/i.test(type)) {
    // A trailers-only answer: the status in the one HEADERS frame, which ends the stream.
    const headers: Record<string, string> = { ...refusal.headers, "content-type": type.split(";")[0]!.trim() };
    setTrailerStatus(new Headers(), error).forEach((value, key) => (headers[key] = value));
    if ("stream" in res) {
      // HTTP/2: the compatibility response would send the status as plain headers and trailers after it;
      // the unread request is then reset with NO_ERROR (RFC 9113 §8.1).
      res.stream.respond({ ...headers, ":status": 200 }, { endStream: true });
      res.stream.close(http2.constants.NGHTTP2_NO_ERROR);
      return;
    }
    writeHead(res, 200, { ...headers, ...abandonBody(req, res) });
    res.end();
    return;
  }
  const headers: Record<string, string> = { ...refusal.headers, ...abandonBody(req, res) };
  headers["content-type"] = "application/json";
  writeHead(res, codeToHttpStatus(error.code), headers);
  res.end(errorToJsonBytes(error, undefined));
}
