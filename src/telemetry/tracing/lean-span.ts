// The module's binding, not the global: `globalThis.performance` (Node 20
// to 26) is a lazy getter that runs on every access.
import { performance } from "node:perf_hooks";
import { SpanStatusCode, type Attributes, type AttributeValue, type Exception, type HrTime, type Link, type Span, type SpanContext, type SpanKind, type SpanStatus, type TimeInput } from "@opentelemetry/api";
import { addHrTimes, hrTime, hrTimeDuration, isAttributeValue, millisToHrTime, timeInputToHrTime, type InstrumentationScope } from "@opentelemetry/core";
import type { Resource } from "@opentelemetry/resources";
import type { ReadableSpan, SpanProcessor, TimedEvent } from "@opentelemetry/sdk-trace-node";

/** The OTel SDK's default span limits (OTEL_SPAN_*_COUNT_LIMIT), which the hub's spans never reach. */
const ATTRIBUTE_LIMIT = 128;
const EVENT_LIMIT = 128;
const LINK_LIMIT = 128;

/** What every span of one tracer shares. */
export interface SpanHome {
  readonly resource: Resource;
  readonly instrumentationScope: InstrumentationScope;
  readonly processor: SpanProcessor;
}

/** What a span that records no event, link or status shares, so that it allocates none of its own (frozen: nobody adds to them). */
const NO_EVENTS = Object.freeze([]) as unknown as TimedEvent[];
export const NO_LINKS = Object.freeze([]) as unknown as Link[];
const UNSET: SpanStatus = Object.freeze({ code: SpanStatusCode.UNSET });

/** Whether OTel keeps an attribute: a key, and a primitive value or a homogeneous array of them (null and objects are dropped). */
const keeps = (key: string, value: unknown): value is AttributeValue => key !== "" && value !== undefined && value !== null && isAttributeValue(value);

/** Copies the attributes worth keeping into a fresh record, at most `limit`; returns the record, its size and how many it dropped. */
function keptAttributes(from: Attributes | undefined, limit = ATTRIBUTE_LIMIT): { readonly kept: Record<string, AttributeValue>; readonly count: number; readonly dropped: number } {
  const kept: Record<string, AttributeValue> = {};
  let count = 0;
  let dropped = 0;
  for (const key in from) {
    const value = from[key];
    if (!keeps(key, value)) continue;
    if (count >= limit) dropped++;
    else {
      kept[key] = value;
      count++;
    }
  }
  return { kept, count, dropped };
}

/**
 * A recording span that is its own export record: the OTel API's Span and
 * the SDK's ReadableSpan in one small object, handed to the SDK's span
 * processor (the batch processor and the OTLP exporter) when it ends.
 * The SDK's own span does work per span the hub does not need (its
 * attributes sanitised twice, span metrics, a timer origin per span; what
 * it cost: docs/performance-notes.md). This one keeps the
 * data and checks what the OTel trace API asks of a span: valid attribute
 * values, the SDK's default limits, nothing recorded after end. Exported,
 * both encode to the same OTLP bytes (test/unit/telemetry/lean-tracer.test.ts).
 */
export class LeanSpan implements Span, ReadableSpan {
  readonly attributes: Record<string, AttributeValue>;
  events: TimedEvent[] = NO_EVENTS;
  links: Link[];
  readonly startTime: HrTime;
  endTime: HrTime;
  status: SpanStatus = UNSET;
  ended = false;
  droppedAttributesCount = 0;
  droppedEventsCount = 0;
  droppedLinksCount = 0;
  private attributeCount: number;
  /** performance.now() at start, so the duration is monotonic even if the wall clock steps. */
  private readonly startMs: number;

  constructor(
    private readonly home: SpanHome,
    private readonly context: SpanContext,
    public name: string,
    readonly kind: SpanKind,
    readonly parentSpanContext: SpanContext | undefined,
    attributes: Attributes | undefined,
    links: Link[],
    startTime: TimeInput | undefined,
  ) {
    this.startMs = performance.now();
    this.startTime = startTime === undefined ? millisToHrTime(performance.timeOrigin + this.startMs) : timeInputToHrTime(startTime);
    const { kept, count, dropped } = keptAttributes(attributes);
    this.attributes = kept;
    this.attributeCount = count;
    this.droppedAttributesCount = dropped;
    this.links = links.length === 0 ? NO_LINKS : links.slice(0, LINK_LIMIT);
    this.droppedLinksCount = links.length - this.links.length;
    this.endTime = this.startTime;
  }

  /** Read by exporters that report it; none of the OTLP encoding needs it, so it is not kept. */
  get duration(): HrTime {
    return hrTimeDuration(this.startTime, this.endTime);
  }

  get resource(): Resource {
    return this.home.resource;
  }

  get instrumentationScope(): InstrumentationScope {
    return this.home.instrumentationScope;
  }

  spanContext(): SpanContext {
    return this.context;
  }

  setAttribute(key: string, value: AttributeValue): this {
    if (this.ended || !keeps(key, value)) return this;
    if (Object.hasOwn(this.attributes, key)) this.attributes[key] = value;
    else if (this.attributeCount >= ATTRIBUTE_LIMIT) this.droppedAttributesCount++;
    else {
      this.attributes[key] = value;
      this.attributeCount++;
    }
    return this;
  }

  setAttributes(attributes: Attributes): this {
    for (const key in attributes) this.setAttribute(key, attributes[key] as AttributeValue);
    return this;
  }

  addEvent(name: string, attributesOrTime?: Attributes | TimeInput, time?: TimeInput): this {
    if (this.ended) return this;
    if (this.events.length >= EVENT_LIMIT) {
      this.droppedEventsCount++;
      return this;
    }
    const isTime = attributesOrTime instanceof Date || typeof attributesOrTime === "number" || Array.isArray(attributesOrTime);
    const { kept, dropped } = keptAttributes(isTime ? undefined : (attributesOrTime as Attributes | undefined));
    const at = isTime ? (attributesOrTime as TimeInput) : time;
    if (this.events === NO_EVENTS) this.events = [];
    this.events.push({ name, attributes: kept, time: at === undefined ? hrTime() : timeInputToHrTime(at), droppedAttributesCount: dropped });
    return this;
  }

  addLink(link: Link): this {
    return this.addLinks([link]);
  }

  addLinks(links: Link[]): this {
    if (this.ended) return this;
    if (this.links === NO_LINKS && links.length > 0) this.links = [];
    for (const link of links) {
      if (this.links.length >= LINK_LIMIT) this.droppedLinksCount++;
      else this.links.push(link);
    }
    return this;
  }

  setStatus(status: SpanStatus): this {
    // OTel trace API: UNSET is no change, OK is final, and only an ERROR carries a description.
    if (this.ended || status.code === SpanStatusCode.UNSET || this.status.code === SpanStatusCode.OK) return this;
    this.status = status.code === SpanStatusCode.ERROR && typeof status.message === "string" ? { code: status.code, message: status.message } : { code: status.code };
    return this;
  }

  updateName(name: string): this {
    if (!this.ended) this.name = name;
    return this;
  }

  isRecording(): boolean {
    return !this.ended;
  }

  /** OTel semantic conventions for exceptions: an "exception" event with its type, message and stack. */
  recordException(exception: Exception, time?: TimeInput): void {
    const attributes: Attributes = {};
    if (typeof exception === "string") attributes["exception.message"] = exception;
    else if (exception) {
      const e = exception as { name?: string; code?: string | number; message?: string; stack?: string };
      if (e.code) attributes["exception.type"] = String(e.code);
      else if (e.name) attributes["exception.type"] = e.name;
      if (e.message) attributes["exception.message"] = e.message;
      if (e.stack) attributes["exception.stacktrace"] = e.stack;
    }
    // The conventions' minimum: a type or a message.
    if (attributes["exception.type"] || attributes["exception.message"]) this.addEvent("exception", attributes, time);
  }

  end(endTime?: TimeInput): void {
    if (this.ended) return;
    // From the monotonic clock, as the SDK does: a wall clock stepped mid-span does not skew its duration.
    this.endTime = endTime === undefined ? addHrTimes(this.startTime, millisToHrTime(performance.now() - this.startMs)) : timeInputToHrTime(endTime);
    this.ended = true;
    this.home.processor.onEnd(this);
  }
}

