import { describe, expect, it } from "vitest";
import { bracketedSchedule, withBaselines } from "../bench/measures/bracketed-rounds.js";

/**
 * The bench's telemetry section (bench/measures/telemetry-cost.ts) compares
 * each server with telemetry on against the hub with everything off as it
 * stood at the moment of that run: the schedule puts every such run
 * between two baseline runs, and the baseline is interpolated between them.
 */
describe("the bench's bracketed rounds", () => {
  it("open each round with the baseline, rotate the others, and close with the baseline", () => {
    expect(bracketedSchedule(4, 3)).toEqual([0, 1, 2, 3, 0, 2, 3, 1, 0, 3, 1, 2, 0]);
    expect(bracketedSchedule(2, 2)).toEqual([0, 1, 0, 1, 0]);
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
