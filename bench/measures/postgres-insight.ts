/**
 * What the PostgreSQL section looks at besides req/s: the database's own
 * ceiling (pgbench on the same cluster, same settings, same run), the
 * statements the hub sends and what each costs the server
 * (pg_stat_statements, nested statements included), and the hub's hottest
 * frames (--cpu-prof) while one replica is loaded.
 */
import { execFile } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";
import pg from "pg";
import { PG_BIN, type PostgresCluster } from "../../test/helpers/postgres-cluster.js";
import type { CpuPinning } from "../harness/cpu-pinning.js";

const run = promisify(execFile);

/** One statement's share of the calls measured. */
export interface StatementCost {
  readonly query: string;
  /** Executions per measured call (SendMessage). */
  readonly perCall: number;
  /** Server time inside it per measured call, µs (a function's time includes the statements it runs). */
  readonly usPerCall: number;
  /** Whether the hub sent it itself (false: run inside a function or trigger). */
  readonly toplevel: boolean;
  readonly rowsPerCall: number;
  readonly blocksPerCall: number;
}

/** Loads pg_stat_statements into the cluster (a restart), tracking nothing until asked. */
export async function enableStatementStats(cluster: PostgresCluster): Promise<void> {
  // Its settings are known to the server only once the library is loaded.
  await adminQuery(cluster.url, ["ALTER SYSTEM SET shared_preload_libraries = 'pg_stat_statements'"]);
  await cluster.kill();
  await cluster.restart();
  await adminQuery(cluster.url, [
    "CREATE EXTENSION IF NOT EXISTS pg_stat_statements",
    "ALTER SYSTEM SET pg_stat_statements.track = 'none'",
    "SELECT pg_reload_conf()",
  ]);
}

async function adminQuery(url: string, statements: readonly string[]): Promise<pg.QueryResultRow[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    let rows: pg.QueryResultRow[] = [];
    for (const s of statements) rows = (await client.query(s)).rows;
    return rows;
  } finally {
    await client.end();
  }
}

/** Tracks every statement (nested too) while `work` runs, then returns the top ones per call of `work`'s count. */
export async function statementCosts(cluster: PostgresCluster, dbUrl: string, work: () => Promise<number>, top = 12): Promise<StatementCost[]> {
  const db = new URL(dbUrl).pathname.slice(1);
  await adminQuery(cluster.url, ["ALTER SYSTEM SET pg_stat_statements.track = 'all'", "SELECT pg_reload_conf()", "SELECT pg_stat_statements_reset()"]);
  let calls: number;
  try {
    calls = await work();
  } finally {
    await adminQuery(cluster.url, ["ALTER SYSTEM SET pg_stat_statements.track = 'none'", "SELECT pg_reload_conf()"]);
  }
  const rows = await adminQuery(cluster.url, [
    `SELECT s.query, s.calls::float8 AS calls, s.total_exec_time::float8 AS ms, s.toplevel, s.rows::float8 AS rows,
            (s.shared_blks_hit + s.shared_blks_read + s.shared_blks_dirtied + s.shared_blks_written)::float8 AS blocks
       FROM pg_stat_statements s JOIN pg_database d ON d.oid = s.dbid
      WHERE d.datname = '${db.replace(/[^a-z0-9_]/g, "")}' ORDER BY s.total_exec_time DESC LIMIT ${top}`,
  ]);
  const n = Math.max(1, calls);
  return rows.map((r) => ({
    query: String(r.query).replace(/\s+/g, " ").trim(),
    perCall: Number(r.calls) / n,
    usPerCall: (Number(r.ms) * 1000) / n,
    toplevel: r.toplevel === true,
    rowsPerCall: Number(r.rows) / n,
    blocksPerCall: Number(r.blocks) / n,
  }));
}

/** A pgbench run: transactions per second and the database CPU each cost. */
export interface PgbenchFigure {
  readonly id: string;
  readonly label: string;
  readonly tps: number;
  readonly dbCpuUsPerTx: number;
  readonly dbCores: number;
}

/**
 * The transaction of the database's ceiling that the store's unit is held
 * against: four inserts of event-sized rows and one counter update between
 * BEGIN and COMMIT, each its own round trip.
 */
// Task ids from 10^15: at 10^9 a run of some 15,000 transactions drew the same task twice about one time in ten,
// and pgbench ends a run whose client met a duplicate key.
const EVENT_SCRIPT = `\\set t random(1, 1000000000000000)
\\set c random(1, 100)
BEGIN;
INSERT INTO bench_events (task, seq, body) VALUES (:t, 1, decode(repeat('ab', 160), 'hex'));
INSERT INTO bench_events (task, seq, body) VALUES (:t, 2, decode(repeat('ab', 160), 'hex'));
INSERT INTO bench_events (task, seq, body) VALUES (:t, 3, decode(repeat('ab', 160), 'hex'));
INSERT INTO bench_events (task, seq, body) VALUES (:t, 4, decode(repeat('ab', 160), 'hex'));
UPDATE bench_counters SET n = n + 1 WHERE id = :c;
COMMIT;
`;

/** pgbench's TPC-B and the event-sized transaction, each at `clients` connections for `durationSec`, on a database of their own. */
export async function measurePgbench(
  cluster: PostgresCluster,
  pinning: CpuPinning,
  dir: string,
  clients: number,
  durationSec: number,
  databaseCpuSeconds: () => number,
): Promise<PgbenchFigure[]> {
  const url = await cluster.createDatabase("a2a_hub_pgbench");
  const pgbench = join(PG_BIN, "pgbench");
  await run(pgbench, ["-i", "-q", "-s", "4", url], { timeout: 120_000 });
  await adminQuery(url, [
    "CREATE TABLE bench_events (task bigint NOT NULL, seq integer NOT NULL, body bytea NOT NULL, PRIMARY KEY (task, seq))",
    "CREATE TABLE bench_counters (id integer PRIMARY KEY, n bigint NOT NULL)",
    "INSERT INTO bench_counters SELECT g, 0 FROM generate_series(1, 100) g",
  ]);
  const script = join(dir, "event-transaction.sql");
  writeFileSync(script, EVENT_SCRIPT);
  const cases = [
    { id: "pgbench-events", label: "pgbench: 4 event-sized inserts + 1 counter update per transaction", args: ["-f", script] },
    { id: "pgbench-tpcb", label: "pgbench: TPC-B (built in)", args: [] },
  ];
  const figures: PgbenchFigure[] = [];
  for (const c of cases) {
    const argv = [...pinning.loader, pgbench, "-n", "-c", String(clients), "-j", "2", "-T", String(Math.max(1, Math.round(durationSec))), ...c.args, url];
    const cpu0 = databaseCpuSeconds();
    const t0 = process.hrtime.bigint();
    const out = await run(argv[0]!, argv.slice(1), { timeout: (durationSec + 60) * 1000 });
    const wall = Number(process.hrtime.bigint() - t0) / 1e9;
    const cpu = databaseCpuSeconds() - cpu0;
    const m = /number of transactions actually processed: (\d+)/.exec(out.stdout);
    const txs = Number(m?.[1] ?? NaN);
    const tps = Number(/tps = ([\d.]+)/.exec(out.stdout)?.[1] ?? NaN);
    figures.push({ id: c.id, label: c.label, tps, dbCpuUsPerTx: (cpu / txs) * 1e6, dbCores: cpu / wall });
  }
  return figures;
}
