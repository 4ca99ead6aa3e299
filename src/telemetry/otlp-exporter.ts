import { OTLPExporterBase } from "@opentelemetry/otlp-exporter-base";
import { convertLegacyHttpOptions, createOtlpHttpExportDelegate } from "@opentelemetry/otlp-exporter-base/node-http";
import { ProtobufTraceSerializer, TraceExporterMetricsHelper, type IExportTraceServiceResponse, type ISerializer } from "@opentelemetry/otlp-transformer";
import type { ReadableSpan, SpanExporter } from "@opentelemetry/sdk-trace-node";
import { encodeTraceRequest } from "./otlp-trace-encoder.js";

/** The exporter's component type in the OTel SDK's own metrics, as the OTLP/HTTP protobuf span exporter names itself. */
const COMPONENT_TYPE = "otlp_http_span_exporter";

/** Requests encoded by the hub's one-pass encoder; responses (partial success) read by the SDK's. */
const serializer: ISerializer<ReadableSpan[], IExportTraceServiceResponse> = {
  serializeRequest: (spans) => encodeTraceRequest(spans),
  deserializeResponse: (data) => ProtobufTraceSerializer.deserializeResponse(data),
};

/**
 * An OTLP/HTTP protobuf span exporter: the OTel SDK's own (its transport,
 * retries, timeouts, export queue, and the OTEL_EXPORTER_OTLP_* variables
 * it reads), built as @opentelemetry/exporter-trace-otlp-proto builds it,
 * with the request body encoded by otlp-trace-encoder.ts.
 */
export function otlpTraceExporter(config: { url?: string }): SpanExporter {
  const options = convertLegacyHttpOptions(config, "TRACES", "v1/traces", { "Content-Type": "application/x-protobuf" });
  return new OTLPExporterBase(createOtlpHttpExportDelegate(options, serializer, COMPONENT_TYPE, TraceExporterMetricsHelper, undefined));
}
