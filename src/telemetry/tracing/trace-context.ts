import type { HandlerContext } from "@connectrpc/connect";
import { context, propagation, ProxyTracerProvider, ROOT_CONTEXT, trace, type Context, type ContextManager, type TextMapGetter, type Tracer, type TracerProvider } from "@opentelemetry/api";
import { requestHeaderValue } from "../../core/index.js";

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

/** The context manager tracing-setup.ts registered, while it is registered. */
let registered: ContextManager | undefined;

/** Called by tracing-setup.ts as it registers its context manager (and with undefined as it removes it). */
export function registerHubContext(manager: ContextManager | undefined): void {
  registered = manager;
}

/**
 * Where the probes make a context active and read the active one: the
 * manager the hub registered, else the OTel API's global. Each call of
 * the API's `context.with` or `context.active()` first looks the manager up
 * in the global registry with a version check; a traced SendMessage makes
 * six or more of them (its server span, its run, each event its agent
 * publishes, its unit of work).
 */
export function hubContext(): Pick<ContextManager, "active" | "with"> {
  return registered ?? context;
}

/**
 * Reads a call's headers for the propagator. W3C Trace Context asks for
 * two by name (`traceparent`, `tracestate`): read straight from the
 * binding, they cost no Headers object (requestHeaderValue); only a
 * propagator that lists every key (OTEL_PROPAGATORS naming another
 * format) makes the call's Headers.
 */
const callGetter: TextMapGetter<HandlerContext> = {
  get: (ctx, key) => requestHeaderValue(ctx, key) ?? undefined,
  keys: (ctx) => [...ctx.requestHeader.keys()],
};

/**
 * The caller's trace context from the request's headers, HTTP or gRPC
 * metadata alike (connect-node and the facades both reach the service
 * with them): W3C `traceparent` and `tracestate`.
 */
export function extractTraceContext(ctx: HandlerContext): Context {
  return propagation.extract(ROOT_CONTEXT, ctx, callGetter);
}
