/** Metrics (prom-client): the hub's registry and series, refusal counts, retention sweeps, and the pre-resolved counters and histograms the probes tally into. */
export { HubMetrics, type MetricsOptions, type ScrapeSources } from "./hub-metrics.js";
export { Refusals } from "./refusals.js";
export { RetentionMetrics } from "./retention-metrics.js";
export type { Tally } from "./tallied-counter.js";
export type { HistogramSeries } from "./tallied-histogram.js";
