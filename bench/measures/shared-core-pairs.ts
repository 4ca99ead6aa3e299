/**
 * Costs measured with both servers under load at the same moment, on the
 * same core. On this kind of shared host the speed of a core changes by
 * half or more for seconds at a time (the same server's CPU per call at 32
 * connections read 289 µs in one run and 513 µs in the next, both with
 * nothing else of ours running); a cost of 5% or 15% measured from runs
 * taken seconds apart is mostly that. Two servers loaded together on one
 * core meet every such change together: each gets its share of the core
 * and pays for its calls in the same coin, so the ratio of their CPU time
 * per call is the ratio of what their calls cost.
 *
 * At the concurrency where the hub is CPU-bound (at 32 connections it uses
 * the whole core) its throughput alone is one call per its CPU time per
 * call, so a part of telemetry that makes a call cost (1 + c) times as much
 * CPU costs 1 − 1 / (1 + c) of the throughput.
 */
import type { BenchContext } from "../harness/bench-context.js";
import { waitForQuiet } from "../harness/quiet-machine.js";
import type { UnaryCell, UnaryRow, UnaryRun } from "../harness/results.js";
import { failRow, type RowSession } from "./unary-row.js";

/** How many pairs, at which concurrency. */
export interface SharedCoreShape {
  readonly connections: number;
  readonly rounds: number;
}

/**
 * Loads every server other than the baseline (index 0) together with the
 * baseline, one pair at a time, `rounds` times each in an order that
 * rotates; each server's row gets its runs with the baseline's figures of
 * the same moment. A session that is undefined (its row failed) is left
 * out; a load that fails marks its row failed.
 */
export async function measureSharedCore(ctx: BenchContext, sessions: ReadonlyArray<RowSession | undefined>, rows: UnaryRow[], shape: SharedCoreShape): Promise<void> {
  const { connections } = shape;
  const others = sessions.flatMap((_, i) => (i > 0 ? [i] : []));
  const runs = new Map<number, UnaryRun[]>(others.map((i) => [i, []]));
  for (let r = 0; r < shape.rounds; r++) {
    for (let k = 0; k < others.length; k++) {
      const i = others[(r + k) % others.length]!;
      const base = sessions[0];
      const other = sessions[i];
      if (!base || !other || rows[0]!.status !== "ok" || rows[i]!.status !== "ok") continue;
      await waitForQuiet(ctx, `${rows[i]!.id} with ${rows[0]!.id} at ${connections} conn`);
      // Both loads start together; neither waits for the machine to go quiet again, since the other is its load.
      const shape1 = { runs: 1, waitQuiet: false } as const;
      const [b, o] = await Promise.allSettled([base.load(ctx, connections, shape1), other.load(ctx, connections, shape1)]);
      if (b.status === "rejected") failRow(ctx, rows[0]!, b.reason);
      if (o.status === "rejected") failRow(ctx, rows[i]!, o.reason);
      const baseRun = b.status === "fulfilled" ? onlyRun(b.value) : undefined;
      const run = o.status === "fulfilled" ? onlyRun(o.value) : undefined;
      if (!baseRun || !run) continue;
      runs.get(i)!.push({ ...run, baseline: { rps: baseRun.rps, serverCpu: baseRun.serverCpu } });
      ctx.log(`  shared core: ${rows[i]!.id} ${perCallUs(run)} µs/call beside ${rows[0]!.id} ${perCallUs(baseRun)} µs/call at ${connections} conn`);
    }
  }
  for (const [i, list] of runs) if (list.length > 0 && rows[i]!.status === "ok") rows[i]!.sharedCore = { connections, runs: list };
}

function onlyRun(cell: UnaryCell): UnaryRun | undefined {
  const run = cell.perRun?.[0];
  return run && run.rps > 0 && Number.isFinite(run.serverCpu) ? run : undefined;
}

/** A run's server CPU time per answered call, in whole µs, for the progress log. */
export const perCallUs = (run: UnaryRun): string => (run.rps > 0 ? ((run.serverCpu / run.rps) * 1e6).toFixed(0) : "-");
