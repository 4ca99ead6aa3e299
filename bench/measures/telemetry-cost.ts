/**
 * The cost of telemetry on unary SendMessage (issue 18): the hub as `npm
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
import type { UnaryCell, UnaryRow } from "../harness/results.js";
import { onLoaderCore } from "../harness/cpu-pinning.js";
import { startHubChild } from "../harness/servers-under-test.js";
import { bracketedSchedule, withBaselines } from "./bracketed-rounds.js";
import { cellOfRuns, emptyRow, failRow, RowSession } from "./unary-row.js";
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
 * `telemetry-<binding>-<variant>`. Why interleaved: on a shared host other
 * work comes and goes over the seconds one row takes, so variants measured
 * one after another differ by more than the few percent a target allows.
 * All the variants' hubs (each fresh) are started first and idle while
 * another is loaded; each round loads every hub once (warm-up, then one
 * timed run), "off" first and the others in an order that rotates from
 * round to round, and "off" once more at the end, so each run of a variant
 * is compared with "off" interpolated between the two runs of it around
 * this one (bracketed-rounds.ts; the report's costs are medians of those
 * ratios).
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
      const sectionRows = specs.map(emptyRow);
      const sessions: Array<RowSession | undefined> = [];
      const before = sink.bytes();
      ctx.log(`telemetry: ${name}: ${specs.length} hubs (${VARIANTS.map((v) => v.id).join(", ")}), loaded in turn`);
      try {
        for (const [i, spec] of specs.entries()) {
          try {
            sessions[i] = await RowSession.open(ctx, spec, sectionRows[i]!);
          } catch (e) {
            failRow(ctx, sectionRows[i]!, e);
          }
        }
        const live = (i: number) => (sectionRows[i]!.status === "ok" ? sessions[i] : undefined);
        // Settle first (see SETTLE_SEC), every hub, before any is timed.
        const settleSec = ctx.options.quick ? SETTLE_SEC.quick : SETTLE_SEC.full;
        for (const i of specs.keys()) {
          try {
            await live(i)?.warm(ctx, Math.max(...ctx.options.connections), settleSec);
          } catch (e) {
            failRow(ctx, sectionRows[i]!, e);
          }
        }
        for (const c of ctx.options.connections) {
          const rounds = ctx.options.quick ? ctx.options.runs : Math.max(ctx.options.runs, MIN_ROUNDS);
          const schedule = bracketedSchedule(specs.length, rounds);
          const slots: Array<UnaryCell | undefined> = [];
          for (const i of schedule) {
            const session = live(i);
            let cell: UnaryCell | undefined;
            try {
              cell = await session?.load(ctx, c, { runs: 1 });
            } catch (e) {
              failRow(ctx, sectionRows[i]!, e);
            }
            slots.push(cell);
          }
          const runs = withBaselines(schedule, slots.map((cell) => cell?.perRun?.[0]));
          specs.forEach((_, i) => {
            const cells = schedule.flatMap((server, slot) => (server === i && slots[slot] ? [{ ...slots[slot]!, perRun: [runs[slot]!] }] : []));
            if (cells.length > 0 && live(i)) sectionRows[i]!.cells.push(cellOfRuns(cells));
          });
        }
        for (const i of specs.keys()) {
          try {
            await live(i)?.check();
          } catch (e) {
            failRow(ctx, sectionRows[i]!, e);
          }
        }
      } finally {
        // A hub flushes its last spans as it stops gracefully.
        for (const s of sessions) await s?.stop();
      }
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
