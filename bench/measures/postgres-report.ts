/**
 * bench/results-postgres.md, written by the PostgreSQL section from the
 * figures of its own run: the rows, the database's ceiling (pgbench), the
 * top statements and frames, and the cost model of a fleet built from the
 * per-call CPU (the one figure that holds on a shared machine).
 */
import { writeFileSync } from "node:fs";
import { cpus, totalmem } from "node:os";
import type { BenchOptions } from "../harness/bench-options.js";
import { machineInfo } from "../harness/machine-info.js";
import type { PostgresResult, PostgresRow, ProfileFrame } from "../harness/results.js";
import type { PgbenchFigure, StatementCost } from "./postgres-insight.js";

/** What the section learned besides its rows. */
export interface PostgresInsight {
  pgbench: PgbenchFigure[];
  pgbenchNote?: string;
  statements: StatementCost[];
  frames: ProfileFrame[];
  profileCalls?: number;
  profileNote?: string;
}

const REPLICAS = [2, 4, 8, 16];
const DB_CORES = [4, 8, 16];

const int = (x: number | undefined) => (x === undefined || !Number.isFinite(x) ? "—" : Math.round(x).toLocaleString("en"));
const ratio = (a: number | undefined, b: number | undefined) => (a && b ? `${(a / b).toFixed(2)}×` : "—");

function table(head: string[], rows: string[][]): string {
  const line = (cells: string[]) => `| ${cells.join(" | ")} |`;
  return [line(head), line(head.map(() => "---")), ...rows.map(line)].join("\n");
}

function cells(r: PostgresRow, base: number | undefined): string[] {
  if (r.status !== "ok") return [r.label, String(r.replicas), `${r.status}: ${r.note ?? ""}`, "", "", "", "", "", ""];
  const s = (x: PostgresRow["rps"], f: (n: number) => string) => (!x || x.n === 0 ? "—" : x.n === 1 ? f(x.median) : `${f(x.median)} [${f(x.min)}–${f(x.max)}]`);
  const ms = (x: number) => (x < 10 ? x.toFixed(2) : x.toFixed(1));
  return [
    r.label,
    r.replicas ? String(r.replicas) : "—",
    s(r.rps, int),
    r.replicas && base && r.rps ? `${(r.rps.median / base).toFixed(2)}×` : "",
    s(r.p50Ms, ms),
    s(r.hubCpuUsPerCall, int),
    s(r.dbCpuUsPerCall, int),
    s(r.hubCores, (x) => x.toFixed(2)),
    s(r.dbCores, (x) => x.toFixed(2)),
  ];
}

/** The fleet's ceiling: each replica one Node core at its CPU per call, the database `cores` at its own. */
function costModel(hubUs: number, dbUs: number, hotSpot: string): string {
  const perReplica = 1e6 / hubUs;
  const rows = DB_CORES.map((cores) => {
    const dbCap = (cores * 1e6) / dbUs;
    const saturatesAt = dbCap / perReplica;
    return [
      `${cores} cores`,
      ...REPLICAS.map((n) => {
        const calls = Math.min(n * perReplica, dbCap);
        return `${int(calls)}${n * perReplica >= dbCap ? " (database bound)" : ""}`;
      }),
      `${saturatesAt.toFixed(1)} replicas (${int(dbCap)} calls/s)`,
    ];
  });
  return (
    `Per echo SendMessage, from the 1-replica row: ${int(hubUs)} µs of hub CPU (one replica ≈ one Node core ≈ ${int(perReplica)} calls/s) and ${int(dbUs)} µs of database CPU. ` +
    `Calls/s a fleet can serve with the database on its own machine, each replica on its own core:\n\n` +
    table(["database", ...REPLICAS.map((n) => `${n} replicas`), "database saturates at"], rows) +
    `\n\nOnce the database saturates, its first hot spot (the statement with most of its time per call in this run): ${hotSpot}`
  );
}

export function writePostgresResults(path: string, options: BenchOptions, result: PostgresResult, insight: PostgresInsight): void {
  const machine = machineInfo();
  const row = (id: string) => result.rows.find((r) => r.id === id);
  const sqlite = row("sqlite");
  const one = row("postgres-1");
  const two = row("postgres-2");
  const twoCores = row("postgres-2-cores");
  const events = insight.pgbench.find((b) => b.id === "pgbench-events");
  const parts: string[] = [];
  parts.push("# The hub on PostgreSQL: results");
  parts.push(
    [
      `- **Date**: ${machine.date}; git ${machine.revisionAtStart}`,
      `- **Machine**: ${cpus()[0]?.model ?? "?"}, ${cpus().length} cores, ${(totalmem() / 2 ** 30).toFixed(1)} GiB RAM; PostgreSQL 15 as the tests start it (fsync off, synchronous commits)`,
      `- **Method**: \`npx tsx bench/run.ts --only postgres\` (this file is written by that section). JSON-RPC SendMessage at 32 connections, every answer checked, ${options.runs} timed runs of ${options.durationSec} s after ${options.warmupSec} s of warm-up; median [min–max]. Hub CPU is all replicas together, database CPU every PostgreSQL server process, each over the calls answered. pgbench runs on the same cluster in the same run, 32 clients. On a machine shared with other work, req/s moves with the neighbours; CPU per call is the steady figure.`,
    ].join("\n"),
  );
  parts.push(
    "## Rows\n\n" +
      table(
        ["setup", "replicas", "req/s", "vs SQLite", "p50 ms", "hub CPU µs/call", "database CPU µs/call (pgbench: per transaction)", "hub cores", "database cores"],
        result.rows.map((r) => cells(r, sqlite?.rps?.median)),
      ) +
      (insight.pgbenchNote ? `\n\npgbench failed: ${insight.pgbenchNote}` : ""),
  );
  parts.push(
    "## Against the targets\n\n" +
      table(
        ["target", "measured"],
        [
          ["database CPU per SendMessage ≤ 400 µs", `${int(one?.dbCpuUsPerCall?.median)} µs (pgbench's event transaction: ${int(events?.dbCpuUsPerTx)} µs)`],
          ["hub CPU per call on PostgreSQL ≤ 1.5× SQLite", ratio(one?.hubCpuUsPerCall?.median, sqlite?.hubCpuUsPerCall?.median)],
          ["one hub on PostgreSQL ≥ 0.35× SQLite in req/s", ratio(one?.rps?.median, sqlite?.rps?.median)],
          ["two replicas no slower than one (each on a core of its own, as a fleet is deployed)", ratio(twoCores?.rps?.median, one?.rps?.median)],
          ["(two replicas on the one core the single hub has)", ratio(two?.rps?.median, one?.rps?.median)],
        ],
      ),
  );
  const st = insight.statements;
  parts.push(
    `## Top statements (pg_stat_statements, one more replica under load for ${options.profileSec} s, ${int(insight.profileCalls)} calls)\n\n` +
      (insight.profileNote
        ? `failed: ${insight.profileNote}`
        : "Server time per SendMessage (a statement the hub sends includes the nested statements it runs; nested ones are listed too, marked).\n\n" +
          table(
            ["µs/call", "executions/call", "rows/call", "blocks/call", "sent by", "statement"],
            st.map((s) => [s.usPerCall.toFixed(0), s.perCall.toFixed(2), s.rowsPerCall.toFixed(2), s.blocksPerCall.toFixed(1), s.toplevel ? "hub" : "nested", `\`${s.query.slice(0, 160).replace(/\|/g, "\\|")}${s.query.length > 160 ? "…" : ""}\``]),
          )),
  );
  parts.push(
    "## Top frames of that replica (--cpu-prof, self time)\n\n" +
      (insight.frames.length === 0 ? "none recorded" : table(["self %", "function", "where"], insight.frames.map((f) => [f.selfPct.toFixed(1), f.fn, f.where]))),
  );
  const hot = st.filter((s) => s.toplevel).sort((a, b) => b.usPerCall - a.usPerCall)[0];
  if (one?.hubCpuUsPerCall && one.dbCpuUsPerCall) {
    const hotSpot = hot ? `\`${hot.query.slice(0, 120)}\` at ${hot.usPerCall.toFixed(0)} µs per call.` : "not measured.";
    parts.push("## Cost model: N replicas on a database of C cores\n\n" + costModel(one.hubCpuUsPerCall.median, one.dbCpuUsPerCall.median, hotSpot));
  }
  writeFileSync(path, parts.join("\n\n") + "\n");
}
