/**
 * Traces (@opentelemetry/api): the hub's tracer and context, W3C trace
 * context from a call's headers, and the SDK set up on request (a lean
 * tracer, spans encoded to OTLP protobuf in batches and exported over HTTP).
 */
export { extractTraceContext, hubContext, hubTracer } from "./trace-context.js";
export { startTracing, tracingRequested, type TracingConfig, type TracingHandle } from "./tracing-setup.js";
