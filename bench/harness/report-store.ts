import { int, mib, ms, sp, table } from "./report-format.js";
import type { StoreResult } from "./results.js";

/** Where a store-scale section's tasks were seeded, said before its table. */
export type StoreKind = "SQLite" | "PostgreSQL";

const SEEDED: Readonly<Record<StoreKind, string>> = {
  SQLite: "Seeded straight into the hub's SQLite file",
  PostgreSQL:
    "Seeded into the hub's PostgreSQL database (one INSERT ... SELECT per table, then VACUUM ANALYZE; PostgreSQL 15, a private cluster as the tests start it: shared_buffers 32 MB, fsync off)",
};

/** A store-scale section: the seeding, then one row per ListTasks/GetTask case. */
export function storeSection(s: StoreResult, kind: StoreKind): string {
  const heading = kind === "SQLite" ? `## Store scale: ${int(s.tasks)} tasks` : `## Store scale on PostgreSQL: ${int(s.tasks)} tasks`;
  if (s.status !== "ok") return `${heading}\n\n${s.status}: ${s.note ?? ""}`;
  return (
    `${heading}\n\n` +
    `${SEEDED[kind]} in ${s.seedSec?.toFixed(0)} s (${mib(s.dbBytes)}); ${int(s.contextTasks)} tasks in the filtered context. One request at a time over gRPC; pageSize 50; "deep" = 90% into the listing. Server RSS afterwards ${mib(s.rssAfterBytes)}.\n\n` +
    table(
      ["case", "position", "p50 ms median [min–max]", "p99 ms median [min–max]"],
      s.cases.map((c) => [c.label, c.position === undefined ? "" : int(c.position), sp(c.p50Ms, ms), sp(c.p99Ms, ms)]),
    )
  );
}
