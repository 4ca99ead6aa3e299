import { describe, expect, it } from "vitest";
import type { StoreCase, StoreResult } from "../harness/results.js";
import { spread } from "../harness/stats.js";
import { evaluateTargets } from "../harness/targets.js";

/** A store-scale result whose four ListTasks cases have these p50s (first, deep, first filtered, deep filtered). */
function store(tasks: number, [first, deep, firstCtx, deepCtx]: readonly number[]): StoreResult {
  const c = (label: string, p50: number): StoreCase => ({ label, p50Ms: spread([p50, p50, p50]), p99Ms: spread([p50 * 3]) });
  return {
    status: "ok",
    tasks,
    errors: 0,
    cases: [
      c("ListTasks first page", first!),
      c("ListTasks deep page", deep!),
      c("ListTasks first page, contextId filter", firstCtx!),
      c("ListTasks deep page, contextId filter", deepCtx!),
      c("GetTask", 0.5),
    ],
  };
}

describe("ListTasks targets at store scale", () => {
  it("judge the PostgreSQL section by SQLite's thresholds, in rows of its own named for it", () => {
    const rows = evaluateTargets({ unary: [], streams: [], store: store(1_000_000, [2, 2, 2, 2]), storePostgres: store(1_000_000, [3, 2.9, 4, 5.5]) });
    expect(rows.map((r) => [r.target, r.verdict])).toEqual([
      ["ListTasks page p50 < 5 ms at 1,000,000 tasks", "MET"],
      ["ListTasks no slower deep in the pagination than at the start (deep p50 ≤ 1.1× first)", "MET"],
      ["ListTasks page p50 < 5 ms at 1,000,000 tasks on PostgreSQL", "MISSED"],
      ["ListTasks no slower deep in the pagination than at the start (deep p50 ≤ 1.1× first) on PostgreSQL", "MISSED"],
    ]);
    expect(rows[3]!.measured).toBe("unfiltered: deep/first 0.97×; filtered: deep/first 1.38×");
  });

  it("measure but do not judge a smaller store (--quick)", () => {
    const rows = evaluateTargets({ unary: [], streams: [], storePostgres: store(20_000, [1, 1, 1, 1]) });
    expect(rows.map((r) => r.verdict)).toEqual(["not measured", "not measured"]);
    expect(rows[0]!.measured).toBe("worst case p50 1.00 ms (at 20,000 tasks: --quick)");
  });
});
