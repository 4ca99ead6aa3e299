import { createOtlpHttpExportDelegate, convertLegacyHttpOptions } from "@opentelemetry/otlp-exporter-base/node-http";
import { ProtobufTraceSerializer, type IExportTraceServiceResponse, type ISerializer } from "@opentelemetry/otlp-transformer";
import { ExportResultCode } from "@opentelemetry/core";
import type { EncodedSpanExporter, EncodedSpans } from "./encoding-batch-processor.js";
import { exportFailureReporter, type ExportFailureReport } from "./export-failures.js";

/** The exporter's component type in the OTel SDK's own metrics, as the OTLP/HTTP protobuf span exporter names itself. */
const COMPONENT_TYPE = "otlp_http_span_exporter";

/** Requests arrive encoded (encoding-batch-processor.ts); responses (partial success) are read by the SDK's serializer. */
const serializer: ISerializer<EncodedSpans, IExportTraceServiceResponse> = {
  serializeRequest: (batch) => batch.request,
  deserializeResponse: (data) => ProtobufTraceSerializer.deserializeResponse(data),
};

/** The SDK's own span count for its exporter metrics, from the batch rather than a span array. */
const metricsHelper = { name: "span" as const, countItems: (batch: EncodedSpans) => batch.count };

/**
 * An OTLP/HTTP protobuf span exporter: the OTel SDK's own transport
 * (retries, timeouts, export queue, and the OTEL_EXPORTER_OTLP_* variables
 * it reads), built as @opentelemetry/exporter-trace-otlp-proto builds it,
 * sending requests the batch processor has already encoded.
 */
export function otlpTraceExporter(config: { url?: string }, report?: ExportFailureReport): EncodedSpanExporter {
  const options = convertLegacyHttpOptions(config, "TRACES", "v1/traces", { "Content-Type": "application/x-protobuf" });
  const delegate = createOtlpHttpExportDelegate(options, serializer, COMPONENT_TYPE, metricsHelper, undefined);
  if (!report) return delegate;
  // The SDK's transport reports a failed export only to its callback: without this a collector that is down goes unnoticed.
  const reporter = exportFailureReporter(options.url, report);
  return {
    export: (batch, done) =>
      delegate.export(batch, (result) => {
        if (result.code === ExportResultCode.SUCCESS) reporter.succeeded();
        else reporter.failed(result.error);
        done(result);
      }),
    shutdown: () => delegate.shutdown(),
  };
}
