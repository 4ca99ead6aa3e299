/**
 * HTTP plumbing the JSON facades share (JSON-RPC now, REST later): bounded
 * body reading, SSE responses, A2A service parameter negotiation (§3.2.6),
 * ProtoJSON reading/writing and error details.
 */
export { BodyAbortedError, BodyTooLargeError, DEFAULT_MAX_BODY_BYTES, readBody } from "./body-reader.js";
export { badRequestDetail, errorDetails, errorInfoDetail, type ErrorDetail } from "./error-details.js";
export { abandonBody, headerValue, isHttp2, queryParams, requestHeaders, sendJson, type HttpRequest, type HttpResponse } from "./http-exchange.js";
export { readProtoJson, writeProtoJson } from "./proto-json.js";
export {
  EXTENSIONS_HEADER,
  extensionHeaders,
  negotiateExtensions,
  parseExtensions,
  parseVersion,
  requestedVersion,
  requireExtensions,
  SUPPORTED_VERSIONS,
  VERSION_HEADER,
  type A2AVersion,
  type ExtensionNegotiation,
} from "./service-params.js";
export { SSE_KEEP_ALIVE_MS, SseWriter, type SseEvent, type SseWriterOptions } from "./sse-writer.js";
