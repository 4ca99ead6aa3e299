/**
 * The cost of telemetry on unary SendMessage: the hub as `npm
 * start` runs it over JSON-RPC and gRPC, with everything off, with
 * Prometheus metrics on, with OpenTelemetry tracing on (sampling 1.0,
 * OTLP http/protobuf to a collector stand-in on loopback), and with the
 * request log at info, each on a fresh server in the same run, the servers
 * loaded in turn (see measureTelemetry). Targets: metrics cost < 5% of
 * throughput, tracing < 15%.
 */
import * as http from "node:http";
import type { AddressInfo } from "node:net";
import type { BenchContext } from "../harness/bench-context.js";
import type { UnaryRow } from "../harness/results.js";
import { onLoaderCore } from "../harness/cpu-pinning.js";
import { startHubChild } from "../harness/servers-under-test.js";
import { measureInterleaved } from "./interleaved-rows.js";
import { unaryLoads, type RowSpec } from "./unary-throughput.js";

/** A telemetry setting of the hub, as the environment of its process. */
export interface TelemetryVariant {
  readonly id: "off" | "metrics" | "tracing" | "logs";
  readonly label: string;
  env(collectorUrl: string): Record<string, string>;
}

/** Each variant turns on one thing over "off", so each ratio is that thing's cost; "off" comes first (the schedule's baseline). */
export const VARIANTS: readonly TelemetryVariant[] = [
  { id: "off", label: "metrics off, tracing off, log level warn", env: () => ({ A2A_HUB_METRICS: "false", A2A_HUB_LOG_LEVEL: "warn" }) },
  { id: "metrics", label: "metrics on (the default; not scraped during the run)", env: () => ({ A2A_HUB_LOG_LEVEL: "warn" }) },
  {
    id: "tracing",
    label: "tracing on, sampling 1.0, OTLP http/protobuf",
    env: (url) => ({ A2A_HUB_METRICS: "false", A2A_HUB_LOG_LEVEL: "warn", OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: url, OTEL_TRACES_SAMPLER: "always_on" }),
  },
  { id: "logs", label: "request log at info (one JSON line per call)", env: () => ({ A2A_HUB_METRICS: "false", A2A_HUB_LOG_LEVEL: "info" }) },
];

/**
 * Seconds of untimed load each hub gets before the rounds start. V8 keeps
 * optimizing a fresh hub for its first ~10,000 calls (measured with
 * --trace-opt: ~860 functions optimized in the first 3,000 SendMessage
 * calls with tracing on, ~260 in the next 3,000, then next to none), and
 * with the process pinned to one core those compiles share the server's
 * core. A hub with tracing on has more code to optimize (the SDK, the
 * OTLP serializer), so an unsettled comparison charges tracing for its
 * warm-up rather than its steady cost. --quick settles as long as it can
 * afford, a full run long enough for the JIT to be done.
 */
const SETTLE_SEC = { quick: 4, full: 15 } as const;

/**
 * Rounds of a full run: at least 7, whatever --runs says. The costs are a
 * few percent against a target of 5% or 15%, and the median of 3 paired
 * ratios moved by more than that from run to run on a shared host (at 1
 * connection most of all, where one slow round is a third of the sample);
 * with 5, the request log (which costs next to nothing at 1 connection)
 * still came out at 16% in one run.
 */
const MIN_ROUNDS = 7;

/** A collector stand-in: accepts OTLP/HTTP export requests and counts their bytes. */
async function startCollectorSink(): Promise<{ url: string; bytes: () => number; close: () => Promise<void> }> {
  let bytes = 0;
  const server = http.createServer((req, res) => {
    req.on("data", (c: Buffer) => (bytes += c.length));
    req.on("end", () => res.writeHead(200, { "content-type": "application/x-protobuf" }).end());
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/traces`,
    bytes: () => bytes,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/**
 * Measures every variant on both bindings; the row ids are
 * `telemetry-<binding>-<variant>`, "off" the baseline of each binding's
 * interleaved section (interleaved-rows.ts says why and how), so each
 * variant's cost is a median of its runs against "off" at their moment.
 */
export function measureTelemetry(ctx: BenchContext): Promise<UnaryRow[]> {
  return onLoaderCore(ctx.pinning, () => measureVariants(ctx));
}

async function measureVariants(ctx: BenchContext): Promise<UnaryRow[]> {
  const sink = await startCollectorSink();
  const loads = unaryLoads();
  const rows: UnaryRow[] = [];
  try {
    for (const [binding, load, name] of [["jsonrpc", loads.jsonrpc, "JSON-RPC SendMessage (HTTP/1.1)"], ["grpc", loads.grpc, "gRPC SendMessage (h2c)"]] as const) {
      const specs: RowSpec[] = VARIANTS.map((v) => ({
        id: `telemetry-${binding}-${v.id}`,
        group: "a2a-hub",
        server: `a2a-hub: ${v.label}`,
        binding: name,
        a2a: true,
        start: (c) => startHubChild(c.pinning, c.freshDir("hub"), { env: v.env(sink.url) }),
        load,
      }));
      const before = sink.bytes();
      // The hubs are stopped when it returns, and a hub flushes its last spans as it stops gracefully.
      const sectionRows = await measureInterleaved(ctx, {
        title: `telemetry: ${name} (${VARIANTS.map((v) => v.id).join(", ")})`,
        specs,
        settleSec: ctx.options.quick ? SETTLE_SEC.quick : SETTLE_SEC.full,
        rounds: ctx.options.quick ? ctx.options.runs : Math.max(ctx.options.runs, MIN_ROUNDS),
        connections: ctx.options.connections,
        // Costs of a few percent against targets of 5% and 15%: the baseline right before and after every run (bracketed-rounds.ts).
        alternate: true,
      });
      const exported = sink.bytes() - before;
      const tracing = sectionRows[VARIANTS.findIndex((v) => v.id === "tracing")];
      if (tracing?.status === "ok") {
        tracing.verification = `${tracing.verification ?? ""}; ${(exported / 1024 / 1024).toFixed(1)} MiB of OTLP exported to the collector stand-in`;
        if (exported === 0) {
          tracing.note = [tracing.note, "no span reached the collector"].filter(Boolean).join("; ");
          tracing.checkFailed = true;
        }
      }
      rows.push(...sectionRows);
    }
  } finally {
    await sink.close();
  }
  return rows;
}
