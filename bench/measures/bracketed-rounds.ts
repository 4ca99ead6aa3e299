/**
 * The order in which the telemetry section loads its servers, and the
 * baseline each timed run is compared with. On a shared host the speed of
 * the machine drifts over the seconds a round takes; a run compared with
 * the baseline's run of the same round, taken up to three slots earlier or
 * later, is charged with that drift. Here every round opens with the
 * baseline and the schedule closes with one more, so each run of another
 * server sits between two baseline runs, and is compared with the
 * baseline as it stood at that moment: the two runs around it,
 * interpolated linearly by slot, which cancels any drift that is linear
 * over the few seconds between them.
 */
import type { UnaryRun } from "../harness/results.js";

/**
 * Server index per slot, for `servers` servers of which index 0 is the
 * baseline: each round the baseline, then the others in an order that
 * rotates from round to round (so none is always right after the
 * baseline); then the baseline once more.
 */
export function bracketedSchedule(servers: number, rounds: number): number[] {
  const others = Array.from({ length: servers - 1 }, (_, k) => k + 1);
  const order: number[] = [];
  for (let r = 0; r < rounds; r++) {
    order.push(0);
    for (let k = 0; k < others.length; k++) order.push(others[(r + k) % others.length]!);
  }
  order.push(0);
  return order;
}

/**
 * The same rounds with the baseline run between every two runs of the
 * others: 0 a 0 b 0 c 0 b 0 ... Each run then has a baseline run right
 * before and right after it, so the drift it is corrected for is the
 * drift over two slots rather than over a round. On this host the same
 * server's CPU per call moved from 267 to 505 µs within one section, and
 * not linearly over a round of five slots; a target of 5% needs the
 * baseline closer than that. It costs a baseline run per other run (the
 * telemetry section: 43 slots a round set instead of 29, 27 minutes
 * instead of 19). It narrows the drift but not the host's jumps: in its
 * first run two baseline runs 16 s apart still read 302 and 471 µs per
 * call (the run of bench/history/2026-11-27-telemetry.md, its progress log).
 */
export function alternatingSchedule(servers: number, rounds: number): number[] {
  const order: number[] = [];
  for (const server of bracketedSchedule(servers, rounds)) if (server !== 0) order.push(0, server);
  order.push(0);
  return order;
}

/**
 * The runs of the slots (undefined where a load failed), each run of a
 * server other than the baseline given the baseline's figures at its slot:
 * interpolated between the nearest baseline runs before and after it, or
 * the one of them there is.
 */
export function withBaselines(schedule: readonly number[], runs: ReadonlyArray<UnaryRun | undefined>): Array<UnaryRun | undefined> {
  const baselineAt = (slot: number, step: 1 | -1): number | undefined => {
    for (let s = slot + step; s >= 0 && s < schedule.length; s += step) if (schedule[s] === 0 && runs[s]) return s;
    return undefined;
  };
  return runs.map((run, slot) => {
    if (!run || schedule[slot] === 0) return run;
    const before = baselineAt(slot, -1);
    const after = baselineAt(slot, 1);
    if (before === undefined && after === undefined) return run;
    const b = runs[before ?? after!]!;
    const a = runs[after ?? before!]!;
    const t = before === undefined || after === undefined ? 0 : (slot - before) / (after - before);
    const lerp = (x: number, y: number) => x + (y - x) * t;
    return { ...run, baseline: { rps: lerp(b.rps, a.rps), serverCpu: lerp(b.serverCpu, a.serverCpu) } };
  });
}
