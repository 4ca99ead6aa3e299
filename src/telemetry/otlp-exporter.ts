import { OTLPExporterBase } from "@opentelemetry/otlp-exporter-base";
import { convertLegacyHttpOptions, createOtlpHttpExportDelegate } from "@opentelemetry/otlp-exporter-base/node-http";
import { ProtobufTraceSerializer, TraceExporterMetricsHelper, type ISerializer } from "@opentelemetry/otlp-transformer";
import type { ReadableSpan, SpanExporter } from "@opentelemetry/sdk-trace-node";
import { encodeExportRequest } from "./otlp-span-encoding.js";

/** What the OTel SDK's exporters name themselves in their own metrics (semantic conventions, otel.component.type). */
const COMPONENT_TYPE = "otlp_http_span_exporter";

/** Requests from spans encoded when they ended (encoding-span-processor.ts); the collector's answer read by the SDK's own decoder. */
const serializer: ISerializer<ReadableSpan[], ReturnType<typeof ProtobufTraceSerializer.deserializeResponse>> = {
  serializeRequest: (spans) => encodeExportRequest(spans),
  deserializeResponse: (data) => ProtobufTraceSerializer.deserializeResponse(data),
};

/**
 * An OTLP http/protobuf span exporter: the OTel SDK's own HTTP delegate
 * (OTEL_EXPORTER_OTLP_* endpoint, headers, timeout, compression, retries,
 * partial-success handling), the same as its OTLPTraceExporter, with the
 * hub's encoding of the request, which copies in the bytes each span was
 * encoded to when it ended.
 */
export function otlpSpanExporter(url: string | undefined): SpanExporter {
  const options = convertLegacyHttpOptions(url ? { url } : {}, "TRACES", "v1/traces", { "Content-Type": "application/x-protobuf" });
  return new OTLPExporterBase(createOtlpHttpExportDelegate(options, serializer, COMPONENT_TYPE, TraceExporterMetricsHelper, undefined));
}
