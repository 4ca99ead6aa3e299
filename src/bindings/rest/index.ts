/**
 * The HTTP+JSON/REST binding (§11): route table, query parameters,
 * google.rpc.Status and RFC 9457 errors, SSE. Mount `createRestHandler`
 * in the server's request dispatch; it claims the paths under its base.
 */
export { createRestHandler, REST_VERSIONS, type RestHandler, type RestHandlerOptions } from "./rest-handler.js";
export { A2A_JSON, errorMediaType, PLAIN_JSON, PROBLEM_JSON, preferredJsonType, prefersProblemDetails } from "./accept-preference.js";
export { grpcStatusName, HTTP_FAILURES, HttpFailure, type HttpFailureKind } from "../http/index.js";
export { A2A_ERROR_TYPE_BASE, problemBody, statusBody, toRestFailure, type RestFailure } from "./rest-errors.js";
export { REST_ROUTES, type RestRoute } from "./rest-routes.js";
export { matchRoute, type RouteMatch } from "./route-match.js";
