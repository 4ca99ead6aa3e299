import { ROOT_CONTEXT, SpanKind, SpanStatusCode, trace, TraceFlags, type Span } from "@opentelemetry/api";
import { TraceState } from "@opentelemetry/core";
import { ProtobufTraceSerializer } from "@opentelemetry/otlp-transformer";
import { resourceFromAttributes } from "@opentelemetry/resources";
import { AlwaysOnSampler, BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from "@opentelemetry/sdk-trace-node";
import { describe, expect, it } from "vitest";
import { LeanTracerProvider } from "../../../src/telemetry/tracing/lean-tracer.js";
import { encodeTraceRequest } from "../../../src/telemetry/tracing/otlp-trace-encoder.js";

/** Spans of every shape the OTLP Span message carries, from the hub's tracer and the SDK's, under two resources and three scopes. */
function spans(): ReadableSpan[] {
  const exporter = new InMemorySpanExporter();
  const processor = new SimpleSpanProcessor(exporter);
  const resourceA = resourceFromAttributes({ "service.name": "hub-a", "service.instance.id": "ü-1", "process.pid": 4242, "host.arch": ["x", "y"] });
  const resourceB = resourceFromAttributes({ "service.name": "hub-b" });
  const lean = new LeanTracerProvider({ resource: resourceA, sampler: new AlwaysOnSampler(), processor });
  const sdk = new BasicTracerProvider({ resource: resourceB, sampler: new AlwaysOnSampler(), spanProcessors: [processor] });
  const tracers = [lean.getTracer("a2a-hub"), lean.getTracer("other", "1.2.3", { schemaUrl: "https://opentelemetry.io/schemas/1.24.0" }), sdk.getTracer("sdk-scope")];
  const remote = trace.setSpanContext(ROOT_CONTEXT, {
    traceId: "4bf92f3577b34da6a3ce929d0e0e4736",
    spanId: "00f067aa0ba902b7",
    traceFlags: TraceFlags.SAMPLED,
    isRemote: true,
    traceState: new TraceState("vendor=abc,other=1"),
  });
  const long = "x".repeat(300);
  for (const [i, tracer] of tracers.entries()) {
    const server: Span = tracer.startSpan(`lf.a2a.v1.A2AService/SendMessage ${i}`, {
      kind: SpanKind.SERVER,
      attributes: { "rpc.system": "grpc", "a2a.binding": "grpc", "a2a.task_id": "0199-ab", count: 7, big: 2 ** 40, negative: -5, ratio: 0.25, ok: true, list: [1, 2, 3], names: ["a", "é"] },
    }, remote);
    const child = tracer.startSpan("agent run", { attributes: { long } }, trace.setSpan(ROOT_CONTEXT, server));
    child.addEvent("exception", { "exception.message": "boom", "exception.type": "Error" });
    child.addEvent("plain");
    child.setStatus({ code: SpanStatusCode.ERROR, message: "rolled back" });
    child.end();
    const linked = tracer.startSpan("store unit of work", { kind: SpanKind.INTERNAL, links: [{ context: server.spanContext(), attributes: { why: "batch" } }, { context: trace.getSpanContext(remote)! }] });
    linked.setAttribute("a2a.store.writes", 12);
    linked.end();
    // A span whose record runs past 127 bytes many times over: every length takes two varint bytes or more.
    const big = tracer.startSpan("many attributes");
    for (let k = 0; k < 40; k++) big.setAttribute(`attr.${k}`, `value ${k} ${long}`);
    big.end();
    server.setStatus({ code: SpanStatusCode.OK });
    server.end();
    for (const kind of [SpanKind.CLIENT, SpanKind.PRODUCER, SpanKind.CONSUMER]) tracer.startSpan(`kind ${kind}`, { kind }).end();
  }
  return exporter.getFinishedSpans();
}

describe("the one-pass OTLP trace encoder", () => {
  it("writes the same bytes as the OTel exporter's serializer, for spans of every shape", () => {
    const all = spans();
    expect(all.length).toBeGreaterThan(20);
    const ours = encodeTraceRequest(all);
    const sdks = ProtobufTraceSerializer.serializeRequest(all)!;
    expect(Buffer.from(ours).equals(Buffer.from(sdks))).toBe(true);
    expect(ours.byteLength).toBeGreaterThan(20_000);
  });

  it("writes the same bytes for one span, for none, and for a batch the size the batch processor sends", () => {
    const all = spans();
    for (const batch of [all.slice(0, 1), [], Array.from({ length: 512 }, (_, i) => all[i % all.length]!)]) {
      expect(Buffer.from(encodeTraceRequest(batch)).equals(Buffer.from(ProtobufTraceSerializer.serializeRequest(batch)!))).toBe(true);
    }
  });
});
