import { propagation, ROOT_CONTEXT, trace, type Context, type TextMapGetter, type Tracer } from "@opentelemetry/api";

/** The tracer every span of the hub comes from (a no-op until an SDK is registered). */
export function hubTracer(): Tracer {
  return trace.getTracer("a2a-hub");
}

const headersGetter: TextMapGetter<Headers> = {
  get: (carrier, key) => carrier.get(key) ?? undefined,
  keys: (carrier) => [...carrier.keys()],
};

/**
 * The caller's trace context from request headers, HTTP or gRPC metadata
 * alike (connect-node and the facades both hand the service a Headers):
 * W3C `traceparent` and `tracestate`.
 */
export function extractTraceContext(headers: Headers): Context {
  return propagation.extract(ROOT_CONTEXT, headers, headersGetter);
}
