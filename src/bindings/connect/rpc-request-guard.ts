import { A2AService } from "../../../gen/a2a/v1/a2a_pb.js";
import { abandonBody, sendJson, writeHead, type HttpRequest, type HttpResponse } from "../http/index.js";

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

const UNAUTHENTICATED_MESSAGE = "a valid bearer token is required";

/** The refusal of a call without valid credentials, in its protocol's form, its body left unread. */
function refuseUnauthenticated(req: HttpRequest, res: HttpResponse, type: string): void {
  const challenge = { "www-authenticate": 'Bearer realm="a2a-hub"' };
  if (/^application\/grpc/i.test(type)) {
    // gRPC over HTTP/2 (and gRPC-Web): a trailers-only answer, the status in the headers.
    writeHead(res, 200, { "content-type": type.split(";")[0]!.trim(), "grpc-status": "16", "grpc-message": encodeURIComponent(UNAUTHENTICATED_MESSAGE), ...challenge, ...abandonBody(req, res) });
    res.end();
    return;
  }
  sendJson(res, 401, { code: "unauthenticated", message: UNAUTHENTICATED_MESSAGE }, { ...challenge, ...abandonBody(req, res) });
}
