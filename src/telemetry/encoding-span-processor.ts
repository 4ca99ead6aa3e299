import { diag, TraceFlags, type Context, type SpanContext } from "@opentelemetry/api";
import type { InstrumentationScope } from "@opentelemetry/core";
import type { Resource } from "@opentelemetry/resources";
import type { ReadableSpan, Span, SpanProcessor } from "@opentelemetry/sdk-trace-node";
import { writeSpan, type PreEncoded } from "./otlp-span-encoding.js";
import { OtlpWriter } from "./otlp-writer.js";

/**
 * What the batch processor holds of an ended span until its batch is
 * exported: the span's OTLP bytes (a view of a shared buffer outside the
 * JavaScript heap) and the three things the batch processor and the
 * exporter read (its context for the sampled flag, its resource and scope
 * to group it). Everything else of the span is garbage the moment it ends.
 */
class EncodedSpan implements PreEncoded {
  constructor(
    readonly otlpSpan: Uint8Array,
    private readonly context: SpanContext,
    readonly resource: Resource,
    readonly instrumentationScope: InstrumentationScope,
  ) {}

  spanContext(): SpanContext {
    return this.context;
  }
}

/**
 * A span processor in front of the OTel SDK's batch processor that encodes
 * each ended span to OTLP (right after the turn it ended in) and hands on
 * only its bytes (EncodedSpan), for an exporter that sends them as they
 * are (otlp-exporter.ts). Why: the batch processor holds ended spans until
 * 512 of them (or the schedule delay) make a batch, long enough for every
 * span, with its attributes, ids and times, to outlive one or two
 * scavenges and be copied each time, and the SDK's exporter then walks
 * them twice (a size pass and a write pass). Side by side on gRPC at 32
 * connections, a hub that dropped its spans at end instead of exporting
 * them lost about 40% less throughput to tracing. Encoded when it ends, a
 * span's objects die young, and what waits for export is bytes that the
 * garbage collector never walks.
 */
export class EncodingSpanProcessor implements SpanProcessor {
  private readonly writer = new OtlpWriter();
  /** Spans ended in this turn of the event loop, encoded together once it has run (see onEnd). */
  private ended: ReadableSpan[] = [];
  private scheduled: NodeJS.Immediate | undefined;

  constructor(private readonly batch: SpanProcessor) {}

  onStart(span: Span, parentContext: Context): void {
    this.batch.onStart(span, parentContext);
  }

  /**
   * A server span ends just before its call answers: encoded right there,
   * its encoding would hold up the answer (a call's latency at one
   * connection). The spans of a turn are encoded after it instead, in one
   * go, still long before the next scavenge would find them.
   */
  onEnd(span: ReadableSpan): void {
    // Recorded but not sampled: the batch processor drops it, so it is not worth encoding.
    if ((span.spanContext().traceFlags & TraceFlags.SAMPLED) === 0) return this.batch.onEnd(span);
    this.ended.push(span);
    if (!this.scheduled) this.scheduled = setImmediate(() => this.encodeEnded()).unref();
  }

  private encodeEnded(): void {
    clearImmediate(this.scheduled);
    this.scheduled = undefined;
    const spans = this.ended;
    this.ended = [];
    for (const span of spans) {
      try {
        writeSpan(this.writer, span);
      } catch (e) {
        // A span that cannot be encoded is lost alone: the next one must not start after half of it.
        this.writer.drop();
        diag.error("a span could not be encoded to OTLP", e);
        continue;
      }
      // The batch processor's own contract: what it gets is what the exporter gets, and the exporter reads no more than this.
      this.batch.onEnd(new EncodedSpan(this.writer.take(), span.spanContext(), span.resource, span.instrumentationScope) as unknown as ReadableSpan);
    }
  }

  forceFlush(): Promise<void> {
    this.encodeEnded();
    return this.batch.forceFlush();
  }

  shutdown(): Promise<void> {
    this.encodeEnded();
    return this.batch.shutdown();
  }
}
