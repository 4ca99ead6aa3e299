import type { JsonObject } from "@bufbuild/protobuf";
import { abandonBody, headerValue, sendJson, type HttpRequest, type HttpResponse } from "../http/index.js";
import { A2A_JSON, PROBLEM_JSON, prefersProblemDetails } from "./accept-preference.js";
import { problemBody, statusBody, type RestFailure } from "./rest-errors.js";

/** §11.4: a result as ProtoJSON, Content-Type application/a2a+json (§11.1). */
export function sendResult(res: HttpResponse, body: JsonObject, headers: Readonly<Record<string, string>>): void {
  sendJson(res, 200, body, { ...headers, "content-type": A2A_JSON });
}

/**
 * §11.6: a failure as the google.rpc.Status body, or as RFC 9457 problem
 * details when the client's Accept prefers them. A request body nobody read
 * is drained (the connection stays open) unless it was too large, in which
 * case HTTP/1.1 closes the connection after the answer.
 */
export function sendFailure(req: HttpRequest, res: HttpResponse, failure: RestFailure, headers: Readonly<Record<string, string>>): void {
  if (res.headersSent) {
    if (!res.writableEnded) res.end();
    return;
  }
  const drain = abandonBody(req, res, { keepAlive: failure.httpStatus !== 413 });
  const problem = prefersProblemDetails(headerValue(req, "accept"));
  sendJson(res, failure.httpStatus, problem ? problemBody(failure) : statusBody(failure), {
    ...headers,
    ...failure.headers,
    ...drain,
    "content-type": problem ? PROBLEM_JSON : A2A_JSON,
  });
}
