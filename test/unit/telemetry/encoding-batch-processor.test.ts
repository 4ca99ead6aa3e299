import { ROOT_CONTEXT, trace, TraceFlags } from "@opentelemetry/api";
import { ExportResultCode, type ExportResult } from "@opentelemetry/core";
import { ProtobufTraceSerializer } from "@opentelemetry/otlp-transformer";
import { resourceFromAttributes } from "@opentelemetry/resources";
import { AlwaysOffSampler, AlwaysOnSampler, InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan, type Sampler } from "@opentelemetry/sdk-trace-node";
import { afterEach, describe, expect, it, vi } from "vitest";
import { batchOptionsFromEnv, BATCH_DEFAULTS, EncodingBatchProcessor, type EncodedSpanExporter, type EncodedSpans } from "../../../src/telemetry/tracing/encoding-batch-processor.js";
import { LeanTracerProvider } from "../../../src/telemetry/tracing/lean-tracer.js";

const resource = resourceFromAttributes({ "service.name": "hub-under-test" });

/** An exporter that keeps each request it is handed and answers as `answer` says. */
function recordingExporter(answer: (batch: EncodedSpans) => ExportResult | "never" = () => ({ code: ExportResultCode.SUCCESS })) {
  const batches: EncodedSpans[] = [];
  const exporter: EncodedSpanExporter & { shutdowns: number } = {
    shutdowns: 0,
    export(batch, done) {
      batches.push(batch);
      const r = answer(batch);
      if (r !== "never") setTimeout(() => done(r), 1);
    },
    async shutdown() {
      exporter.shutdowns++;
    },
  };
  return { exporter, batches };
}

/** A tracer whose spans go to `processor`, and a copy of each to a list (to encode them the SDK's way for comparison). */
function tracerInto(processor: EncodingBatchProcessor, sampler: Sampler = new AlwaysOnSampler()) {
  const copies = new InMemorySpanExporter();
  const both = new SimpleSpanProcessor(copies);
  const provider = new LeanTracerProvider({
    resource,
    sampler,
    processor: {
      onStart: () => {},
      onEnd: (s: ReadableSpan) => {
        both.onEnd(s);
        processor.onEnd(s);
      },
      forceFlush: () => processor.forceFlush(),
      shutdown: () => processor.shutdown(),
    },
  });
  const tracer = provider.getTracer("a2a-hub");
  const spans = (n: number, name = "call"): void => {
    for (let i = 0; i < n; i++) {
      const parent = tracer.startSpan(`${name} ${i}`, { attributes: { "a2a.binding": "jsonrpc", i } });
      tracer.startSpan("agent run", {}, trace.setSpan(ROOT_CONTEXT, parent)).end();
      parent.end();
    }
  };
  return { spans, ended: () => copies.getFinishedSpans() };
}

const turn = () => new Promise<void>((r) => setImmediate(r));

afterEach(() => {
  vi.useRealTimers();
});

describe("the encoding batch processor", () => {
  it("sends full batches as soon as they fill, in the SDK serializer's bytes, and the rest on flush", async () => {
    const { exporter, batches } = recordingExporter();
    const processor = new EncodingBatchProcessor(exporter, { maxExportBatchSize: 10, scheduledDelayMillis: 60_000 });
    const { spans, ended } = tracerInto(processor);
    spans(12); // 24 spans: two full batches, 4 left over
    expect(batches).toHaveLength(0); // nothing is encoded inside span.end(): only after the turn
    await turn();
    expect(batches.map((b) => b.count)).toEqual([10]); // one export at a time
    await new Promise((r) => setTimeout(r, 20));
    expect(batches.map((b) => b.count)).toEqual([10, 10]);
    await processor.forceFlush();
    expect(batches.map((b) => b.count)).toEqual([10, 10, 4]);
    const all = ended();
    for (const [i, b] of batches.entries()) {
      const sdk = ProtobufTraceSerializer.serializeRequest(all.slice(i * 10, i * 10 + b.count))!;
      expect(Buffer.from(b.request).equals(Buffer.from(sdk))).toBe(true);
    }
  });

  it("sends a partial batch after the scheduled delay", async () => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
    const { exporter, batches } = recordingExporter();
    const processor = new EncodingBatchProcessor(exporter, { scheduledDelayMillis: 500 });
    const { spans } = tracerInto(processor);
    spans(3);
    await turn();
    vi.advanceTimersByTime(499);
    expect(batches).toHaveLength(0);
    vi.advanceTimersByTime(1);
    expect(batches.map((b) => b.count)).toEqual([6]);
  });

  it("holds at most maxQueueSize spans: the rest are dropped, and it takes spans again once they are sent", async () => {
    let release: (() => void) | undefined;
    const { exporter, batches } = recordingExporter();
    const slow: EncodedSpanExporter = {
      export(batch, done) {
        batches.push(batch);
        release = () => done({ code: ExportResultCode.SUCCESS });
      },
      shutdown: exporter.shutdown,
    };
    const processor = new EncodingBatchProcessor(slow, { maxExportBatchSize: 4, maxQueueSize: 8, scheduledDelayMillis: 60_000 });
    const { spans } = tracerInto(processor);
    spans(10); // 20 spans: 8 held, 12 dropped
    await turn();
    expect(batches.map((b) => b.count)).toEqual([4]);
    release!();
    expect(batches.map((b) => b.count)).toEqual([4, 4]);
    release!();
    spans(1);
    await turn();
    const flushed = processor.forceFlush();
    release!();
    await flushed;
    expect(batches.map((b) => b.count)).toEqual([4, 4, 2]);
  });

  it("goes on after an export fails or never answers", async () => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
    let n = 0;
    const { exporter, batches } = recordingExporter(() => (++n === 1 ? { code: ExportResultCode.FAILED, error: new Error("collector down") } : n === 2 ? "never" : { code: ExportResultCode.SUCCESS }));
    const processor = new EncodingBatchProcessor(exporter, { maxExportBatchSize: 2, scheduledDelayMillis: 60_000, exportTimeoutMillis: 1000 });
    const { spans } = tracerInto(processor);
    spans(3);
    await turn();
    vi.advanceTimersByTime(1); // the first export fails: the second goes out, and never answers
    expect(batches).toHaveLength(2);
    vi.advanceTimersByTime(1000); // timed out: the third goes out
    expect(batches).toHaveLength(3);
    const flushed = processor.forceFlush();
    vi.advanceTimersByTime(1);
    await flushed;
    expect(batches.map((b) => b.count)).toEqual([2, 2, 2]);
  });

  it("drops a span it cannot encode alone, leaving none of its bytes in the batch", async () => {
    const { exporter, batches } = recordingExporter();
    const processor = new EncodingBatchProcessor(exporter);
    const { spans, ended } = tracerInto(processor);
    spans(1);
    const [good] = ended();
    // A span whose attributes cannot be read once its name and ids are written.
    const broken = new Proxy(good!, { get: (t, k) => (k === "attributes" ? { get "boom"() { throw new Error("unreadable"); } } : Reflect.get(t, k)) });
    processor.onEnd(broken);
    await processor.forceFlush();
    expect(batches.map((b) => b.count)).toEqual([2]);
    expect(Buffer.from(batches[0]!.request).equals(Buffer.from(ProtobufTraceSerializer.serializeRequest(ended())!))).toBe(true);
    // Its place in the queue is given back.
    spans(1);
    await processor.forceFlush();
    expect(batches.map((b) => b.count)).toEqual([2, 2]);
  });

  it("ends a flush once what had ended before it is sent, while spans go on ending", async () => {
    const { exporter, batches } = recordingExporter();
    const processor = new EncodingBatchProcessor(exporter, { maxExportBatchSize: 4, scheduledDelayMillis: 60_000 });
    const { spans } = tracerInto(processor);
    spans(3);
    let flushed = false;
    const flush = processor.forceFlush().then(() => (flushed = true));
    for (let i = 0; i < 20 && !flushed; i++) {
      spans(1);
      await new Promise((r) => setTimeout(r, 2));
    }
    await flush;
    expect(flushed).toBe(true);
    expect(batches[0]!.count).toBe(4);
    expect(batches.length).toBeGreaterThanOrEqual(2);
  });

  it("takes no unsampled span, encodes nothing after shutdown, and shuts the exporter down once", async () => {
    const { exporter, batches } = recordingExporter();
    const processor = new EncodingBatchProcessor(exporter);
    tracerInto(processor, new AlwaysOffSampler()).spans(5);
    await processor.forceFlush();
    expect(batches).toHaveLength(0);
    const { spans } = tracerInto(processor);
    spans(1);
    await Promise.all([processor.shutdown(), processor.shutdown()]);
    expect(batches.map((b) => b.count)).toEqual([2]);
    expect(exporter.shutdowns).toBe(1);
    spans(1);
    await turn();
    await processor.forceFlush();
    expect(batches).toHaveLength(1);
  });

  it("reads the SDK's OTEL_BSP_* variables, and keeps the default for a value that is not a whole number", () => {
    expect(batchOptionsFromEnv({})).toEqual(BATCH_DEFAULTS);
    expect(batchOptionsFromEnv({ OTEL_BSP_SCHEDULE_DELAY: "250", OTEL_BSP_MAX_EXPORT_BATCH_SIZE: "64", OTEL_BSP_MAX_QUEUE_SIZE: "100", OTEL_BSP_EXPORT_TIMEOUT: "5000" })).toEqual({
      scheduledDelayMillis: 250,
      maxExportBatchSize: 64,
      maxQueueSize: 100,
      exportTimeoutMillis: 5000,
    });
    expect(batchOptionsFromEnv({ OTEL_BSP_MAX_EXPORT_BATCH_SIZE: "lots", OTEL_BSP_MAX_QUEUE_SIZE: "0" }, { ...BATCH_DEFAULTS, scheduledDelayMillis: 500 })).toEqual({ ...BATCH_DEFAULTS, scheduledDelayMillis: 500 });
    // As the SDK's processor: a batch is never larger than the queue.
    const { exporter, batches } = recordingExporter();
    const processor = new EncodingBatchProcessor(exporter, { maxExportBatchSize: 100, maxQueueSize: 3 });
    tracerInto(processor).spans(2);
    return turn().then(() => expect(batches.map((b) => b.count)).toEqual([3]));
  });

  it("marks a sampled span's flags in what it sends", async () => {
    const { exporter, batches } = recordingExporter();
    const processor = new EncodingBatchProcessor(exporter);
    const { spans, ended } = tracerInto(processor);
    spans(1);
    await processor.forceFlush();
    expect(ended().every((s) => (s.spanContext().traceFlags & TraceFlags.SAMPLED) !== 0)).toBe(true);
    expect(Buffer.from(batches[0]!.request).equals(Buffer.from(ProtobufTraceSerializer.serializeRequest(ended())!))).toBe(true);
  });
});
