import { describe, expect, it } from "vitest";
import type { UnaryRow } from "../harness/results.js";
import { spread } from "../harness/stats.js";
import { bracketedShare, evaluateTargets } from "../harness/targets.js";
import { alternatingSchedule, bracketedSchedule, withBaselines } from "../measures/bracketed-rounds.js";

/**
 * The bench's telemetry section (bench/measures/telemetry-cost.ts) compares
 * each server with telemetry on against the hub with everything off as it
 * stood at the moment of that run: the schedule puts every such run
 * between two baseline runs (right between them when it alternates), and
 * the baseline is interpolated between them.
 */
describe("the bench's bracketed rounds", () => {
  it("open each round with the baseline, rotate the others, and close with the baseline", () => {
    expect(bracketedSchedule(4, 3)).toEqual([0, 1, 2, 3, 0, 2, 3, 1, 0, 3, 1, 2, 0]);
    expect(bracketedSchedule(2, 2)).toEqual([0, 1, 0, 1, 0]);
  });

  it("alternate: the baseline right before and after every other run, the others rotating as in the bracketed rounds", () => {
    expect(alternatingSchedule(4, 2)).toEqual([0, 1, 0, 2, 0, 3, 0, 2, 0, 3, 0, 1, 0]);
    expect(alternatingSchedule(2, 3)).toEqual([0, 1, 0, 1, 0, 1, 0]);
    // A host whose speed changes course every other slot, linear only in between: alternating cancels it, bracketing does not.
    const kink = (slot: number) => 1000 * (1 + 0.2 * Math.sin(slot));
    const speed = (slot: number) => (slot % 2 === 0 ? kink(slot) : (kink(slot - 1) + kink(slot + 1)) / 2);
    const cost = [0, 0.1, 0.05];
    for (const [schedule, exact] of [[alternatingSchedule(3, 3), true], [bracketedSchedule(3, 3), false]] as const) {
      const runs = schedule.map((server, slot) => ({ rps: speed(slot) * (1 - cost[server]!), serverCpu: 1 }));
      const out = withBaselines(schedule, runs);
      const errors = schedule.flatMap((server, slot) => (server === 0 ? [] : [Math.abs(1 - out[slot]!.rps / out[slot]!.baseline!.rps - cost[server]!)]));
      if (exact) for (const e of errors) expect(e).toBeLessThan(1e-9);
      else expect(Math.max(...errors)).toBeGreaterThan(0.01);
    }
  });

  it("compare each run with the baseline interpolated by slot between the runs around it, cancelling a linear drift", () => {
    const schedule = bracketedSchedule(3, 2); // 0 1 2 0 2 1 0
    // The host slows by 10% a slot; server 1 costs 20% of throughput, server 2 nothing.
    const speed = (slot: number) => 1000 * (1 - 0.1 * slot);
    const cost = [0, 0.2, 0];
    const runs = schedule.map((server, slot) => ({ rps: speed(slot) * (1 - cost[server]!), serverCpu: 1 }));
    const out = withBaselines(schedule, runs);
    schedule.forEach((server, slot) => {
      if (server === 0) expect(out[slot]).toEqual(runs[slot]);
      else expect(1 - out[slot]!.rps / out[slot]!.baseline!.rps).toBeCloseTo(cost[server]!, 10);
    });
  });

  it("fall back to the one baseline run there is when the other failed, and leave a run with none as it was", () => {
    const schedule = [0, 1, 2, 0];
    const run = (rps: number) => ({ rps, serverCpu: 0.5 });
    expect(withBaselines(schedule, [run(100), run(90), run(80), undefined])[2]!.baseline).toEqual({ rps: 100, serverCpu: 0.5 });
    expect(withBaselines(schedule, [undefined, run(90), run(80), undefined])[1]).toEqual(run(90));
  });
});

/**
 * The bench's ratio targets, judged from the head-to-head section when it
 * ran (bench/measures/head-to-head.ts): each row's share of the baseline is
 * the median of its runs against the baseline at their moment, and a ratio
 * of two other rows divides their shares.
 */
describe("the bench's head-to-head targets", () => {
  const row = (id: string, group: UnaryRow["group"], runs: Array<[number, number | undefined]>): UnaryRow => {
    const perRun = runs.map(([rps, base]) => ({ rps, serverCpu: 1, ...(base === undefined ? {} : { baseline: { rps: base, serverCpu: 1 } }) }));
    const s = spread(perRun.map((r) => r.rps));
    return {
      id, group, server: id, binding: id, loader: "autocannon", status: "ok",
      cells: [{ connections: 32, rps: s, p50Ms: s, p99Ms: s, errors: 0, serverCpu: s, loaderCpu: s, otherCpu: s, perRun }],
    };
  };
  // The host's speed halves between rounds 1 and 3; a share is taken run by run, so that cancels.
  const section = [
    row("versus-sdk-memory-jsonrpc", "baseline", [[1000, undefined], [500, undefined], [800, undefined]]),
    row("versus-sdk-memory-grpc-grpcjs", "baseline", [[1200, 1000], [600, 500], [960, 800]]),
    row("versus-hub-jsonrpc", "a2a-hub", [[2100, 1000], [1000, 500], [1700, 800]]),
    row("versus-hub-grpc-grpcjs", "a2a-hub", [[1900, 1000], [950, 500], [1500, 800]]),
  ];

  it("give each row the median of its per-run shares, and the baseline 1", () => {
    expect(bracketedShare(section, "versus-sdk-memory-jsonrpc").share).toBe(1);
    expect(bracketedShare(section, "versus-hub-jsonrpc")).toEqual({ share: 2.1, runs: 3 });
    expect(bracketedShare(section, "versus-missing").share).toBeUndefined();
  });

  it("judge the targets from the section, dividing shares for ratios between two non-baseline rows", () => {
    const targets = evaluateTargets({ unary: [], streams: [], headToHead: section });
    const jsonrpc = targets.find((t) => t.target.startsWith("JSON-RPC SendMessage"))!;
    expect(jsonrpc.verdict).toBe("MET");
    expect(jsonrpc.measured).toMatch(/^2\.10× \(3 runs side by side/);
    const grpc = targets.find((t) => t.target.startsWith("gRPC unary"))!;
    // 1.9 / 1.2: the hub's gRPC share over the SDK gRPC's, both under grpc-js.
    expect(grpc.measured).toMatch(/^1\.58×/);
    expect(grpc.verdict).toBe("MET");
    const vsJsonRpc = targets.find((t) => t.target.startsWith("gRPC (grpc-js) SendMessage ≥"))!;
    expect(vsJsonRpc.measured).toMatch(/^0\.90×/);
    // REST was not in this section: not measured, rather than judged from nothing.
    expect(targets.find((t) => t.target.startsWith("REST"))!.verdict).toBe("not measured");
  });
});
