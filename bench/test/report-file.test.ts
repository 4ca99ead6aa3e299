import { describe, expect, it } from "vitest";
import { mergeReport } from "../harness/report-file.js";

/** A report as harness/report.ts lays it out: a header, Targets, measured sections, Notes. */
function report(date: string, rev: string, sections: Record<string, string>, targets: string[], notes: string[]): string {
  const parts = [`# a2a-hub benchmark results\n\n- **Date**: ${date}; wall time 60 s\n- **Versions**: node v24, a2a-hub 0.1.0 (git ${rev}), autocannon 9.0.0`];
  if (targets.length) parts.push(`## Targets\n\n| target | measured (same run) | verdict |\n|---|---|---|\n${targets.join("\n")}`);
  for (const [heading, body] of Object.entries(sections)) parts.push(`## ${heading}\n\n${body}`);
  if (notes.length) parts.push(`## Notes\n\n${notes.join("\n")}`);
  return parts.join("\n\n") + "\n";
}

const full = report(
  "2026-11-27T18:48:03Z",
  "f20a9a5",
  { "Unary SendMessage (echo agent)": "unary table", "Store scale: 1,000,000 tasks": "store table", "The hub on PostgreSQL": "postgres table, first run" },
  ["| JSON-RPC ≥ 2× | 2.4× | meets |", "| PostgreSQL ≥ 0.5× SQLite | 0.6× | meets |"],
  ["- hub-jsonrpc: every answer checked", "- postgres one-hub: 100 tasks stored for 100 good answers"],
);

describe("the one report file", () => {
  it("is the fresh report alone when there was none before", () => {
    expect(mergeReport(undefined, full, "npm run bench --")).toBe(full);
  });

  it("is the fresh report alone when the run measured every section the earlier one holds", () => {
    const again = full.replace("unary table", "unary table, again").replace("2026-11-27", "2026-11-28");
    expect(mergeReport(full, again, "npm run bench --")).toBe(again);
  });

  it("takes a partial run's section in place of its namesake, marked with its run, and keeps the header and the other sections", () => {
    const pg = report("2026-11-28T07:00:00Z", "abc1234", { "The hub on PostgreSQL": "postgres table, second run" }, ["| PostgreSQL ≥ 0.5× SQLite | 0.7× | meets |"], ["- postgres one-hub: 200 tasks stored for 200 good answers"]);
    const merged = mergeReport(full, pg, "npm run bench -- --only postgres");
    expect(merged).toContain("- **Date**: 2026-11-27T18:48:03Z");
    expect(merged).toContain("unary table");
    expect(merged).toContain("store table");
    expect(merged).not.toContain("postgres table, first run");
    expect(merged).toContain(
      "## The hub on PostgreSQL\n\n_This section: run of 2026-11-28T07:00:00Z (git abc1234), `npm run bench -- --only postgres`; the header above describes the run of the sections without such a line._\n\npostgres table, second run",
    );
    expect(merged.indexOf("## Store scale")).toBeLessThan(merged.indexOf("## The hub on PostgreSQL"));
    expect(merged.indexOf("## The hub on PostgreSQL")).toBeLessThan(merged.indexOf("## Notes"));
  });

  it("merges Targets and Notes row by row: the later run's rows replace their namesakes, the others stay", () => {
    const pg = report("2026-11-28T07:00:00Z", "abc1234", { "The hub on PostgreSQL": "postgres table, second run" }, ["| PostgreSQL ≥ 0.5× SQLite | 0.7× | meets |"], ["- postgres one-hub: 200 tasks stored for 200 good answers", "- postgres two-replicas: 90 tasks stored for 90 good answers"]);
    const merged = mergeReport(full, pg, "npm run bench -- --only postgres");
    expect(merged).toContain("| JSON-RPC ≥ 2× | 2.4× | meets |\n| PostgreSQL ≥ 0.5× SQLite | 0.7× | meets |");
    expect(merged).not.toContain("0.6×");
    expect(merged).toContain("- hub-jsonrpc: every answer checked\n- postgres one-hub: 200 tasks stored for 200 good answers\n- postgres two-replicas: 90 tasks stored for 90 good answers\n");
    expect(merged.match(/^\| target \|/gm)).toHaveLength(1);
  });

  it("puts a section the earlier report lacked before its Notes", () => {
    const fanout = report("2026-11-28T08:00:00Z", "def5678", { "Fan-out: 10,000 SubscribeToTask streams on one slow task": "fan-out table" }, [], []);
    const merged = mergeReport(full, fanout, "npm run bench -- --only fanout");
    expect(merged.indexOf("## The hub on PostgreSQL")).toBeLessThan(merged.indexOf("## Fan-out"));
    expect(merged.indexOf("## Fan-out")).toBeLessThan(merged.indexOf("## Notes"));
    expect(merged).toContain("(git def5678), `npm run bench -- --only fanout`");
  });
});
