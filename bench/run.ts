/**
 * `npm run bench [-- --quick]`: the hub's benchmark. Every figure is taken
 * on loopback on this machine and reported next to baselines measured in
 * the same run (bare node:http, @a2a-js/sdk in-memory and SQLite), as
 * medians with min/max over at least 3 runs. Writes the sections it ran
 * into bench/results.md (bench/results-quick.md for --quick), keeping the
 * others (harness/report-file.ts), and prints the report.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseBenchOptions } from "./harness/bench-options.js";
import { createContext } from "./harness/bench-context.js";
import { detectPinning } from "./harness/cpu-pinning.js";
import { machineInfo } from "./harness/machine-info.js";
import { renderReport } from "./harness/report.js";
import { writeReport } from "./harness/report-file.js";
import type { BenchResults } from "./harness/results.js";
import { measureProfile } from "./measures/cpu-profile-run.js";
import { measureFanout } from "./measures/fan-out.js";
import { measureHeadToHead } from "./measures/head-to-head.js";
import { measureLatencyBudget } from "./measures/latency-budget.js";
import { measurePostgres } from "./measures/postgres-store.js";
import { measureStore } from "./measures/store-scale.js";
import { measureStorePostgres } from "./measures/store-scale-postgres.js";
import { measureStreaming } from "./measures/streaming.js";
import { measureTelemetry } from "./measures/telemetry-cost.js";
import { measureUnary } from "./measures/unary-throughput.js";

async function main(): Promise<void> {
  const options = parseBenchOptions(process.argv.slice(2));
  const started = Date.now();
  const pinning = detectPinning();
  const workDir = mkdtempSync(join(tmpdir(), "a2a-hub-bench-"));
  const ctx = createContext(options, pinning, workDir);
  ctx.log(`${options.quick ? "quick" : "full"} run: ${[...options.sections].join(", ")}; ${pinning.description}; scratch ${workDir}`);
  const machine = machineInfo();

  const results: BenchResults = { unary: [], streams: [] };
  const write = () => {
    const report = renderReport(results, options, machine, pinning, (Date.now() - started) / 1000);
    return writeReport(options.out, report, ["npm run bench --", ...process.argv.slice(2)].join(" "));
  };
  // Each section records its own failures; the report is rewritten after each, so a cut-short run still leaves one.
  try {
    if (options.sections.has("unary")) {
      results.unary = await measureUnary(ctx);
      write();
    }
    if (options.sections.has("versus")) {
      results.headToHead = await measureHeadToHead(ctx);
      write();
    }
    if (options.sections.has("latency")) {
      results.latency = await measureLatencyBudget(ctx);
      write();
    }
    if (options.sections.has("telemetry")) {
      results.telemetry = await measureTelemetry(ctx);
      write();
    }
    if (options.sections.has("streaming")) {
      results.streams = await measureStreaming(ctx);
      write();
    }
    if (options.sections.has("fanout")) {
      results.fanout = await measureFanout(ctx);
      write();
    }
    if (options.sections.has("store")) {
      results.store = await measureStore(ctx);
      write();
    }
    if (options.sections.has("store-postgres")) {
      results.storePostgres = await measureStorePostgres(ctx);
      write();
    }
    if (options.sections.has("postgres")) {
      results.postgres = await measurePostgres(ctx);
      write();
    }
    if (options.sections.has("profile")) {
      results.profile = await measureProfile(ctx, "bench/profiles");
    }
    process.stdout.write(write());
    ctx.log(`wrote ${options.out} in ${((Date.now() - started) / 1000).toFixed(0)} s`);
  } finally {
    rmSync(workDir, { recursive: true, force: true });
  }
}

main().catch((e: unknown) => {
  process.stderr.write(`bench: ${e instanceof Error ? e.message : String(e)}\n`);
  process.exit(1);
});
