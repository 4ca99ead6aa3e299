import type { JsonObject } from "@bufbuild/protobuf";
import { abandonBody, headerValue, sendJson, type HttpRequest, type HttpResponse } from "../http/index.js";
import { errorMediaType, PROBLEM_JSON, preferredJsonType } from "./accept-preference.js";
import { problemBody, statusBody, type RestFailure } from "./rest-errors.js";

/** §11.4: a result as ProtoJSON, as application/json or application/a2a+json by the request's Accept (§11.1). */
export function sendResult(req: HttpRequest, res: HttpResponse, body: unknown, headers: Readonly<Record<string, string>>): void {
  // Object.assign, not a spread that adds keys: that gives each object a hidden class of its own (docs/hot-path-objects.md).
  sendJson(res, 200, body, Object.assign({}, headers, { "content-type": preferredJsonType(headerValue(req, "accept")), vary: "Accept" }));
}

/**
 * §11.6: a failure as the google.rpc.Status body (as application/json or
 * application/a2a+json, like results), or as RFC 9457 problem details when
 * the client's Accept prefers them. A request body nobody read
 * is drained (the connection stays open) unless it was too large, in which
 * case HTTP/1.1 closes the connection after the answer.
 */
export function sendFailure(req: HttpRequest, res: HttpResponse, failure: RestFailure, headers: Readonly<Record<string, string>>): void {
  if (res.headersSent) {
    if (!res.writableEnded) res.end();
    return;
  }
  const drain = abandonBody(req, res, { keepAlive: failure.httpStatus !== 413 });
  const type = errorMediaType(headerValue(req, "accept"));
  sendJson(res, failure.httpStatus, type === PROBLEM_JSON ? problemBody(failure) : statusBody(failure), {
    ...headers,
    ...failure.headers,
    ...drain,
    "content-type": type,
    vary: "Accept",
  });
}
