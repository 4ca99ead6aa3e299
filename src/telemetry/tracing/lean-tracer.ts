import { context as api, INVALID_SPAN_CONTEXT, SpanKind, trace, TraceFlags, type Context, type Span, type SpanContext, type SpanOptions, type Tracer, type TracerProvider } from "@opentelemetry/api";
import { isTracingSuppressed } from "@opentelemetry/core";
import type { Resource } from "@opentelemetry/resources";
import { SamplingDecision, type IdGenerator, type Sampler, type SpanProcessor } from "@opentelemetry/sdk-trace-node";
import { LeanSpan, NO_LINKS, type SpanHome } from "./lean-span.js";
import { PooledIdGenerator } from "./pooled-ids.js";

/** What the provider is made of: the SDK's sampler, span processor (batching and export) and the service's resource. */
export interface LeanTracerOptions {
  readonly resource: Resource;
  readonly sampler: Sampler;
  readonly processor: SpanProcessor;
  readonly idGenerator?: IdGenerator;
}

/**
 * A tracer that decides and starts spans as the OTel SDK's does (parent
 * from the context, suppression, ids, the sampler's decision and trace
 * state) and makes a LeanSpan of each recorded one.
 */
class LeanTracer implements Tracer {
  constructor(
    private readonly home: SpanHome,
    private readonly sampler: Sampler,
    private readonly ids: IdGenerator,
  ) {}

  startSpan(name: string, options: SpanOptions = {}, ctx: Context = api.active()): Span {
    if (options.root) ctx = trace.deleteSpan(ctx);
    // A suppressed context (the exporter's own calls) records nothing and starts no trace.
    if (isTracingSuppressed(ctx)) return trace.wrapSpanContext(INVALID_SPAN_CONTEXT);
    const parentSpan = trace.getSpan(ctx);
    const parent = parentSpan?.spanContext();
    // A parent this tracer made has ids from its generator: only a remote or foreign one needs the W3C format checked.
    const valid = parent && (parentSpan instanceof LeanSpan || trace.isSpanContextValid(parent)) ? parent : undefined;
    const traceId = valid ? valid.traceId : this.ids.generateTraceId();
    const spanId = this.ids.generateSpanId();
    const kind = options.kind ?? SpanKind.INTERNAL;
    const links = options.links ?? NO_LINKS;
    const attributes = options.attributes ?? {};
    const decision = this.sampler.shouldSample(ctx, traceId, name, kind, attributes, links);
    const traceState = decision.traceState ?? valid?.traceState;
    const traceFlags = decision.decision === SamplingDecision.RECORD_AND_SAMPLED ? TraceFlags.SAMPLED : TraceFlags.NONE;
    const spanContext: SpanContext = traceState ? { traceId, spanId, traceFlags, traceState } : { traceId, spanId, traceFlags };
    // Not recorded: the context still travels (W3C traceparent with the sampled flag unset).
    if (decision.decision === SamplingDecision.NOT_RECORD) return trace.wrapSpanContext(spanContext);
    const span = new LeanSpan(this.home, spanContext, name, kind, valid, decision.attributes ? { ...attributes, ...decision.attributes } : attributes, links, options.startTime);
    this.home.processor.onStart(span, ctx);
    return span;
  }

  startActiveSpan<F extends (span: Span) => unknown>(name: string, ...rest: [F] | [SpanOptions, F] | [SpanOptions, Context, F]): ReturnType<F> {
    const fn = rest[rest.length - 1] as F;
    const options = rest.length > 1 ? (rest[0] as SpanOptions) : {};
    const parent = rest.length > 2 ? (rest[1] as Context) : api.active();
    const span = this.startSpan(name, options, parent);
    return api.with(trace.setSpan(parent, span), () => fn(span) as ReturnType<F>);
  }
}

/**
 * The hub's TracerProvider: the OTel SDK's sampling, id generation, batch
 * processor and OTLP exporter, around spans of the hub's own (lean-span.ts
 * says why). One tracer per instrumentation scope name and version.
 */
export class LeanTracerProvider implements TracerProvider {
  private readonly tracers = new Map<string, LeanTracer>();
  private readonly ids: IdGenerator;

  constructor(private readonly options: LeanTracerOptions) {
    this.ids = options.idGenerator ?? new PooledIdGenerator();
  }

  getTracer(name: string, version?: string, options?: { schemaUrl?: string }): Tracer {
    const key = `${name}@${version ?? ""}:${options?.schemaUrl ?? ""}`;
    let tracer = this.tracers.get(key);
    if (!tracer) {
      const scope = { name, ...(version ? { version } : {}), ...(options?.schemaUrl ? { schemaUrl: options.schemaUrl } : {}) };
      tracer = new LeanTracer({ resource: this.options.resource, instrumentationScope: scope, processor: this.options.processor }, this.options.sampler, this.ids);
      this.tracers.set(key, tracer);
    }
    return tracer;
  }

  /** Exports the spans that have ended and are still batched. */
  forceFlush(): Promise<void> {
    return this.options.processor.forceFlush();
  }

  shutdown(): Promise<void> {
    return this.options.processor.shutdown();
  }
}
