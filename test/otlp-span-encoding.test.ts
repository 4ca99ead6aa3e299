import { ROOT_CONTEXT, SpanKind, SpanStatusCode, trace, TraceFlags, type SpanContext } from "@opentelemetry/api";
import { TraceState } from "@opentelemetry/core";
import { ProtobufTraceSerializer } from "@opentelemetry/otlp-transformer";
import { resourceFromAttributes } from "@opentelemetry/resources";
import { AlwaysOnSampler, BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor, type IdGenerator, type ReadableSpan, type SpanProcessor } from "@opentelemetry/sdk-trace-node";
import { describe, expect, it } from "vitest";
import { EncodingSpanProcessor } from "../src/telemetry/encoding-span-processor.js";
import { encodeExportRequest } from "../src/telemetry/otlp-span-encoding.js";

/** Ids in a fixed sequence. */
function countingIds(): IdGenerator {
  let n = 0;
  const next = (width: number) => (++n).toString(16).padStart(width, "0");
  return { generateTraceId: () => next(32), generateSpanId: () => next(16) };
}

/** The OTel SDK's spans, from a tracer per scope over one resource (or two). */
function sdkSpans(make: (tracer: (scope: string, version?: string) => ReturnType<BasicTracerProvider["getTracer"]>) => void, resourceName = "enc-test"): ReadableSpan[] {
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({ resource: resourceFromAttributes({ "service.name": resourceName, "host.cores": 2 }), sampler: new AlwaysOnSampler(), idGenerator: countingIds(), spanProcessors: [new SimpleSpanProcessor(exporter)] });
  make((scope, version) => provider.getTracer(scope, version));
  return exporter.getFinishedSpans();
}

/** What the OTel SDK's own OTLP exporter sends for `spans`. */
const libraryBytes = (spans: ReadableSpan[]): string => Buffer.from(ProtobufTraceSerializer.serializeRequest(spans)!).toString("hex");
const ourBytes = (spans: readonly ReadableSpan[]): string => Buffer.from(encodeExportRequest(spans)).toString("hex");

const remote: SpanContext = { traceId: "0af7651916cd43dd8448eb211c80319c", spanId: "b7ad6b7169203331", traceFlags: TraceFlags.SAMPLED, isRemote: true, traceState: new TraceState("vendor=x,other=y") };

/** Every field the encoding writes: kinds, parents local and remote, trace state, all attribute value types, events, links, statuses, long and non-ASCII strings. */
function everything(tracer: (scope: string, version?: string) => ReturnType<BasicTracerProvider["getTracer"]>): void {
  const t0 = 1_764_000_000_123;
  const a = tracer("a2a-hub", "1.2.3");
  const b = tracer("other-scope");
  const server = a.startSpan("lf.a2a.v1.A2AService/SendMessage", {
    kind: SpanKind.SERVER,
    startTime: [1_764_000_000, 999_999_999],
    attributes: { s: "text", empty: "", int: 42, negative: -7, big: 2 ** 60, float: 0.25, nan: Number.NaN, yes: true, no: false, strings: ["a", "b"], numbers: [1, 2.5], mixed: [null, "x"] as unknown as string[] },
  }, trace.setSpanContext(ROOT_CONTEXT, remote));
  const child = a.startSpan("agent run", { startTime: t0 + 1, attributes: { long: "x".repeat(300), huge: "y".repeat(20_000), unicode: "héllo wörld ✓ 🎉" } }, trace.setSpan(ROOT_CONTEXT, server));
  child.recordException(Object.assign(new Error("the agent failed"), { stack: "Error: the agent failed\n    at test" }), t0 + 2);
  child.addEvent("retry", { attempt: 1 }, t0 + 3);
  child.addEvent("bare", t0 + 3);
  child.setStatus({ code: SpanStatusCode.ERROR, message: "the agent failed" });
  child.end(t0 + 4);
  const other = b.startSpan("store unit of work", { kind: SpanKind.INTERNAL, startTime: t0 }, ROOT_CONTEXT);
  other.addLink({ context: child.spanContext(), attributes: { why: "test" } });
  other.addLink({ context: remote });
  other.end(t0 + 10);
  server.setStatus({ code: SpanStatusCode.OK });
  server.end(t0 + 5);
  for (const kind of [SpanKind.CLIENT, SpanKind.PRODUCER, SpanKind.CONSUMER]) a.startSpan(`kind ${kind}`, { kind, startTime: t0 }).end(t0 + 1);
}

/** A processor that keeps what it is handed, as the batch processor would before export. */
class Keep implements SpanProcessor {
  readonly spans: ReadableSpan[] = [];
  onStart(): void {}
  onEnd(span: ReadableSpan): void {
    this.spans.push(span);
  }
  forceFlush = (): Promise<void> => Promise.resolve();
  shutdown = () => Promise.resolve();
}

describe("OTLP span encoding", () => {
  it("writes byte for byte the request the OTel SDK's exporter writes, for every kind of field", () => {
    const spans = sdkSpans(everything);
    expect(spans.length).toBe(6);
    expect(ourBytes(spans)).toBe(libraryBytes(spans));
  });

  it("groups spans by resource and scope in the order they first appear, as the SDK does", () => {
    const spans = [...sdkSpans(everything, "first"), ...sdkSpans(everything, "second")];
    const interleaved = spans.flatMap((s, i) => (i % 2 === 0 ? [s] : [])).concat(spans.filter((_, i) => i % 2 === 1));
    expect(ourBytes(interleaved)).toBe(libraryBytes(interleaved));
  });

  it("encodes spans once the turn they ended in is over, and the request made from their bytes is the SDK's for the spans themselves", async () => {
    const originals = sdkSpans(everything);
    const keep = new Keep();
    const processor = new EncodingSpanProcessor(keep);
    for (const span of originals) processor.onEnd(span);
    // Encoded after the turn in which they ended, not while a call waits to answer.
    expect(keep.spans).toHaveLength(0);
    await new Promise((r) => setImmediate(r));
    expect(keep.spans).toHaveLength(originals.length);
    // What is held is the bytes and the span's identity, not the span.
    expect(keep.spans.every((s, i) => !("attributes" in (s as object)) && s.spanContext() === originals[i]!.spanContext())).toBe(true);
    expect(ourBytes(keep.spans)).toBe(libraryBytes(originals));
  });

  it("keeps earlier spans' bytes intact when later spans overflow the shared buffer", async () => {
    const originals = sdkSpans((tracer) => {
      const t = tracer("a2a-hub");
      // ~2.5 KB each: 200 of them cross several 64 KB buffers, some mid-span.
      for (let i = 0; i < 200; i++) t.startSpan(`span ${i}`, { startTime: 1_764_000_000_000 + i, attributes: { i, pad: "p".repeat(2_500 + i) } }).end(1_764_000_000_100 + i);
    });
    const keep = new Keep();
    const processor = new EncodingSpanProcessor(keep);
    for (const span of originals) processor.onEnd(span);
    await processor.forceFlush();
    expect(ourBytes(keep.spans)).toBe(libraryBytes(originals));
  });

  it("hands an unsampled span on unencoded (the batch processor drops it)", () => {
    const [span] = sdkSpans((tracer) => tracer("a2a-hub").startSpan("x").end());
    const unsampled = Object.create(span!, { spanContext: { value: () => ({ ...span!.spanContext(), traceFlags: TraceFlags.NONE }) } }) as ReadableSpan;
    const keep = new Keep();
    new EncodingSpanProcessor(keep).onEnd(unsampled);
    expect(keep.spans[0]).toBe(unsampled);
  });
});

describe("OTLP span encoding, on bad input", () => {
  it("keeps a link to a malformed id a whole message (the id zero-filled), and a span that fails to encode costs only itself", async () => {
    const originals = sdkSpans((tracer) => {
      const t = tracer("a2a-hub");
      t.startSpan("bad link", { startTime: 1_764_000_000_000, links: [{ context: { traceId: "zz".repeat(16), spanId: "0123456789abcdez", traceFlags: TraceFlags.SAMPLED } }] }).end(1_764_000_000_001);
      t.startSpan("after", { startTime: 1_764_000_000_000 }).end(1_764_000_000_001);
    });
    const keep = new Keep();
    const processor = new EncodingSpanProcessor(keep);
    const broken = Object.create(originals[1]!, { attributes: { get: () => { throw new Error("unreadable"); } } }) as ReadableSpan;
    processor.onEnd(originals[0]!);
    processor.onEnd(broken);
    processor.onEnd(originals[1]!);
    await processor.shutdown();
    expect(keep.spans).toHaveLength(2);
    // The good span after the broken one is exactly the SDK's; the bad link's ids decode as zero-filled bytes of their full length.
    expect(ourBytes(keep.spans.slice(1))).toBe(libraryBytes([originals[1]!]));
    const request = Buffer.from(encodeExportRequest(keep.spans.slice(0, 1)));
    expect(request.includes(Buffer.from([0x0a, 0x10, ...Buffer.alloc(16)]))).toBe(true);
    expect(request.includes(Buffer.from([0x12, 0x08, 0x01, 0x23, 0x45, 0x67, 0x89, 0xab, 0xcd, 0x00]))).toBe(true);
  });
});
