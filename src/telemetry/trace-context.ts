import { propagation, ProxyTracerProvider, ROOT_CONTEXT, trace, type Context, type TextMapGetter, type Tracer, type TracerProvider } from "@opentelemetry/api";

/** The tracer last handed out, and the provider it came from. */
let cached: { readonly provider: TracerProvider; readonly tracer: Tracer } | undefined;

/**
 * The tracer every span of the hub comes from (a no-op until an SDK is
 * registered). `trace.getTracer` builds a key and looks the tracer up in
 * the SDK's map on every call (and allocates a ProxyTracer when no SDK is
 * registered), several times per request; the tracer is kept instead,
 * keyed on the provider that really makes the spans, so an SDK registered,
 * replaced or disabled later (`trace.disable()` at shutdown, tests) is
 * seen at the next call.
 */
export function hubTracer(): Tracer {
  const global = trace.getTracerProvider();
  const provider = global instanceof ProxyTracerProvider ? global.getDelegate() : global;
  if (cached?.provider !== provider) cached = { provider, tracer: provider.getTracer("a2a-hub") };
  return cached.tracer;
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
