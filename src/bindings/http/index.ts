/**
 * HTTP plumbing the bindings share: the one request-body reader (the JSON
 * facades' bounded read and the direct RPC path's rules), the JSON nesting
 * depth check, SSE responses and the pull-first
 * event stream, Last-Event-ID, A2A service parameter negotiation (§3.2.6),
 * the facade call context, ProtoJSON reading/writing and error details.
 */
export { BodyAbortedError, BodyTimeoutError, BodyTooLargeError, DEFAULT_MAX_BODY_BYTES, expireBody, joined, readBody, readRequestBody, type BodyRules } from "./body-reader.js";
export { grpcStatusName, HTTP_FAILURES, HttpFailure, httpFailureBody, nothingServedAt, type HttpFailureKind } from "./http-failure.js";
export { badRequestDetail, errorDetails, errorInfoDetail, type ErrorDetail } from "./error-details.js";
export { answerEventStream, type EventStreamCall } from "./event-stream.js";
export { ClientGone } from "./client-gone.js";
export { httpCallContext, type FacadeAdmission, type FacadeCall, type FacadeRefusal } from "./facade-context.js";
export { endHttp2Answer, endHttp2GrpcAnswer } from "./http2-answer.js";
export { callUnary, callUnaryJson, openSequenced, wireMethodOf } from "./service-call.js";
export { jsonText, RawJson } from "./raw-json.js";
export { abandonBody, headerValue, isHttp2, lazyRequestHeaders, queryParams, requestHeaders, sendJson, writeHead, type HttpRequest, type HttpResponse } from "./http-exchange.js";
export { isJsonMediaType, requireJsonContentType } from "./json-content-type.js";
export { DEFAULT_MAX_JSON_DEPTH, exceedsJsonDepth, jsonDepthRefusal } from "./json-depth.js";
export { encodeOnce } from "./encode-once.js";
export { scanJson, type JsonChild, type JsonScan } from "./json-scan.js";
export { lastEventId } from "./last-event-id.js";
export { dropOnOverflow, overflowDropOf } from "./overflow-drop.js";
export { readProtoJson, writeProtoJson } from "../../protocol/index.js";
export {
  EXTENSIONS_HEADER,
  extensionHeaders,
  negotiateExtensions,
  negotiateServiceParams,
  parseExtensions,
  parseVersion,
  requestedVersion,
  SUPPORTED_VERSIONS,
  VERSION_HEADER,
  type A2AVersion,
  type ExtensionNegotiation,
  type ServiceParamsNegotiation,
} from "./service-params.js";
export type { ServiceRoute, StreamRoute, UnaryRoute } from "./service-route.js";
export { SSE_KEEP_ALIVE_MS, SseWriter, type SseEvent, type SseWriterOptions } from "./sse-writer.js";
export { callScopeOf, credentialsOf, identificationOf, identifyFirst, keptIdentification } from "./request-caller.js";
