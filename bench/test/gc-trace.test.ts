import { execFileSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { GcTrace } from "../harness/gc-trace.js";

/**
 * The bench's profile section tallies the hub's collections from what V8
 * prints under --trace-gc (bench/harness/gc-trace.ts). The lines are read
 * from a real Node process here, so a Node whose trace format changed
 * fails this test instead of leaving the report's GC line silently empty.
 */
describe("the bench's --trace-gc tally", () => {
  /** A Node process that allocates enough short-lived objects to be scavenged, then asks for a full collection. */
  const traced = (): string[] =>
    execFileSync(
      process.execPath,
      [
        "--trace-gc",
        "--expose-gc",
        "--max-semi-space-size=1",
        "-e",
        "let keep = []; for (let i = 0; i < 200000; i++) { keep.push({ i, s: 'x' + i }); if (keep.length > 1000) keep = []; } globalThis.gc();",
      ],
      { encoding: "utf8" },
    ).split("\n");

  it("counts the scavenges and mark-compacts a process printed, with their pauses", () => {
    const lines = traced();
    const gc = new GcTrace();
    gc.counting = true;
    for (const line of lines) gc.line(line);
    const { scavenge, markCompact } = gc.result();
    expect(scavenge.count).toBe(lines.filter((l) => l.includes(": Scavenge")).length);
    expect(scavenge.count).toBeGreaterThan(0);
    expect(markCompact.count).toBe(lines.filter((l) => l.includes(": Mark-Compact")).length);
    expect(markCompact.count).toBeGreaterThan(0);
    expect(scavenge.ms).toBeGreaterThan(0);
    expect(markCompact.ms).toBeGreaterThan(0);
  });

  it("counts nothing while it is not counting, and ignores lines that are not the collector's", () => {
    const gc = new GcTrace();
    for (const line of traced()) gc.line(line);
    gc.counting = true;
    gc.line("a2a-hub listening on http://127.0.0.1:1/");
    gc.line("MARK start 0");
    expect(gc.result()).toEqual({ scavenge: { count: 0, ms: 0 }, markCompact: { count: 0, ms: 0 } });
  });
  it("reads the line formats of Node 20, 24 (pooled: 0 MB) and 26 (pooled: 0.0 MB)", () => {
    // Lines as each runtime printed them for the process above.
    const lines = [
      "[7258:0x3101a120]      268 ms: Scavenge 3.9 (4.0) -> 3.2 (5.0) MB, 14.31 / 0.00 ms  (average mu = 1.000, current mu = 1.000) allocation failure; ",
      "[7235:0x3c714000]      376 ms: Scavenge 4.8 (5.8) -> 4.0 (6.8) MB, pooled: 0 MB, 13.90 / 0.00 ms  (average mu = 1.000, current mu = 1.000) allocation failure; ",
      "[7235:0x3c714000]      526 ms: Mark-Compact 8.8 (11.0) -> 3.8 (7.3) MB, pooled: 4 MB, 8.35 / 0.00 ms  (average mu = 0.983, current mu = 0.983) testing; GC in old space requested",
      "[7250:0x115b4000]      337 ms: Scavenge 4.8 (4.9) -> 4.1 (5.4) MB, pooled: 0.0 MB, 19.11 / 0.00 ms (average mu = 1.000, current mu = 1.000) allocation failure; ",
      "[7250:0x115b4000]      734 ms: Mark-Compact 5.1 (7.1) -> 3.9 (7.1) MB, pooled: 0.0 MB, 5.20 / 0.00 ms (average mu = 0.993, current mu = 0.993) testing; GC in old space requested",
    ];
    const gc = new GcTrace();
    gc.counting = true;
    for (const line of lines) gc.line(line);
    const { scavenge, markCompact } = gc.result();
    expect(scavenge.count).toBe(3);
    expect(scavenge.ms).toBeCloseTo(14.31 + 13.9 + 19.11, 5);
    expect(markCompact.count).toBe(2);
    expect(markCompact.ms).toBeCloseTo(8.35 + 5.2, 5);
  });
});
