import { context, ROOT_CONTEXT, SpanKind, SpanStatusCode, trace, TraceFlags, type Span, type SpanContext } from "@opentelemetry/api";
import { suppressTracing } from "@opentelemetry/core";
import { ProtobufTraceSerializer } from "@opentelemetry/otlp-transformer";
import { resourceFromAttributes } from "@opentelemetry/resources";
import {
  AlwaysOffSampler,
  AlwaysOnSampler,
  BasicTracerProvider,
  InMemorySpanExporter,
  ParentBasedSampler,
  SimpleSpanProcessor,
  TraceIdRatioBasedSampler,
  type IdGenerator,
  type ReadableSpan,
  type Sampler,
} from "@opentelemetry/sdk-trace-node";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { LeanTracerProvider } from "../../../src/telemetry/tracing/lean-tracer.js";
import { PooledIdGenerator } from "../../../src/telemetry/tracing/pooled-ids.js";
import { SyncContextManager } from "../../../src/telemetry/tracing/sync-context.js";
import { samplerFor } from "../../../src/telemetry/tracing/tracing-setup.js";

/** Ids in a fixed sequence, so that two providers make the same spans. */
function countingIds(): IdGenerator {
  let n = 0;
  const next = (width: number) => (++n).toString(16).padStart(width, "0");
  return { generateTraceId: () => next(32), generateSpanId: () => next(16) };
}

const resource = resourceFromAttributes({ "service.name": "lean-test" });

function lean(sampler: Sampler = new AlwaysOnSampler()) {
  const exporter = new InMemorySpanExporter();
  const provider = new LeanTracerProvider({ resource, sampler, processor: new SimpleSpanProcessor(exporter), idGenerator: countingIds() });
  return { exporter, tracer: provider.getTracer("a2a-hub") };
}

function sdk() {
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({ resource, sampler: new AlwaysOnSampler(), idGenerator: countingIds(), spanProcessors: [new SimpleSpanProcessor(exporter)] });
  return { exporter, tracer: provider.getTracer("a2a-hub") };
}

const remoteParent: SpanContext = { traceId: "0af7651916cd43dd8448eb211c80319c", spanId: "b7ad6b7169203331", traceFlags: TraceFlags.SAMPLED, isRemote: true };

/** A server span, a child with an error and an exception, and a span linked to the first, all at fixed times. */
function story(tracer: ReturnType<typeof lean>["tracer"]): void {
  const t0 = 1_764_000_000_123;
  const server = tracer.startSpan(
    "lf.a2a.v1.A2AService/SendMessage",
    { kind: SpanKind.SERVER, startTime: t0, attributes: { "rpc.system": "jsonrpc", "a2a.tenant": "", retries: 2, ratio: 0.5, ok: true, tags: ["a", "b"], nothing: undefined } },
    trace.setSpanContext(ROOT_CONTEXT, remoteParent),
  );
  const child = tracer.startSpan("agent run", { startTime: t0 + 1, attributes: { "a2a.agent": "echo" } }, trace.setSpan(ROOT_CONTEXT, server));
  const failure = new Error("the agent failed");
  failure.stack = "Error: the agent failed\n    at test";
  child.recordException(failure, t0 + 2);
  child.setStatus({ code: SpanStatusCode.ERROR, message: "the agent failed" });
  child.addEvent("retry", { attempt: 1 }, t0 + 3);
  child.end(t0 + 4);
  server.setAttribute("a2a.task_id", "task-1");
  server.setAttributes({ "a2a.outcome": "ok", "a2a.context_id": "ctx-1" });
  server.setStatus({ code: SpanStatusCode.OK });
  server.setStatus({ code: SpanStatusCode.ERROR, message: "after OK" });
  server.addLink({ context: child.spanContext(), attributes: { why: "test" } });
  server.end(t0 + 5);
  server.setAttribute("after", "end");
}

describe("lean spans", () => {
  let manager: SyncContextManager;
  beforeEach(() => {
    manager = new SyncContextManager();
    context.setGlobalContextManager(manager);
  });
  afterEach(() => {
    context.disable();
  });

  it("encode to the same OTLP bytes as the OTel SDK's spans for the same calls", () => {
    const ours = lean();
    const theirs = sdk();
    story(ours.tracer);
    story(theirs.tracer);
    const a = ours.exporter.getFinishedSpans();
    const b = theirs.exporter.getFinishedSpans();
    expect(a).toHaveLength(2);
    const bytes = (spans: ReadableSpan[]) => Buffer.from(ProtobufTraceSerializer.serializeRequest(spans)!).toString("hex");
    expect(bytes(a)).toBe(bytes(b));
  });

  it("keep valid attributes only, record nothing after end, and keep an OK status", () => {
    const { exporter, tracer } = lean();
    story(tracer);
    const [child, server] = exporter.getFinishedSpans();
    expect(server!.attributes).toEqual({ "rpc.system": "jsonrpc", "a2a.tenant": "", retries: 2, ratio: 0.5, ok: true, tags: ["a", "b"], "a2a.task_id": "task-1", "a2a.outcome": "ok", "a2a.context_id": "ctx-1" });
    expect(server!.status).toEqual({ code: SpanStatusCode.OK });
    expect(server!.parentSpanContext).toEqual(remoteParent);
    expect(server!.spanContext().traceId).toBe(remoteParent.traceId);
    expect(child!.parentSpanContext?.spanId).toBe(server!.spanContext().spanId);
    expect(child!.events.map((e) => e.name)).toEqual(["exception", "retry"]);
    expect(child!.events[0]!.attributes).toEqual({ "exception.type": "Error", "exception.message": "the agent failed", "exception.stacktrace": "Error: the agent failed\n    at test" });
    expect(child!.duration).toEqual([0, 3_000_000]);
  });

  it("measure an unended duration from the monotonic clock", async () => {
    const { exporter, tracer } = lean();
    const span = tracer.startSpan("wait");
    await new Promise((r) => setTimeout(r, 20));
    span.end();
    const [done] = exporter.getFinishedSpans();
    const ms = done!.duration[0] * 1e3 + done!.duration[1] / 1e6;
    expect(ms).toBeGreaterThanOrEqual(15);
    expect(ms).toBeLessThan(5_000);
  });

  it("follow the sampler: unsampled spans carry their context, record nothing and reach no exporter", () => {
    const { exporter, tracer } = lean(new ParentBasedSampler({ root: new AlwaysOffSampler() }));
    const root = tracer.startSpan("root");
    expect(root.isRecording()).toBe(false);
    expect(root.spanContext().traceFlags).toBe(TraceFlags.NONE);
    expect(trace.isSpanContextValid(root.spanContext())).toBe(true);
    // A sampled remote parent wins over the root sampler.
    const child = tracer.startSpan("child", {}, trace.setSpanContext(ROOT_CONTEXT, remoteParent));
    expect(child.isRecording()).toBe(true);
    root.end();
    child.end();
    expect(exporter.getFinishedSpans().map((s) => s.name)).toEqual(["child"]);
  });

  it("start nothing in a suppressed context, and nest under the active span", () => {
    const { tracer } = lean();
    const suppressed = tracer.startSpan("exporter's own call", {}, suppressTracing(ROOT_CONTEXT));
    expect(trace.isSpanContextValid(suppressed.spanContext())).toBe(false);
    const outer = tracer.startSpan("outer");
    const inner = context.with(trace.setSpan(ROOT_CONTEXT, outer), () => tracer.startSpan("inner"));
    expect(inner.spanContext().traceId).toBe(outer.spanContext().traceId);
    const active = tracer.startActiveSpan("active", (span: Span) => trace.getActiveSpan() === span);
    expect(active).toBe(true);
    const root = context.with(trace.setSpan(ROOT_CONTEXT, outer), () => tracer.startSpan("root", { root: true }));
    expect(root.spanContext().traceId).not.toBe(outer.spanContext().traceId);
  });
});

describe("the sampler from OTEL_TRACES_SAMPLER", () => {
  const samplers = { AlwaysOnSampler, AlwaysOffSampler, ParentBasedSampler, TraceIdRatioBasedSampler };
  const describeOf = (env: NodeJS.ProcessEnv, ratio = 1) => samplerFor(env, ratio, samplers).toString();

  it("takes the SDK's names and ratio, and the config's ratio without them", () => {
    expect(describeOf({})).toBe("ParentBased{root=AlwaysOnSampler, remoteParentSampled=AlwaysOnSampler, remoteParentNotSampled=AlwaysOffSampler, localParentSampled=AlwaysOnSampler, localParentNotSampled=AlwaysOffSampler}");
    expect(describeOf({}, 0.25)).toContain("root=TraceIdRatioBased{0.25}");
    expect(describeOf({}, 0)).toContain("root=AlwaysOffSampler");
    expect(describeOf({ OTEL_TRACES_SAMPLER: "always_off" })).toBe("AlwaysOffSampler");
    expect(describeOf({ OTEL_TRACES_SAMPLER: "traceidratio", OTEL_TRACES_SAMPLER_ARG: "0.1" })).toBe("TraceIdRatioBased{0.1}");
    expect(describeOf({ OTEL_TRACES_SAMPLER: "parentbased_traceidratio", OTEL_TRACES_SAMPLER_ARG: "2" })).toContain("root=AlwaysOnSampler");
    expect(describeOf({ OTEL_TRACES_SAMPLER: "parentbased_always_off" })).toContain("root=AlwaysOffSampler");
    expect(describeOf({ OTEL_TRACES_SAMPLER: "nonsense" })).toContain("root=AlwaysOnSampler");
  });
});

describe("the pooled id generator", () => {
  it("gives W3C trace and span ids (16 and 8 bytes in lowercase hex, never all zero), all different, across refills of its pool", () => {
    const ids = new PooledIdGenerator();
    const seen = new Set<string>();
    // 1,000 of each: about 24 KB drawn, so the 4 KiB pool is refilled several times, mid-id included.
    for (let i = 0; i < 1000; i++) {
      const traceId = ids.generateTraceId();
      const spanId = ids.generateSpanId();
      expect(traceId).toMatch(/^[0-9a-f]{32}$/);
      expect(spanId).toMatch(/^[0-9a-f]{16}$/);
      expect(trace.isSpanContextValid({ traceId, spanId, traceFlags: TraceFlags.SAMPLED })).toBe(true);
      seen.add(traceId).add(spanId);
    }
    expect(seen.size).toBe(2000);
  });

  it("is what a provider without an id generator gives its spans", () => {
    const exporter = new InMemorySpanExporter();
    const provider = new LeanTracerProvider({ resource, sampler: new AlwaysOnSampler(), processor: new SimpleSpanProcessor(exporter) });
    const tracer = provider.getTracer("a2a-hub");
    const parent = tracer.startSpan("parent");
    const child = tracer.startSpan("child", {}, trace.setSpan(ROOT_CONTEXT, parent));
    expect(child.spanContext().traceId).toBe(parent.spanContext().traceId);
    expect(child.spanContext().spanId).not.toBe(parent.spanContext().spanId);
    expect(parent.spanContext().traceId).toMatch(/^[0-9a-f]{32}$/);
  });
});
