import { scopeOf, type A2ACore, type HostedAgent, type Logger } from "../core/index.js";
import type { HttpRequest, HttpResponse } from "../bindings/http/index.js";
import type { OutboxStats, TaskStore } from "../store/index.js";
import { HubMetrics, instrumentAgent, instrumentService, instrumentStore, requestLog } from "../telemetry/index.js";
import type { HubOptions } from "./hub-options.js";
import { metricsRoute } from "./metrics-route.js";
import type { OnePortServer } from "./one-port.js";

/** What a hub records, and the probes that record it: metrics (prom-client), spans (OpenTelemetry), request logs. */
export interface HubTelemetry {
  /** The hub's metrics; undefined when they are off. */
  readonly metrics?: HubMetrics;
  /** GET /metrics, when metrics are on. */
  readonly scrape?: (req: HttpRequest, res: HttpResponse) => boolean;
  /** The store as core and push see it: through the probe only when something records what it sees. */
  observeStore(store: TaskStore, system: "sqlite" | "postgresql"): TaskStore;
  /** The agents, each run a span when tracing. */
  observeAgents(agents: HostedAgent[]): HostedAgent[];
  /** The core every binding calls: its service through the probe, so one place observes them all. */
  observeCore(inner: A2ACore): A2ACore;
  /** Points the gauges read at scrape time at the running hub. */
  watch(inner: A2ACore, store: TaskStore, server: OnePortServer): void;
}

/** The telemetry `options` ask for: metrics unless `metrics: false`, spans when `tracing`, request lines when the logger logs info. */
export function wireTelemetry(options: HubOptions, logger: Logger): HubTelemetry {
  const metrics = options.metrics === false ? undefined : new HubMetrics(options.metrics);
  const tracing = options.tracing ?? false;
  const logRequests = requestLog(logger);
  const scrape = metrics && metricsRoute(metrics, { tokenHash: options.metrics ? options.metrics.tokenHash : undefined, tenantsConfigured: (options.access?.tenants.length ?? 0) > 0 });
  return {
    metrics,
    scrape,
    observeStore: (store, system) => (metrics || tracing ? instrumentStore(store, { metrics, tracing, system }) : store),
    observeAgents: (agents) => (tracing ? agents.map(instrumentAgent) : agents),
    observeCore: (inner) =>
      metrics || tracing || logRequests
        ? {
            ...inner,
            service: instrumentService(inner.service, {
              metrics,
              tracing,
              log: logRequests,
              agentOf: (ctx, requestTenant) => {
                const id = scopeOf(ctx).agentId || requestTenant || inner.agents.defaultAgentId;
                return inner.agents.get(id) ? id : "unknown";
              },
            }),
          }
        : inner,
    watch(inner, store, server) {
      let lastOutbox = { pending: 0, oldestDueAgeS: 0 };
      metrics?.setSources({
        runsInFlight: () => inner.engine.activeRuns,
        subscribers: () => inner.engine.bus.listenerCount(),
        streamBacklog: () => inner.engine.streamBacklog(),
        connections: () => server.connectionsByProtocol(),
        pool: () => store.poolStats?.(),
        outbox: () => {
          const o = store.outboxStats?.(Date.now()) ?? { pending: 0 };
          if (!(o instanceof Promise)) return outboxGauge(o);
          // A networked store answers after the scrape's synchronous pass: this
          // scrape shows what the previous one asked, and asks for the next.
          o.then((v) => (lastOutbox = outboxGauge(v)), () => undefined);
          return lastOutbox;
        },
      });
    },
  };
}

/** The outbox gauges' values from what the store reports. */
function outboxGauge(o: OutboxStats): { pending: number; oldestDueAgeS: number } {
  return { pending: o.pending, oldestDueAgeS: o.oldestDueMs === undefined ? 0 : Math.max(0, Date.now() - o.oldestDueMs) / 1000 };
}
