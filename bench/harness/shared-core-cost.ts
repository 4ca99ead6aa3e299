import type { UnaryRun } from "./results.js";
import { spread, type Spread } from "./stats.js";

/** What a variant costs by its runs loaded together with the baseline on one core (bench/measures/shared-core-pairs.ts). */
export interface SharedCoreCost {
  /** CPU time per answered call over the baseline's of the same moment, minus 1, per pair. */
  readonly cpuPerCall: Spread;
  /**
   * The throughput a CPU-bound server loses to the variant: one call per
   * its CPU time per call, so 1 − 1 / (1 + the median CPU/call cost).
   */
  readonly throughput: number;
}

/** The cost from pairs of runs; runs without a baseline or without calls are left out. */
export function sharedCoreCost(runs: readonly UnaryRun[]): SharedCoreCost {
  const perCall = (r: { rps: number; serverCpu: number }) => (r.rps > 0 ? r.serverCpu / r.rps : NaN);
  const cpuPerCall = spread(runs.map((r) => (r.baseline ? perCall(r) / perCall(r.baseline) - 1 : NaN)));
  return { cpuPerCall, throughput: 1 - 1 / (1 + cpuPerCall.median) };
}
