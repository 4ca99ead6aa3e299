// The module's binding, not the global: `globalThis.performance` (Node 20
// to 26) is a lazy getter that runs on every access, several times per request.
import { performance } from "node:perf_hooks";
import type { HandlerContext } from "@connectrpc/connect";
import { SpanKind, SpanStatusCode, trace, type Context, type Span } from "@opentelemetry/api";
import type { Gauge } from "prom-client";
import { A2AService } from "../../gen/a2a/v1/a2a_pb.js";
import { scopeOf, traceContextKey, type A2AServiceApi, type SequencedEvent } from "../core/index.js";
import type { RequestLogLine } from "./logs/index.js";
import type { HistogramSeries, HubMetrics, Tally } from "./metrics/index.js";
import { idsOf, OK, outcomeOf } from "./request-outcome.js";
import { extractTraceContext, hubContext, hubTracer } from "./tracing/index.js";

/** What the probe records into; each part is optional and costs nothing when absent. */
export interface ServiceProbeOptions {
  readonly metrics?: HubMetrics;
  /** Start a server span per call (an OTel SDK is registered). */
  readonly tracing: boolean;
  /** Receives one line per finished call. */
  readonly log?: (line: RequestLogLine) => void;
  /** The bounded agent label of a call: the addressed agent when it is hosted, else "unknown". */
  agentOf(ctx: HandlerContext, requestTenant: string): string;
}

/** OTel `rpc.system` by binding: the semantic-convention value where one exists. */
const RPC_SYSTEM: Readonly<Record<string, string>> = { grpc: "grpc", "grpc-web": "grpc", connect: "connect_rpc", jsonrpc: "jsonrpc", rest: "http" };

/** Server span names, `lf.a2a.v1.A2AService/SendMessage` (OTel RPC conventions), made once per method. */
const SPAN_NAMES = new Map(A2AService.methods.map((m) => [m.name, `${A2AService.typeName}/${m.name}`]));
const spanName = (method: string): string => SPAN_NAMES.get(method) ?? `${A2AService.typeName}/${method}`;

interface Children {
  readonly requests: Tally;
  readonly seconds: HistogramSeries;
}

/** One call being observed. */
class Call {
  readonly start = performance.now();
  readonly binding: string;
  readonly method: string;
  readonly agent: string;
  readonly tenant: string;
  readonly span: Span | undefined;
  /** The context the service runs in: the server span's, when tracing. */
  readonly ctx: Context | undefined;
  readonly ids: { taskId?: string; contextId?: string } = {};
  events = 0;

  constructor(
    private readonly probe: ServiceProbe,
    handler: HandlerContext,
    req: { tenant?: string },
  ) {
    this.binding = handler.protocolName;
    this.method = handler.method.name;
    this.agent = probe.options.agentOf(handler, req.tenant ?? "");
    this.tenant = scopeOf(handler).tenant;
    if (probe.options.tracing) {
      // W3C Trace Context, from HTTP headers and gRPC metadata alike (read from the binding's headers, tracing/trace-context.ts).
      const parent = extractTraceContext(handler);
      this.span = hubTracer().startSpan(
        spanName(this.method),
        {
          kind: SpanKind.SERVER,
          attributes: {
            "rpc.system": RPC_SYSTEM[this.binding] ?? this.binding,
            "rpc.service": A2AService.typeName,
            "rpc.method": this.method,
            "a2a.binding": this.binding,
            "a2a.agent": this.agent,
            "a2a.tenant": this.tenant,
          },
        },
        parent,
      );
      this.ctx = trace.setSpan(parent, this.span);
      // Handed on by hand past the operation's awaits (tracing/sync-context.ts): the run it starts nests under the server span.
      handler.values.set(traceContextKey, this.ctx);
    }
    if (this.span || probe.options.log) idsOf(req, this.ids);
  }

  /** Notes ids a result or event carries (the task a SendMessage created). */
  saw(result: unknown): void {
    if ((this.span || this.probe.options.log) && this.ids.taskId === undefined) idsOf(result, this.ids);
  }

  end(outcome: string, error?: unknown): void {
    const seconds = (performance.now() - this.start) / 1000;
    const { metrics, log } = this.probe.options;
    if (metrics) {
      const c = this.probe.children(this, outcome);
      c.requests.n++;
      c.seconds.observe(seconds);
    }
    const span = this.span;
    if (span) {
      if (this.ids.taskId) span.setAttribute("a2a.task_id", this.ids.taskId);
      if (this.ids.contextId) span.setAttribute("a2a.context_id", this.ids.contextId);
      span.setAttribute("a2a.outcome", outcome);
      if (outcome !== OK) span.setStatus({ code: SpanStatusCode.ERROR, message: outcome });
      if (error instanceof Error && outcome === "Internal") span.recordException(error);
      span.end();
    }
    log?.({
      binding: this.binding,
      method: this.method,
      agent: this.agent,
      tenant: this.tenant,
      taskId: this.ids.taskId,
      contextId: this.ids.contextId,
      status: outcome,
      durationMs: Math.round(seconds * 1e6) / 1e3,
      ...(this.events > 0 ? { events: this.events } : {}),
      ...(span ? { traceId: span.spanContext().traceId } : {}),
    });
  }
}

/** Wraps each service method; one instance per hub. */
class ServiceProbe {
  private readonly series = new Map<string, Children>();
  private readonly streamSeries = new Map<string, { readonly open: Gauge.Internal<string>; readonly events: Tally; readonly first: HistogramSeries }>();

  constructor(readonly options: ServiceProbeOptions) {}

  /** The metric series of a call, cached, so a call costs one map lookup rather than a label-set hash. */
  children(call: Call, outcome: string): Children {
    const m = this.options.metrics!;
    const key = `${call.binding} ${call.method} ${call.agent} ${outcome} ${m.tenantLabel ? call.tenant : ""}`;
    let c = this.series.get(key);
    if (!c) {
      const labels: Record<string, string> = { binding: call.binding, method: call.method, agent: call.agent, outcome };
      if (m.tenantLabel) labels.tenant = call.tenant;
      c = { requests: m.requests.tally(labels), seconds: m.requestSeconds.series(labels) };
      this.series.set(key, c);
    }
    return c;
  }

  private streamChildren(call: Call) {
    const m = this.options.metrics!;
    const key = `${call.binding} ${call.method}`;
    let c = this.streamSeries.get(key);
    if (!c) {
      c = { open: m.streamsOpen.labels(call.binding), events: m.streamEvents.tally({ binding: call.binding }), first: m.firstEventSeconds.series({ binding: call.binding, method: call.method }) };
      this.streamSeries.set(key, c);
    }
    return c;
  }

  unary<Req extends { tenant?: string }, Res>(fn: (req: Req, ctx: HandlerContext) => Promise<Res>): (req: Req, ctx: HandlerContext) => Promise<Res> {
    return async (req, ctx) => {
      const call = new Call(this, ctx, req);
      try {
        const res = call.ctx ? await hubContext().with(call.ctx, fn, undefined, req, ctx) : await fn(req, ctx);
        call.saw(res);
        call.end(OK);
        return res;
      } catch (e) {
        call.end(outcomeOf(e), e);
        throw e;
      }
    };
  }

  /**
   * A stream: open from the call to its end, each `next()` run in the
   * server span's context so that the agent run it starts is its child.
   */
  stream<Req extends { tenant?: string }, Ev, A extends unknown[]>(
    fn: (req: Req, ctx: HandlerContext, ...rest: A) => AsyncIterable<Ev>,
    eventOf: (e: Ev) => unknown,
  ): (req: Req, ctx: HandlerContext, ...rest: A) => AsyncIterable<Ev> {
    const probe = this;
    return async function* (req, ctx, ...rest) {
      const call = new Call(probe, ctx, req);
      const series = probe.options.metrics ? probe.streamChildren(call) : undefined;
      series?.open.inc();
      let outcome = OK;
      let error: unknown;
      try {
        const it = (call.ctx ? hubContext().with(call.ctx, fn, undefined, req, ctx, ...rest) : fn(req, ctx, ...rest))[Symbol.asyncIterator]();
        try {
          for (;;) {
            const r = call.ctx ? await hubContext().with(call.ctx, () => it.next()) : await it.next();
            if (r.done) break;
            if (call.events === 0) {
              series?.first.observe((performance.now() - call.start) / 1000);
              call.saw(eventOf(r.value));
            }
            call.events++;
            // A field increment per event; the counter takes the sum at scrape time.
            if (series) series.events.n++;
            yield r.value;
          }
        } finally {
          // The reader left early (or failed): the service's stream is ended too.
          await it.return?.();
        }
      } catch (e) {
        outcome = outcomeOf(e);
        error = e;
        throw e;
      } finally {
        series?.open.dec();
        call.end(outcome, error);
      }
    };
  }
}

const plain = <E>(e: E): E => e;
const sequenced = (e: SequencedEvent): unknown => e.event;

/**
 * The service with every call observed: a server span (when tracing) whose
 * context the operation runs in, the request counter and latency histogram,
 * stream gauges, and one log line. Every binding reaches the service
 * through it, so each is observed alike.
 */
export function instrumentService(service: A2AServiceApi, options: ServiceProbeOptions): A2AServiceApi {
  const p = new ServiceProbe(options);
  return {
    sendMessage: p.unary(service.sendMessage),
    sendStreamingMessage: p.stream(service.sendStreamingMessage, plain),
    getTask: p.unary(service.getTask),
    listTasks: p.unary(service.listTasks),
    cancelTask: p.unary(service.cancelTask),
    subscribeToTask: p.stream(service.subscribeToTask, plain),
    createTaskPushNotificationConfig: p.unary(service.createTaskPushNotificationConfig),
    getTaskPushNotificationConfig: p.unary(service.getTaskPushNotificationConfig),
    listTaskPushNotificationConfigs: p.unary(service.listTaskPushNotificationConfigs),
    deleteTaskPushNotificationConfig: p.unary(service.deleteTaskPushNotificationConfig),
    getExtendedAgentCard: p.unary(service.getExtendedAgentCard),
    sendStreamingMessageSequenced: p.stream(service.sendStreamingMessageSequenced, sequenced),
    subscribeSequenced: p.stream(service.subscribeSequenced, sequenced),
    sendMessageWire: p.unary(service.sendMessageWire),
  };
}
