/**
 * Telemetry: metrics/ (prom-client), tracing/ (@opentelemetry/api) and
 * logs/ (pino), and the probes that observe the service, the store and the
 * agents into all three.
 */
export { HubMetrics, Refusals, RetentionMetrics, type MetricsOptions, type ScrapeSources } from "./metrics/index.js";
export { createHubLogger, LOG_LEVELS, requestLog, type HubLoggerOptions, type LevelledLogger, type RequestLogLine } from "./logs/index.js";
export { extractTraceContext, hubTracer, startTracing, tracingRequested, type TracingConfig, type TracingHandle } from "./tracing/index.js";
export { instrumentService, type ServiceProbeOptions } from "./service-probe.js";
export { instrumentStore, type StoreProbeOptions } from "./store-probe.js";
export { instrumentAgent } from "./agent-probe.js";
