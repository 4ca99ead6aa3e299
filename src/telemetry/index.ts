/** Telemetry: Prometheus metrics (prom-client), OpenTelemetry traces (@opentelemetry/api), structured logs (pino). */
export { HubMetrics, type MetricsOptions, type ScrapeSources } from "./hub-metrics.js";
export { Refusals } from "./refusals.js";
export { createHubLogger, LOG_LEVELS, requestLog, type HubLoggerOptions, type LevelledLogger } from "./hub-logger.js";
export { instrumentService, type RequestLogLine, type ServiceProbeOptions } from "./service-probe.js";
export { instrumentStore, type StoreProbeOptions } from "./store-probe.js";
export { instrumentAgent } from "./agent-probe.js";
export { startTracing, tracingRequested, type TracingConfig, type TracingHandle } from "./tracing-setup.js";
export { extractTraceContext, hubTracer } from "./trace-context.js";
export { RetentionMetrics } from "./retention-metrics.js";
