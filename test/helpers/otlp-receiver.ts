import * as http from "node:http";
import type { AddressInfo } from "node:net";
import { gunzipSync } from "node:zlib";
import { BinaryReader, WireType } from "@bufbuild/protobuf/wire";

/** A span as an OTLP/HTTP export request carried it. */
export interface ReceivedSpan {
  readonly service: string;
  readonly traceId: string;
  readonly spanId: string;
  /** "" for a root span. */
  readonly parentSpanId: string;
  readonly name: string;
  /** OTLP SpanKind: 1 internal, 2 server, 3 client. */
  readonly kind: number;
  readonly attributes: Readonly<Record<string, string | number | boolean>>;
  /** OTLP status code: 0 unset, 1 ok, 2 error. */
  readonly statusCode: number;
}

/** A collector's OTLP/HTTP traces endpoint on loopback, decoding the protobuf export requests it gets. */
export interface OtlpReceiver {
  /** The traces URL, …/v1/traces. */
  readonly url: string;
  readonly spans: ReceivedSpan[];
  /** Export requests received and their content types. */
  readonly requests: string[];
  close(): Promise<void>;
}

/** Calls `each(field, wireType)` for every field of one message; each must consume or skip the field. */
function readFields(bytes: Uint8Array, each: (r: BinaryReader, field: number, wt: WireType) => boolean): void {
  const r = new BinaryReader(bytes);
  while (r.pos < r.len) {
    const [field, wt] = r.tag();
    if (!each(r, field, wt)) r.skip(wt);
  }
}

/** opentelemetry/proto/common/v1 AnyValue: the scalar kinds the hub writes. */
function anyValue(bytes: Uint8Array): string | number | boolean {
  let v: string | number | boolean = "";
  readFields(bytes, (r, f) => {
    if (f === 1) v = r.string();
    else if (f === 2) v = r.bool();
    else if (f === 3) v = Number(r.int64());
    else if (f === 4) v = r.double();
    else return false;
    return true;
  });
  return v;
}

function keyValue(bytes: Uint8Array, into: Record<string, string | number | boolean>): void {
  let key = "";
  let value: string | number | boolean = "";
  readFields(bytes, (r, f) => {
    if (f === 1) key = r.string();
    else if (f === 2) value = anyValue(r.bytes());
    else return false;
    return true;
  });
  into[key] = value;
}

const hex = (b: Uint8Array): string => Buffer.from(b).toString("hex");

/** opentelemetry/proto/trace/v1 Span (the fields a test asserts on). */
function span(bytes: Uint8Array, service: string): ReceivedSpan {
  const s = { service, traceId: "", spanId: "", parentSpanId: "", name: "", kind: 0, attributes: {} as Record<string, string | number | boolean>, statusCode: 0 };
  readFields(bytes, (r, f) => {
    if (f === 1) s.traceId = hex(r.bytes());
    else if (f === 2) s.spanId = hex(r.bytes());
    else if (f === 4) s.parentSpanId = hex(r.bytes());
    else if (f === 5) s.name = r.string();
    else if (f === 6) s.kind = r.int32();
    else if (f === 9) keyValue(r.bytes(), s.attributes);
    else if (f === 15) readFields(r.bytes(), (rs, fs) => (fs === 3 ? ((s.statusCode = rs.int32()), true) : false));
    else return false;
    return true;
  });
  return s;
}

/** ExportTraceServiceRequest → ResourceSpans → ScopeSpans → Span. */
export function decodeExportRequest(bytes: Uint8Array): ReceivedSpan[] {
  const out: ReceivedSpan[] = [];
  readFields(bytes, (r, f) => {
    if (f !== 1) return false;
    let service = "";
    const scopes: Uint8Array[] = [];
    readFields(r.bytes(), (rr, ff) => {
      if (ff === 1) {
        const attrs: Record<string, string | number | boolean> = {};
        readFields(rr.bytes(), (ra, fa) => (fa === 1 ? (keyValue(ra.bytes(), attrs), true) : false));
        service = String(attrs["service.name"] ?? "");
      } else if (ff === 2) scopes.push(rr.bytes());
      else return false;
      return true;
    });
    for (const scope of scopes) readFields(scope, (rs, fs) => (fs === 2 ? (out.push(span(rs.bytes(), service)), true) : false));
    return true;
  });
  return out;
}

/** Starts the receiver on 127.0.0.1 (any port). */
export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const spans: ReceivedSpan[] = [];
  const requests: string[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      if (req.method !== "POST" || req.url !== "/v1/traces") {
        res.writeHead(404).end();
        return;
      }
      requests.push(String(req.headers["content-type"]));
      let body = Buffer.concat(chunks);
      if (req.headers["content-encoding"] === "gzip") body = gunzipSync(body);
      spans.push(...decodeExportRequest(body));
      // An empty ExportTraceServiceResponse: everything accepted.
      res.writeHead(200, { "content-type": "application/x-protobuf" }).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/traces`,
    spans,
    requests,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
