import { context, diag, propagation, trace } from "@opentelemetry/api";
import type { Sampler } from "@opentelemetry/sdk-trace-node";
import type { ExportFailureReport } from "./export-failures.js";
import { SyncContextManager } from "./sync-context.js";
import { registerHubContext } from "./trace-context.js";

/** Tracing as the config file asks for it; the standard OTEL_* variables win over it. */
export interface TracingConfig {
  /** OTLP/HTTP traces URL of the collector, e.g. http://127.0.0.1:4318/v1/traces. */
  readonly endpoint?: string;
  /** Fraction of new traces sampled, 0..1 (a remote parent's decision is kept); default 1. */
  readonly sampleRatio?: number;
  /** service.name of the spans; default "a2a-hub". */
  readonly serviceName?: string;
}

/** The SDK once it is running: flush and stop it at shutdown. */
export interface TracingHandle {
  /** Exports the spans that have ended and are still batched. */
  flush(): Promise<void>;
  shutdown(): Promise<void>;
}

/**
 * Whether the OTel SDK should start: the standard variables ask for it
 * (an OTLP endpoint, or OTEL_TRACES_EXPORTER=otlp), or the config names an
 * endpoint; OTEL_SDK_DISABLED=true or OTEL_TRACES_EXPORTER=none wins.
 */
export function tracingRequested(config: TracingConfig | undefined, env: NodeJS.ProcessEnv): boolean {
  if ((env.OTEL_SDK_DISABLED ?? "").toLowerCase() === "true") return false;
  const exporters = (env.OTEL_TRACES_EXPORTER ?? "").toLowerCase();
  if (exporters === "none") return false;
  return Boolean(config?.endpoint || env.OTEL_EXPORTER_OTLP_ENDPOINT || env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT || exporters.split(",").includes("otlp"));
}

/**
 * Starts tracing for this process when asked (see tracingRequested): the
 * OTel SDK's sampler and OTLP http/protobuf transport around the hub's
 * lean spans (lean-span.ts) and its encoding batch processor
 * (encoding-batch-processor.ts), with W3C trace
 * context and baggage propagation and a synchronous context manager, so
 * that the spans the hub starts through @opentelemetry/api record and
 * nest. Returns undefined, and installs nothing, otherwise. The provider
 * is global: call it once per process.
 */
export async function startTracing(config: TracingConfig | undefined, env: NodeJS.ProcessEnv = process.env, report?: ExportFailureReport): Promise<TracingHandle | undefined> {
  if (!tracingRequested(config, env)) return undefined;
  // Loaded only when asked for: a hub without tracing never loads the SDK.
  const [{ otlpTraceExporter }, { EncodingBatchProcessor, BATCH_DEFAULTS, batchOptionsFromEnv }, { resourceFromAttributes }, sdk, { CompositePropagator, W3CBaggagePropagator, W3CTraceContextPropagator }, { LeanTracerProvider }] = await Promise.all([
    import("./otlp-exporter.js"),
    import("./encoding-batch-processor.js"),
    import("@opentelemetry/resources"),
    import("@opentelemetry/sdk-trace-node"),
    import("@opentelemetry/core"),
    import("./lean-tracer.js"),
  ]);
  // The exporter reads OTEL_EXPORTER_OTLP_{TRACES_,}ENDPOINT/HEADERS/TIMEOUT itself; the config's URL only when no variable names one.
  const envEndpoint = env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT || env.OTEL_EXPORTER_OTLP_ENDPOINT;
  const exporter = otlpTraceExporter(envEndpoint || !config?.endpoint ? {} : { url: config.endpoint }, report);
  const provider = new LeanTracerProvider({
    resource: resourceFromAttributes({ "service.name": env.OTEL_SERVICE_NAME || config?.serviceName || "a2a-hub" }),
    sampler: samplerFor(env, config?.sampleRatio ?? 1, sdk),
    // The SDK's OTEL_BSP_* settings and defaults but one: a partial batch waits half a second rather than 5 s (a collector
    // sees a call's spans soon after it ends). Under load the delay costs nothing: a batch goes out once it holds 512 spans.
    processor: new EncodingBatchProcessor(exporter, batchOptionsFromEnv(env, { ...BATCH_DEFAULTS, scheduledDelayMillis: 500 })),
  });
  trace.setGlobalTracerProvider(provider);
  // No AsyncLocalStorage: see sync-context.ts for why and how the hub carries the context instead.
  const contextManager = new SyncContextManager();
  // The probes go to it directly only if it is the global one: a manager registered before (a host process's own) stays in charge.
  if (context.setGlobalContextManager(contextManager)) registerHubContext(contextManager);
  // As the SDK's NodeTracerProvider registers them: W3C Trace Context and W3C Baggage.
  propagation.setGlobalPropagator(new CompositePropagator({ propagators: [new W3CTraceContextPropagator(), new W3CBaggagePropagator()] }));
  return {
    flush: () => provider.forceFlush(),
    shutdown: async () => {
      await provider.shutdown();
      trace.disable();
      registerHubContext(undefined);
      context.disable();
      propagation.disable();
    },
  };
}

type Samplers = Pick<typeof import("@opentelemetry/sdk-trace-node"), "AlwaysOnSampler" | "AlwaysOffSampler" | "ParentBasedSampler" | "TraceIdRatioBasedSampler">;

/**
 * The sampler OTEL_TRACES_SAMPLER (and OTEL_TRACES_SAMPLER_ARG) name, with
 * the SDK's values and defaults; without it, the config's ratio for new
 * traces, a remote parent's decision kept (parentbased_traceidratio).
 */
export function samplerFor(env: NodeJS.ProcessEnv, configRatio: number, s: Samplers): Sampler {
  const name = (env.OTEL_TRACES_SAMPLER ?? "").trim().toLowerCase();
  const arg = env.OTEL_TRACES_SAMPLER_ARG?.trim() ? Number(env.OTEL_TRACES_SAMPLER_ARG) : NaN;
  const envRatio = (): number => {
    if (Number.isFinite(arg) && arg >= 0 && arg <= 1) return arg;
    diag.error(`OTEL_TRACES_SAMPLER_ARG ${JSON.stringify(env.OTEL_TRACES_SAMPLER_ARG ?? "")} is not a ratio in [0, 1]: using 1`);
    return 1;
  };
  // The same decisions as a ratio sampler at its ends, without hashing each trace id.
  const ratio = (r: number): Sampler => (r >= 1 ? new s.AlwaysOnSampler() : r <= 0 ? new s.AlwaysOffSampler() : new s.TraceIdRatioBasedSampler(r));
  switch (name) {
    case "":
      return new s.ParentBasedSampler({ root: ratio(configRatio) });
    case "always_on":
      return new s.AlwaysOnSampler();
    case "always_off":
      return new s.AlwaysOffSampler();
    case "traceidratio":
      return ratio(envRatio());
    case "parentbased_always_off":
      return new s.ParentBasedSampler({ root: new s.AlwaysOffSampler() });
    case "parentbased_traceidratio":
      return new s.ParentBasedSampler({ root: ratio(envRatio()) });
    case "parentbased_always_on":
      return new s.ParentBasedSampler({ root: new s.AlwaysOnSampler() });
    default:
      diag.error(`OTEL_TRACES_SAMPLER ${JSON.stringify(name)} is not a known sampler: using parentbased_always_on`);
      return new s.ParentBasedSampler({ root: new s.AlwaysOnSampler() });
  }
}
