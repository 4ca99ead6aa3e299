import type { Attributes, AttributeValue, Link, SpanContext } from "@opentelemetry/api";
import type { InstrumentationScope } from "@opentelemetry/core";
import type { Resource } from "@opentelemetry/resources";
import type { ReadableSpan, TimedEvent } from "@opentelemetry/sdk-trace-node";
import { OtlpWriter } from "./otlp-writer.js";

// Wire types (protobuf encoding).
const VARINT = 0;
const FIXED64 = 1;
const LEN = 2;
const FIXED32 = 5;

/** OTLP span flags: the W3C trace flags in the low byte, and whether the parent's remoteness is known, and is remote. */
const HAS_IS_REMOTE = 0x100;
const IS_REMOTE = 0x200;

const flagsOf = (traceFlags: number, remote: boolean | undefined): number => (traceFlags & 0xff) | HAS_IS_REMOTE | (remote ? IS_REMOTE : 0);

/**
 * The OTLP `Span` message (opentelemetry/proto/trace/v1/trace.proto) of an
 * ended span, its fields in the order the OTel JS serializer writes them,
 * so that a batch of these is byte for byte what the SDK's OTLP exporter
 * sends for the same spans (test/otlp-span-encoding.test.ts).
 */
export function writeSpan(w: OtlpWriter, span: ReadableSpan): void {
  const ctx = span.spanContext();
  writeIdentity(w, ctx);
  const parent = span.parentSpanContext;
  if (parent?.spanId) {
    w.tag(4, LEN);
    w.hexBytes(parent.spanId);
  }
  w.tag(5, LEN);
  w.string(span.name);
  // OTLP's SpanKind counts from SPAN_KIND_UNSPECIFIED = 0: the API's kinds are one less.
  if (span.kind != null) {
    w.tag(6, VARINT);
    w.varint(span.kind + 1);
  }
  w.tag(7, FIXED64);
  w.hrTime(span.startTime);
  w.tag(8, FIXED64);
  w.hrTime(span.endTime);
  writeAttributes(w, span.attributes, 9);
  w.tag(10, VARINT);
  w.varint(span.droppedAttributesCount);
  for (const event of span.events) writeEvent(w, event);
  w.tag(12, VARINT);
  w.varint(span.droppedEventsCount);
  for (const link of span.links) writeLink(w, link);
  w.tag(14, VARINT);
  w.varint(span.droppedLinksCount);
  w.tag(15, LEN);
  const status = w.open();
  if (span.status.message) {
    w.tag(2, LEN);
    w.string(span.status.message);
  }
  w.tag(3, VARINT);
  w.varint(span.status.code);
  w.close(status);
  w.tag(16, FIXED32);
  w.fixed32(flagsOf(ctx.traceFlags, parent?.isRemote));
}

/** trace_id, span_id and trace_state: fields 1-3 of a Span and of a Link alike. */
function writeIdentity(w: OtlpWriter, ctx: SpanContext): void {
  w.tag(1, LEN);
  w.hexBytes(ctx.traceId);
  w.tag(2, LEN);
  w.hexBytes(ctx.spanId);
  const traceState = ctx.traceState?.serialize();
  if (traceState) {
    w.tag(3, LEN);
    w.string(traceState);
  }
}

function writeEvent(w: OtlpWriter, event: TimedEvent): void {
  w.tag(11, LEN);
  const at = w.open();
  w.tag(1, FIXED64);
  w.hrTime(event.time);
  w.tag(2, LEN);
  w.string(event.name);
  if (event.attributes) writeAttributes(w, event.attributes, 3);
  w.tag(4, VARINT);
  w.varint(event.droppedAttributesCount ?? 0);
  w.close(at);
}

function writeLink(w: OtlpWriter, link: Link): void {
  w.tag(13, LEN);
  const at = w.open();
  const ctx = link.context;
  writeIdentity(w, ctx);
  if (link.attributes) writeAttributes(w, link.attributes, 4);
  w.tag(5, VARINT);
  w.varint(link.droppedAttributesCount ?? 0);
  w.tag(6, FIXED32);
  w.fixed32(flagsOf(ctx.traceFlags, ctx.isRemote));
  w.close(at);
}

/** Each attribute as a KeyValue in `field`. */
function writeAttributes(w: OtlpWriter, attributes: Attributes, field: number): void {
  for (const key in attributes) {
    if (!Object.hasOwn(attributes, key)) continue;
    w.tag(field, LEN);
    const kv = w.open();
    w.tag(1, LEN);
    w.string(key);
    w.tag(2, LEN);
    const value = w.open();
    writeAnyValue(w, attributes[key]);
    w.close(value);
    w.close(kv);
  }
}

/** int64 bounds: an integer inside goes as int_value, anything else as double_value. */
const INT64_MIN = -(2 ** 63);
const INT64_END = 2 ** 63;

/** An AnyValue's one field: string 1, bool 2, int 3, double 4, array 5, bytes 7 (kvlist 6 never comes from an attribute value). */
function writeAnyValue(w: OtlpWriter, value: AttributeValue | Uint8Array | undefined): void {
  switch (typeof value) {
    case "string":
      w.tag(1, LEN);
      w.string(value);
      return;
    case "boolean":
      w.tag(2, VARINT);
      w.varint(value ? 1 : 0);
      return;
    case "number":
      if (Number.isInteger(value) && value >= INT64_MIN && value < INT64_END) {
        w.tag(3, VARINT);
        w.varint(value);
      } else {
        w.tag(4, FIXED64);
        w.double(value);
      }
      return;
  }
  if (value instanceof Uint8Array) {
    w.tag(7, LEN);
    w.bytes(value);
  } else if (Array.isArray(value)) {
    w.tag(5, LEN);
    const list = w.open();
    for (const item of value) {
      w.tag(1, LEN);
      const one = w.open();
      writeAnyValue(w, item ?? undefined);
      w.close(one);
    }
    w.close(list);
  }
}

/** The `Resource` message in `field`. */
function writeResource(w: OtlpWriter, resource: Resource, field: number): void {
  w.tag(field, LEN);
  const at = w.open();
  writeAttributes(w, resource.attributes, 1);
  w.tag(2, VARINT);
  w.varint(0);
  w.close(at);
}

/** The `InstrumentationScope` message in `field`. */
function writeScope(w: OtlpWriter, scope: InstrumentationScope, field: number): void {
  w.tag(field, LEN);
  const at = w.open();
  w.tag(1, LEN);
  w.string(scope.name);
  if (scope.version) {
    w.tag(2, LEN);
    w.string(scope.version);
  }
  w.close(at);
}

/** A span's encoded `Span` message, when it was encoded when it ended (encoding-span-processor.ts). */
export interface PreEncoded {
  readonly otlpSpan: Uint8Array;
}

const preEncoded = (span: ReadableSpan): Uint8Array | undefined => (span as Partial<PreEncoded>).otlpSpan;

/**
 * An OTLP ExportTraceServiceRequest for `spans`: ResourceSpans per
 * resource, ScopeSpans per instrumentation scope, in the order each first
 * appears, as the OTel JS serializer groups them. A span encoded as it
 * ended is copied in; any other is encoded here.
 */
export function encodeExportRequest(spans: readonly ReadableSpan[]): Uint8Array {
  const byResource = new Map<Resource, Map<InstrumentationScope, ReadableSpan[]>>();
  let size = 0;
  for (const span of spans) {
    let scopes = byResource.get(span.resource);
    if (!scopes) byResource.set(span.resource, (scopes = new Map()));
    let list = scopes.get(span.instrumentationScope);
    if (!list) scopes.set(span.instrumentationScope, (list = []));
    list.push(span);
    size += (preEncoded(span)?.length ?? 256) + 4;
  }
  const w = new OtlpWriter(size + 1024);
  for (const [resource, scopes] of byResource) {
    w.tag(1, LEN);
    const rs = w.open();
    writeResource(w, resource, 1);
    for (const [scope, list] of scopes) {
      w.tag(2, LEN);
      const ss = w.open();
      writeScope(w, scope, 1);
      for (const span of list) {
        w.tag(2, LEN);
        const bytes = preEncoded(span);
        if (bytes) w.bytes(bytes);
        else {
          const at = w.open();
          writeSpan(w, span);
          w.close(at);
        }
      }
      if (scope.schemaUrl) {
        w.tag(3, LEN);
        w.string(scope.schemaUrl);
      }
      w.close(ss);
    }
    if (resource.schemaUrl) {
      w.tag(3, LEN);
      w.string(resource.schemaUrl);
    }
    w.close(rs);
  }
  return w.take();
}
