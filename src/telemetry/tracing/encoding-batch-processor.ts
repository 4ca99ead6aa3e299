import { context, diag, TraceFlags } from "@opentelemetry/api";
import { ExportResultCode, globalErrorHandler, suppressTracing, type ExportResult } from "@opentelemetry/core";
import type { ReadableSpan, SpanProcessor } from "@opentelemetry/sdk-trace-node";
import { TraceRequestBuilder } from "./otlp-trace-encoder.js";

/** An export request already encoded, and how many spans it carries. */
export interface EncodedSpans {
  readonly request: Uint8Array;
  readonly count: number;
}

/** What sends an encoded request (otlp-exporter.ts: the OTel SDK's OTLP/HTTP delegate). */
export interface EncodedSpanExporter {
  export(batch: EncodedSpans, done: (result: ExportResult) => void): void;
  shutdown(): Promise<void>;
}

/** The batch processor's settings, as the SDK's BatchSpanProcessor names them (OTEL_BSP_*). */
export interface EncodingBatchOptions {
  /** How long the first span of a partial batch waits for more before it is sent (ms). */
  readonly scheduledDelayMillis: number;
  readonly maxExportBatchSize: number;
  /** Spans held (ended, not yet sent) before new ones are dropped. */
  readonly maxQueueSize: number;
  /** How long an export may take before the next one goes ahead (ms). */
  readonly exportTimeoutMillis: number;
}

/** The SDK's defaults (OpenTelemetry SDK environment variables, Batch Span Processor). */
export const BATCH_DEFAULTS: EncodingBatchOptions = { scheduledDelayMillis: 5000, maxExportBatchSize: 512, maxQueueSize: 2048, exportTimeoutMillis: 30_000 };

/** The settings the SDK's OTEL_BSP_* variables give, over `defaults`; a value that is not a whole number in range is reported and ignored. */
export function batchOptionsFromEnv(env: NodeJS.ProcessEnv, defaults: EncodingBatchOptions = BATCH_DEFAULTS): EncodingBatchOptions {
  const read = (name: string, fallback: number, min: number): number => {
    const raw = env[name]?.trim();
    if (!raw) return fallback;
    const v = Number(raw);
    if (Number.isInteger(v) && v >= min) return v;
    diag.warn(`${name} ${JSON.stringify(raw)} is not a whole number >= ${min}: using ${fallback}`);
    return fallback;
  };
  return {
    scheduledDelayMillis: read("OTEL_BSP_SCHEDULE_DELAY", defaults.scheduledDelayMillis, 0),
    maxExportBatchSize: read("OTEL_BSP_MAX_EXPORT_BATCH_SIZE", defaults.maxExportBatchSize, 1),
    maxQueueSize: read("OTEL_BSP_MAX_QUEUE_SIZE", defaults.maxQueueSize, 1),
    exportTimeoutMillis: read("OTEL_BSP_EXPORT_TIMEOUT", defaults.exportTimeoutMillis, 0),
  };
}

/**
 * The SDK's batch span processor in behaviour (batches of at most
 * maxExportBatchSize, a partial one sent after scheduledDelayMillis, at
 * most maxQueueSize spans held, one export at a time, exports untraced),
 * except that it holds bytes rather than spans: the spans that end in an
 * event-loop turn are encoded to OTLP right after that turn (setImmediate)
 * and dropped. The SDK's processor holds each span until its batch is
 * sent, long enough for the span and everything it points at to survive
 * scavenges into V8's old space, which only a full collection frees
 * (docs/performance-notes.md). Encoding after the
 * turn rather than in `span.end()` keeps it off the call's answer: a
 * server span ends just before its call answers.
 */
export class EncodingBatchProcessor implements SpanProcessor {
  /** Ended this turn, not yet encoded. */
  private ended: ReadableSpan[] = [];
  private readonly builder = new TraceRequestBuilder();
  /** Encoded requests waiting for their turn to be sent. */
  private readonly ready: EncodedSpans[] = [];
  /** Spans held: ended and not yet handed to the exporter. */
  private held = 0;
  private dropped = 0;
  private exporting = false;
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;
  /** Batches sealed so far, and how many of them have been exported or failed: what a flush waits for. */
  private sealed = 0;
  private settled = 0;
  private flushes: { readonly upTo: number; readonly resolve: () => void }[] = [];
  private shutdownPromise: Promise<void> | undefined;
  private readonly options: EncodingBatchOptions;

  constructor(
    private readonly exporter: EncodedSpanExporter,
    options: Partial<EncodingBatchOptions> = {},
  ) {
    const o = { ...BATCH_DEFAULTS, ...options };
    // As the SDK does: a batch never exceeds what the queue may hold.
    this.options = o.maxExportBatchSize > o.maxQueueSize ? { ...o, maxExportBatchSize: o.maxQueueSize } : o;
  }

  onStart(): void {}

  onEnd(span: ReadableSpan): void {
    if (this.stopped || (span.spanContext().traceFlags & TraceFlags.SAMPLED) === 0) return;
    if (this.held >= this.options.maxQueueSize) {
      if (this.dropped++ === 0) diag.debug("maxQueueSize reached, dropping spans");
      return;
    }
    if (this.dropped > 0) {
      diag.warn(`Dropped ${this.dropped} spans because maxQueueSize reached`);
      this.dropped = 0;
    }
    this.held++;
    if (this.ended.push(span) === 1) setImmediate(this.encodeEnded);
  }

  /** Encodes the spans that ended in the turn before; a full batch is sent at once, a partial one after the delay. */
  private readonly encodeEnded = (): void => {
    const spans = this.ended;
    if (spans.length === 0) return;
    this.ended = [];
    for (const s of spans) {
      try {
        this.builder.add(s);
      } catch (e) {
        // Dropped alone (a span the encoder cannot write); the others go out.
        this.held--;
        globalErrorHandler(e instanceof Error ? e : new Error(String(e)));
        continue;
      }
      if (this.builder.count >= this.options.maxExportBatchSize) this.seal();
    }
    this.pump();
  };

  /** Ends the batch being built: it is sent next. */
  private seal(): void {
    const count = this.builder.count;
    if (count === 0) return;
    this.ready.push({ request: this.builder.finish(), count });
    this.sealed++;
  }

  /** Sends the next batch when none is in flight; otherwise waits for the partial one's delay. */
  private pump(): void {
    if (this.exporting) return;
    const next = this.ready.shift();
    if (next) {
      this.clearTimer();
      this.send(next);
      return;
    }
    if (this.builder.count > 0) {
      this.timer ??= setTimeout(() => {
        this.timer = undefined;
        this.seal();
        this.pump();
      }, this.options.scheduledDelayMillis).unref();
    }
  }

  private send(batch: EncodedSpans): void {
    this.exporting = true;
    let settled = false;
    const settle = (error?: Error): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timeout);
      this.held -= batch.count;
      this.exporting = false;
      this.settled++;
      if (error) globalErrorHandler(error);
      this.pump();
      this.wakeFlushes();
    };
    // A stuck export holds up the next only so long (exportTimeoutMillis, as the SDK's processor does).
    const timeout = setTimeout(() => settle(new Error("Timeout")), this.options.exportTimeoutMillis).unref();
    // The exporter's own requests are never traced (the SDK's processor does the same).
    context.with(suppressTracing(context.active()), () => {
      try {
        this.exporter.export(batch, (result) => settle(result.code === ExportResultCode.SUCCESS ? undefined : (result.error ?? new Error("span export failed"))));
      } catch (e) {
        settle(e instanceof Error ? e : new Error(String(e)));
      }
    });
  }

  private clearTimer(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
  }

  /**
   * Encodes and sends every span that has ended; resolves once all of them
   * have been exported (or failed to be). Spans that end meanwhile go in
   * later batches and are not waited for: a flush under load still ends.
   */
  forceFlush(): Promise<void> {
    this.encodeEnded();
    this.seal();
    const upTo = this.sealed;
    if (this.settled >= upTo) return Promise.resolve();
    return new Promise((resolve) => {
      this.flushes.push({ upTo, resolve });
      this.pump();
    });
  }

  /** Batches go out in the order they were sealed: a flush is done once the last batch it sealed has settled. */
  private wakeFlushes(): void {
    if (this.flushes.length === 0) return;
    const done = this.flushes.filter((f) => this.settled >= f.upTo);
    if (done.length === 0) return;
    this.flushes = this.flushes.filter((f) => this.settled < f.upTo);
    for (const f of done) f.resolve();
  }

  shutdown(): Promise<void> {
    this.shutdownPromise ??= this.forceFlush().then(() => {
      this.stopped = true;
      this.clearTimer();
      return this.exporter.shutdown();
    });
    return this.shutdownPromise;
  }
}
