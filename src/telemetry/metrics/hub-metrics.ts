import { performance } from "node:perf_hooks";
import { collectDefaultMetrics, Counter, Gauge, Registry } from "prom-client";
import { TalliedCounter } from "./tallied-counter.js";
import { TalliedHistogram } from "./tallied-histogram.js";

/** How the hub's metrics are labelled. */
export interface MetricsOptions {
  /**
   * Add a `tenant` label to the request and task series. Off by default:
   * tenants are unbounded in general, so only an operator who knows theirs
   * are few turns it on.
   */
  readonly tenantLabel?: boolean;
  /** Collect prom-client's default Node metrics (event loop, heap, RSS, handles); default true. */
  readonly processMetrics?: boolean;
}

/** Values read only when Prometheus scrapes, so that they cost nothing between scrapes. */
export interface ScrapeSources {
  /** Agent runs going now. */
  runsInFlight(): number;
  /** Live-event listeners (streams and subscriptions) attached now. */
  subscribers(): number;
  /** Events buffered for stream readers: in all, and for the furthest-behind one. */
  streamBacklog(): { readonly total: number; readonly max: number };
  /** Open client connections by protocol ("http1", "h2c"). */
  connections(): Readonly<Record<string, number>>;
  /** Push outbox rows still to deliver, and the age of the oldest due one (seconds). */
  outbox(): { readonly pending: number; readonly oldestDueAgeS: number } | undefined;
  /** The store's connection pool (a networked store only): connections open, idle, and callers waiting for one. */
  pool?(): { readonly total: number; readonly idle: number; readonly waiting: number } | undefined;
}

const LATENCY_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];
const ROW_BUCKETS = [1, 2, 3, 5, 8, 13, 21, 34, 55, 100];

/**
 * The hub's Prometheus metrics (prom-client), in a registry of its own so
 * that several hubs in one process never share series. Every label is
 * bounded: binding, method and outcome are fixed sets, agent ids come from
 * the configuration, and tenant only when `tenantLabel` is on. Task ids are
 * never labels.
 */
export class HubMetrics {
  readonly registry = new Registry();
  readonly tenantLabel: boolean;
  // Counted per request, per event or per unit of work: tallied (plain
  // numbers, folded in or rendered at scrape time; see TalliedCounter and
  // TalliedHistogram). The rest change seldom and are prom-client's own.
  readonly requests: TalliedCounter<string>;
  readonly requestSeconds: TalliedHistogram;
  readonly streamsOpen: Gauge;
  readonly streamEvents: TalliedCounter<"binding">;
  readonly firstEventSeconds: TalliedHistogram;
  readonly tasksCreated: TalliedCounter<string>;
  readonly tasksTerminal: TalliedCounter<string>;
  readonly pushDeliveries: Counter;
  readonly refusals: Counter<"reason">;
  readonly authRefusals: Counter<"binding" | "reason">;
  readonly webhookSeconds: TalliedHistogram;
  readonly unitOfWorkSeconds: TalliedHistogram;
  readonly unitOfWorkWrites: TalliedHistogram;
  private sources: ScrapeSources | undefined;

  constructor(options: MetricsOptions = {}) {
    this.tenantLabel = options.tenantLabel ?? false;
    const registers = [this.registry];
    const t = this.tenantLabel ? ["tenant"] : [];
    this.requests = new TalliedCounter({
      name: "a2a_requests_total",
      help: "A2A operations served, by binding, A2A method, agent and outcome (ok or the A2A error name).",
      labelNames: ["binding", "method", "agent", "outcome", ...t],
      registers,
    });
    this.requestSeconds = new TalliedHistogram({
      name: "a2a_request_duration_seconds",
      help: "Time to answer an A2A operation (for streams: until the stream ends).",
      labelNames: ["binding", "method", "agent", "outcome", ...t],
      buckets: LATENCY_BUCKETS,
      registers,
    });
    this.streamsOpen = new Gauge({ name: "a2a_streams_open", help: "Streams (SendStreamingMessage, SubscribeToTask) open now.", labelNames: ["binding"], registers });
    this.streamEvents = new TalliedCounter({ name: "a2a_stream_events_total", help: "Events sent on streams.", labelNames: ["binding"], registers });
    this.firstEventSeconds = new TalliedHistogram({
      name: "a2a_stream_first_event_seconds",
      help: "Time from a stream's request to its first event.",
      labelNames: ["binding", "method"],
      buckets: LATENCY_BUCKETS,
      registers,
    });
    this.tasksCreated = new TalliedCounter({ name: "a2a_tasks_created_total", help: "Tasks created.", labelNames: ["agent", ...t], registers });
    this.tasksTerminal = new TalliedCounter({
      name: "a2a_tasks_terminal_total",
      help: "Tasks that reached a terminal state (completed, failed, canceled, rejected).",
      labelNames: ["agent", "state", ...t],
      registers,
    });
    this.pushDeliveries = new Counter({
      name: "a2a_push_deliveries_total",
      help: "Webhook POST outcomes: sent (2xx), retried (failed, will retry), dead (failed its last attempt).",
      labelNames: ["result"],
      registers,
    });
    this.refusals = new Counter({
      name: "a2a_refusals_total",
      help: "Requests and connections turned away, by reason: the limit that refused them (limits.<key>), unauthenticated, rate-limited, h2.flood, h2.protocolError.",
      labelNames: ["reason"],
      registers,
    });
    this.authRefusals = new Counter({
      name: "a2a_auth_refusals_total",
      help: "Requests refused for their credentials or scopes, by binding and reason (missing, malformed, expired, issuer, audience, signature, scope, certificate).",
      labelNames: ["binding", "reason"],
      registers,
    });
    this.webhookSeconds = new TalliedHistogram({ name: "a2a_push_webhook_duration_seconds", help: "Time of one webhook POST.", buckets: LATENCY_BUCKETS, registers });
    this.unitOfWorkSeconds = new TalliedHistogram({
      name: "a2a_store_unit_of_work_seconds",
      help: "Time from the start of a store unit of work (one batch of agent events) to its commit.",
      buckets: LATENCY_BUCKETS,
      registers,
    });
    this.unitOfWorkWrites = new TalliedHistogram({
      name: "a2a_store_unit_of_work_writes",
      help: "Store writes (task, status, artifact, history, push config, sent-message rows) committed by one unit of work.",
      buckets: ROW_BUCKETS,
      registers,
    });
    const self = this;
    new Gauge({ name: "a2a_runs_in_flight", help: "Agent runs going now.", registers, collect() { this.set(self.sources?.runsInFlight() ?? 0); } });
    new Gauge({ name: "a2a_subscribers", help: "Readers attached to live task events (streams and subscriptions).", registers, collect() { this.set(self.sources?.subscribers() ?? 0); } });
    new Gauge({
      name: "a2a_stream_queue_depth",
      help: "Events buffered for stream readers (sum over readers, and the furthest-behind reader); a reader past its buffer is fed from the event log instead.",
      labelNames: ["of"],
      registers,
      collect() {
        const b = self.sources?.streamBacklog() ?? { total: 0, max: 0 };
        this.set({ of: "sum" }, b.total);
        this.set({ of: "max" }, b.max);
      },
    });
    new Gauge({
      name: "a2a_open_connections",
      help: "Client connections open on the hub's port, by protocol.",
      labelNames: ["protocol"],
      registers,
      collect() {
        for (const [protocol, n] of Object.entries(self.sources?.connections() ?? {})) this.set({ protocol }, n);
      },
    });
    new Gauge({ name: "a2a_push_outbox_pending", help: "Push deliveries waiting in the outbox (due or retrying later).", registers, collect() { this.set(self.sources?.outbox()?.pending ?? 0); } });
    new Gauge({
      name: "a2a_push_outbox_oldest_due_seconds",
      help: "Age of the oldest outbox row that is due now (0 when none is).",
      registers,
      collect() {
        this.set(self.sources?.outbox()?.oldestDueAgeS ?? 0);
      },
    });
    if (options.processMetrics ?? true) {
      collectDefaultMetrics({ register: this.registry });
      // prom-client's defaults have the loop's lag, not how busy it is: the share of time between two scrapes the loop spent running code.
      let since = performance.eventLoopUtilization();
      new Gauge({
        name: "nodejs_eventloop_utilization_ratio",
        help: "Share of the time since the previous scrape that the event loop was busy (0 to 1).",
        registers,
        collect() {
          const now = performance.eventLoopUtilization();
          this.set(performance.eventLoopUtilization(now, since).utilization);
          since = now;
        },
      });
    }
  }

  /** The pool gauges, registered only for a store that has a pool (PostgreSQL): a SQLite hub shows none. */
  private poolGauges(): void {
    if (this.registry.getSingleMetric("a2a_store_pool_waiting")) return;
    const registers = [this.registry];
    const self = this;
    new Gauge({
      name: "a2a_store_pool_connections",
      help: "The PostgreSQL store's pool: connections open, and of those idle (absent on SQLite).",
      labelNames: ["state"],
      registers,
      collect() {
        const p = self.sources?.pool?.();
        if (!p) return;
        this.set({ state: "open" }, p.total);
        this.set({ state: "idle" }, p.idle);
      },
    });
    new Gauge({
      name: "a2a_store_pool_waiting",
      help: "Calls waiting for a connection from the PostgreSQL store's pool now: above 0 for long, the pool (store.poolSize) or the database is the bottleneck.",
      registers,
      collect() {
        const p = self.sources?.pool?.();
        if (p) this.set(p.waiting);
      },
    });
  }

  /** Where the scrape-time gauges read from (the hub sets it once it is up). */
  setSources(sources: ScrapeSources): void {
    if (sources.pool?.()) this.poolGauges();
    // Two gauges read the outbox, and each read is a store query: one query
    // per scrape serves both. prom-client calls every collect() in the
    // same synchronous pass of a scrape, so the answer is kept until the
    // next microtask and no longer.
    let outbox: { value: ReturnType<ScrapeSources["outbox"]> } | undefined;
    this.sources = {
      ...sources,
      outbox: () => {
        if (!outbox) {
          outbox = { value: sources.outbox() };
          queueMicrotask(() => (outbox = undefined));
        }
        return outbox.value;
      },
    };
  }

  /** The Prometheus text exposition, and its content type. */
  async scrape(): Promise<{ body: string; contentType: string }> {
    return { body: await this.registry.metrics(), contentType: this.registry.contentType };
  }
}
