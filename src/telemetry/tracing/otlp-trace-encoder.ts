import type { AttributeValue, HrTime, Link } from "@opentelemetry/api";
import type { InstrumentationScope } from "@opentelemetry/core";
import type { Resource } from "@opentelemetry/resources";
import type { ReadableSpan, TimedEvent } from "@opentelemetry/sdk-trace-node";
import { ProtoWriter, WIRE } from "../../codec/index.js";

const { VARINT, I64, LEN, I32 } = WIRE;

/** OTLP Span.flags (trace.proto): the context's trace flags, "has is_remote" and "is_remote". */
const HAS_IS_REMOTE = 0x100;
const IS_REMOTE = 0x200;

/** The OTLP encoder's writer: the shared protobuf writer and the field kinds spans carry. */
class Writer extends ProtoWriter {
  constructor() {
    super(64 * 1024);
  }

  string(field: number, s: string): void {
    const n = s.length;
    if (n < 0x80) {
      // Most strings here are short ASCII (names, ids, attribute values): copied char by char, their length one byte.
      const mark = this.pos;
      this.tag(field, LEN);
      this.room(n + 1);
      this.buf[this.pos++] = n;
      let i = 0;
      for (let c; i < n && (c = s.charCodeAt(i)) <= 0x7f; i++) this.buf[this.pos++] = c;
      if (i === n) return;
      // Not ASCII after all: written again below as UTF-8.
      this.pos = mark;
    }
    this.utf8(field, s);
  }

  /** A W3C hex id as bytes. */
  hexId(field: number, hex: string): void {
    const n = hex.length >>> 1;
    this.tag(field, LEN);
    this.varint(n);
    this.room(n);
    for (let i = 0; i < n; i++) this.buf[this.pos++] = (nibble(hex.charCodeAt(2 * i)) << 4) | nibble(hex.charCodeAt(2 * i + 1));
  }

  fixed32(field: number, v: number): void {
    this.tag(field, I32);
    this.room(4);
    this.pos = this.buf.writeUInt32LE(v >>> 0, this.pos);
  }

  /** An HrTime as fixed64 nanoseconds since the epoch: seconds × 10⁹ overflows a double's integers, so it is summed in 16- and 32-bit parts. */
  time(field: number, t: HrTime): void {
    this.tag(field, I64);
    this.room(8);
    const low16 = t[0] % 0x10000;
    const high = (t[0] - low16) / 0x10000;
    // t = high·2¹⁶·10⁹ + (low16·10⁹ + ns); each product stays below 2⁵³.
    const a = low16 * 1e9 + t[1];
    const b = high * 1e9;
    let lo = (a % 0x100000000) + (b % 0x10000) * 0x10000;
    let hi = Math.floor(a / 0x100000000) + Math.floor(b / 0x10000);
    if (lo >= 0x100000000) {
      lo -= 0x100000000;
      hi += 1;
    }
    this.pos = this.buf.writeUInt32LE(lo, this.pos);
    this.pos = this.buf.writeUInt32LE(hi >>> 0, this.pos);
  }

  double(field: number, v: number): void {
    this.tag(field, I64);
    this.room(8);
    this.pos = this.buf.writeDoubleLE(v, this.pos);
  }

  done(): Uint8Array {
    return new Uint8Array(this.buf.buffer, this.buf.byteOffset, this.pos).slice();
  }
}

/** A hex digit's value; anything else (never in an id the hub made or a W3C-valid remote one) counts as 0. */
function nibble(c: number): number {
  if (c >= 48 && c <= 57) return c - 48;
  if (c >= 97 && c <= 102) return c - 87;
  if (c >= 65 && c <= 70) return c - 55;
  return 0;
}

/** AnyValue (common.proto): the types an attribute value may have; anything else writes an empty value. */
function anyValue(w: Writer, value: unknown): void {
  switch (typeof value) {
    case "string":
      w.string(1, value);
      return;
    case "boolean":
      w.tag(2, VARINT);
      w.varint(value ? 1 : 0);
      return;
    case "number":
      if (Number.isInteger(value) && value >= -(2 ** 63) && value < 2 ** 63) {
        w.tag(3, VARINT);
        w.varint(value);
      } else w.double(4, value);
      return;
  }
  if (value instanceof Uint8Array) w.bytes(7, value);
  else if (Array.isArray(value)) {
    const arr = w.open(5);
    for (const item of value) {
      const at = w.open(1);
      anyValue(w, item);
      w.close(at);
    }
    w.close(arr);
  } else if (typeof value === "object" && value !== null) {
    const list = w.open(6);
    for (const k in value) {
      if (!Object.prototype.hasOwnProperty.call(value, k)) continue;
      const kv = w.open(1);
      w.string(1, k);
      const v = w.open(2);
      anyValue(w, (value as Record<string, unknown>)[k]);
      w.close(v);
      w.close(kv);
    }
    w.close(list);
  }
}

/** Repeated KeyValue at `field`, in the record's own key order. */
function attributes(w: Writer, field: number, attrs: Readonly<Record<string, AttributeValue | undefined>> | undefined): void {
  for (const key in attrs) {
    if (!Object.prototype.hasOwnProperty.call(attrs, key)) continue;
    const kv = w.open(field);
    w.string(1, key);
    const v = w.open(2);
    anyValue(w, attrs[key]);
    w.close(v);
    w.close(kv);
  }
}

function event(w: Writer, e: TimedEvent): void {
  const at = w.open(11);
  w.time(1, e.time);
  w.string(2, e.name);
  attributes(w, 3, e.attributes);
  w.tag(4, VARINT);
  w.varint(e.droppedAttributesCount || 0);
  w.close(at);
}

function link(w: Writer, l: Link): void {
  const at = w.open(13);
  w.hexId(1, l.context.traceId);
  w.hexId(2, l.context.spanId);
  const state = l.context.traceState?.serialize();
  if (state) w.string(3, state);
  attributes(w, 4, l.attributes);
  w.tag(5, VARINT);
  w.varint(l.droppedAttributesCount || 0);
  const flags = (l.context.traceFlags & 0xff) | HAS_IS_REMOTE | (l.context.isRemote ? IS_REMOTE : 0);
  w.fixed32(6, flags);
  w.close(at);
}

/** One Span (trace.proto), its fields in field-number order. */
function span(w: Writer, s: ReadableSpan): void {
  const at = w.open(2);
  const ctx = s.spanContext();
  w.hexId(1, ctx.traceId);
  w.hexId(2, ctx.spanId);
  const state = ctx.traceState?.serialize();
  if (state) w.string(3, state);
  if (s.parentSpanContext?.spanId) w.hexId(4, s.parentSpanContext.spanId);
  w.string(5, s.name);
  // OTLP's SpanKind counts from SPAN_KIND_UNSPECIFIED = 0; the API's from INTERNAL = 0.
  const kind = s.kind == null ? 0 : s.kind + 1;
  if (kind !== 0) {
    w.tag(6, VARINT);
    w.varint(kind);
  }
  w.time(7, s.startTime);
  w.time(8, s.endTime);
  attributes(w, 9, s.attributes);
  w.tag(10, VARINT);
  w.varint(s.droppedAttributesCount);
  for (const e of s.events) event(w, e);
  w.tag(12, VARINT);
  w.varint(s.droppedEventsCount);
  for (const l of s.links) link(w, l);
  w.tag(14, VARINT);
  w.varint(s.droppedLinksCount);
  const status = w.open(15);
  if (s.status.message) w.string(2, s.status.message);
  w.tag(3, VARINT);
  w.varint(s.status.code);
  w.close(status);
  w.fixed32(16, (ctx.traceFlags & 0xff) | HAS_IS_REMOTE | (s.parentSpanContext?.isRemote ? IS_REMOTE : 0));
  w.close(at);
}

function scope(w: Writer, sc: InstrumentationScope & { attributes?: Record<string, AttributeValue>; droppedAttributesCount?: number }): void {
  const at = w.open(1);
  w.string(1, sc.name);
  if (sc.version) w.string(2, sc.version);
  attributes(w, 3, sc.attributes);
  if (sc.droppedAttributesCount) {
    w.tag(4, VARINT);
    w.varint(sc.droppedAttributesCount);
  }
  w.close(at);
}

function resource(w: Writer, r: Resource): void {
  const at = w.open(1);
  attributes(w, 1, r.attributes);
  w.tag(2, VARINT);
  w.varint(0);
  w.close(at);
}

/** The spans of one resource and scope, encoded as they came. */
interface ScopeGroup {
  readonly resource: Resource;
  readonly scope: InstrumentationScope;
  readonly spans: Writer;
}

/**
 * An OTLP ExportTraceServiceRequest (collector/trace/v1) built span by
 * span: each span is encoded when it is added, into the bytes of its
 * resource and instrumentation scope, so nothing keeps the span itself;
 * `finish` wraps those bytes in the request's groups, each resource and
 * each scope in the order its first span came, and starts over. The
 * request is the OTel exporter's serializer's, byte for byte
 * (test/unit/telemetry/otlp-trace-encoder.test.ts holds it to that).
 */
export class TraceRequestBuilder {
  /** Resource, then scope: the groups of the request being built. */
  private readonly groups = new Map<Resource, Map<InstrumentationScope, ScopeGroup>>();
  /** Buffers of groups emptied by `finish`, kept for the next request's. */
  private readonly spare: Writer[] = [];
  private last: ScopeGroup | undefined;
  private readonly out = new Writer();
  /** Spans added since the last `finish`. */
  count = 0;

  add(s: ReadableSpan): void {
    let g = this.last;
    if (g?.resource !== s.resource || g.scope !== s.instrumentationScope) g = this.last = this.group(s.resource, s.instrumentationScope);
    const mark = g.spans.pos;
    try {
      span(g.spans, s);
    } catch (e) {
      // A span that cannot be encoded leaves no half-written bytes in the request.
      g.spans.pos = mark;
      throw e;
    }
    this.count++;
  }

  private group(res: Resource, sc: InstrumentationScope): ScopeGroup {
    let scopes = this.groups.get(res);
    if (!scopes) this.groups.set(res, (scopes = new Map()));
    let g = scopes.get(sc);
    if (!g) {
      const spans = this.spare.pop() ?? new Writer();
      spans.pos = 0;
      scopes.set(sc, (g = { resource: res, scope: sc, spans }));
    }
    return g;
  }

  /** The request of every span added since the last call (its own copy), and an empty builder. */
  finish(): Uint8Array {
    const w = this.out;
    w.pos = 0;
    for (const [res, scopes] of this.groups) {
      const rs = w.open(1);
      resource(w, res);
      for (const g of scopes.values()) {
        const ss = w.open(2);
        scope(w, g.scope);
        w.raw(g.spans.buf, g.spans.pos);
        if (g.scope.schemaUrl) w.string(3, g.scope.schemaUrl);
        w.close(ss);
        this.spare.push(g.spans);
      }
      if (res.schemaUrl) w.string(3, res.schemaUrl);
      w.close(rs);
    }
    this.groups.clear();
    this.last = undefined;
    this.count = 0;
    return w.done();
  }
}

/**
 * An OTLP ExportTraceServiceRequest of `spans` in protobuf, the body of an
 * OTLP/HTTP export, in one pass: the exporter's own serializer first walks
 * every span to size the buffer and then walks it again to write
 * (what the two walks cost: docs/performance-notes.md).
 */
export function encodeTraceRequest(spans: readonly ReadableSpan[]): Uint8Array {
  const b = new TraceRequestBuilder();
  for (const s of spans) b.add(s);
  return b.finish();
}
