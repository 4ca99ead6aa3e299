import { execFileSync } from "node:child_process";
import { availableParallelism } from "node:os";

/**
 * Where the server and the load generator run. On this 2-core machine the
 * server gets core 0 and the loader core 1, so neither steals the other's
 * CPU and the server's figure is what one core of Node can do.
 */
export interface CpuPinning {
  /** Command prefix that pins a server child, e.g. ["taskset", "-c", "0"]; empty when not pinned. */
  readonly server: readonly string[];
  readonly loader: readonly string[];
  /** One line for the report. */
  readonly description: string;
}

function hasTaskset(): boolean {
  try {
    execFileSync("taskset", ["-p", String(process.pid)], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
}

/** Pins with taskset when it exists and there are at least 2 cores; says which. */
export function detectPinning(): CpuPinning {
  const cores = availableParallelism();
  if (cores < 2) return { server: [], loader: [], description: `not pinned: only ${cores} core` };
  if (!hasTaskset()) return { server: [], loader: [], description: "not pinned: taskset not found (util-linux)" };
  return {
    server: ["taskset", "-c", "0"],
    loader: ["taskset", "-c", "1"],
    description: `taskset: server on CPU 0, loader on CPU 1 (of ${cores})`,
  };
}

/**
 * Where the i-th of several servers runs when each gets a core of its own,
 * in turn over the server's and the loader's cores (a fleet's replicas,
 * each on a machine of its own as deployed; here the second shares the
 * loader's core). Unpinned stays unpinned.
 */
export function spreadPinning(pinning: CpuPinning, i: number): CpuPinning {
  if (pinning.server[0] !== "taskset") return pinning;
  const cores = [pinning.server.at(-1)!, pinning.loader.at(-1)!];
  return { ...pinning, server: ["taskset", "-c", cores[i % cores.length]!] };
}

/**
 * Runs `fn` with this process (every thread) on the loader's core, then
 * puts it back where it was: work the bench does itself during a measure
 * stays off the server's core. The telemetry section's collector stand-in
 * receives every span the hub exports (about 2% of a core at 32
 * connections), which would otherwise be charged to tracing whenever the
 * scheduler ran it on core 0.
 */
export async function onLoaderCore<T>(pinning: CpuPinning, fn: () => Promise<T>): Promise<T> {
  const cpu = pinning.loader.at(-1);
  if (pinning.loader[0] !== "taskset" || cpu === undefined) return fn();
  const pid = String(process.pid);
  const before = /mask:\s*(\S+)/.exec(execFileSync("taskset", ["-p", pid], { encoding: "utf8" }))?.[1];
  execFileSync("taskset", ["-a", "-p", "-c", cpu, pid], { stdio: "ignore" });
  try {
    return await fn();
  } finally {
    if (before) execFileSync("taskset", ["-a", "-p", before, pid], { stdio: "ignore" });
  }
}
