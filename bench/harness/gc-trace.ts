/**
 * The garbage collector's share of a hub's time, read from the lines V8
 * prints under `node --trace-gc`. A CPU profile shows the collector as one
 * frame, "(garbage collector)", the largest of a SendMessage profile; it
 * does not say which collector, how often, or what each pause cost, and
 * that decides the lever: a scavenge's cost follows what survives it (the
 * young objects still reachable), a mark-compact's what the old space
 * holds. Only lines printed while `counting` is on are tallied, so the
 * start-up and the warm-up stay out.
 */

/** One kind of collection, as tallied. */
export interface GcKindTally {
  count: number;
  /** Sum of the pauses V8 reports (ms), including, for a mark-compact, its incremental marking steps. */
  ms: number;
}

/** What the collector did during the counted window. */
export interface GcTally {
  readonly scavenge: GcKindTally;
  readonly markCompact: GcKindTally;
}

/**
 * A --trace-gc line, e.g.
 * `[pid:0x..]  6822 ms: Scavenge 99.1 (126.4) -> 90.5 (126.9) MB, 7.96 / 0.00 ms  (average mu = ...) allocation failure;`
 * or `Mark-Compact 97.5 (126.4) -> 24.2 (98.4) MB, 11.96 / 0.03 ms  (+ 18.8 ms in 37 steps since start of marking, ...`.
 * Node 24 writes the pool V8 keeps for reuse after the sizes (`MB, pooled: 0 MB, 7.96 / ...`),
 * Node 26 with a decimal (`pooled: 0.0 MB,`); it is skipped.
 */
const LINE = /: (Scavenge|Mark-Compact)\S*(?: \([^)]*\))? [\d.]+ \([\d.]+\) -> [\d.]+ \([\d.]+\) MB, (?:pooled: [\d.]+ MB, )?([\d.]+) \/ [\d.]+ ms(?:\s+\(\+ ([\d.]+) ms in \d+ steps)?/;

export class GcTrace {
  counting = false;
  private readonly tally: GcTally = { scavenge: { count: 0, ms: 0 }, markCompact: { count: 0, ms: 0 } };

  /** Reads one stdout line of the traced process; lines that are not the collector's are ignored. */
  line(text: string): void {
    if (!this.counting) return;
    const m = LINE.exec(text);
    if (!m) return;
    const pause = Number(m[2]) + Number(m[3] ?? 0);
    if (m[1] === "Scavenge") {
      this.tally.scavenge.count++;
      this.tally.scavenge.ms += pause;
    } else {
      this.tally.markCompact.count++;
      this.tally.markCompact.ms += pause;
    }
  }

  result(): GcTally {
    return this.tally;
  }
}
