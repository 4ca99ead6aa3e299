/**
 * The hub on PostgreSQL: unary JSON-RPC SendMessage on one hub with SQLite
 * (this run's baseline), one hub on PostgreSQL, and two hubs (replicas of
 * one fleet) on the same database behind a round-robin client, each at 32
 * connections with every answer checked. Besides req/s and latency, the
 * CPU each request costs in the hubs and in the database, which is what
 * limits a fleet on two cores; pgbench on the same cluster in the same run
 * as the database's own ceiling; and, from one more loaded replica, the
 * database's top statements and the hub's top frames. The section also
 * rewrites bench/results-postgres.md (postgres-report.ts).
 */
import { mkdirSync, readdirSync, readFileSync } from "node:fs";
import { PostgresCluster } from "../../test/helpers/postgres-cluster.js";
import { a2aClient, countTasks, sampleSendMessage } from "../harness/a2a-clients.js";
import type { BenchContext } from "../harness/bench-context.js";
import { spreadPinning } from "../harness/cpu-pinning.js";
import { runLoader, type TimedRun } from "../harness/loader-process.js";
import { cpuSeconds, reapedChildrenCpuSeconds } from "../harness/proc-stats.js";
import { waitForQuiet } from "../harness/quiet-machine.js";
import { JSON_HEADERS, jsonRpcBody, PER_REQUEST_ID, sendMessageJson } from "../harness/request-bodies.js";
import type { PostgresResult, PostgresRow } from "../harness/results.js";
import { startHubChild, type ServerUnderTest } from "../harness/servers-under-test.js";
import { spread } from "../harness/stats.js";
import { topSelfFrames } from "../harness/cpu-profile.js";
import { enableStatementStats, measurePgbench, statementCosts, type PgbenchFigure, type StatementCost } from "./postgres-insight.js";
import { writePostgresResults, type PostgresInsight } from "./postgres-report.js";
import { failureNote } from "../harness/failure-note.js";

const CONNECTIONS = 32;

/**
 * CPU seconds used so far by the cluster's server: the postmaster and every
 * process it started (backends, WAL writer, ...), those running and those
 * that exited (pgbench's TPC-B run opens and closes connections: summing the
 * running ones alone went backwards when one exited).
 */
function databaseCpuSeconds(postmaster: number): number {
  let total = cpuSeconds(postmaster) + reapedChildrenCpuSeconds(postmaster);
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      // The parent pid is the second field after the parenthesised command name.
      if (Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]) !== postmaster) continue;
    } catch {
      continue;
    }
    const s = cpuSeconds(Number(entry));
    if (Number.isFinite(s)) total += s;
  }
  return total;
}

interface Setup {
  readonly id: string;
  readonly label: string;
  /** Starts the hubs of the row (their children are stopped by the caller). */
  readonly start: (ctx: BenchContext, url: string) => Promise<ServerUnderTest[]>;
}

/** `ownCores`: each replica on a core of its own (spreadPinning), else all on the server's core. */
async function hubsOnPostgres(ctx: BenchContext, dbUrl: string, n: number, ownCores = false): Promise<ServerUnderTest[]> {
  const hubs: ServerUnderTest[] = [];
  try {
    for (let i = 0; i < n; i++) {
      const pinning = ownCores ? spreadPinning(ctx.pinning, i) : ctx.pinning;
      hubs.push(await startHubChild(pinning, ctx.freshDir(`pg-hub-${i}`), { env: { A2A_HUB_STORE: dbUrl } }));
    }
  } catch (e) {
    for (const h of hubs) await h.child.stop();
    throw e;
  }
  return hubs;
}

const SETUPS: readonly Setup[] = [
  { id: "sqlite", label: "a2a-hub, SQLite (one process)", start: async (ctx) => [await startHubChild(ctx.pinning, ctx.freshDir("sqlite-hub"))] },
  { id: "postgres-1", label: "a2a-hub, PostgreSQL, 1 replica", start: (ctx, url) => hubsOnPostgres(ctx, url, 1) },
  { id: "postgres-2", label: "a2a-hub, PostgreSQL, 2 replicas sharing the hubs' core (round-robin client)", start: (ctx, url) => hubsOnPostgres(ctx, url, 2) },
  // A fleet's replicas run on machines of their own: here one core each, the second beside the loader.
  { id: "postgres-2-cores", label: "a2a-hub, PostgreSQL, 2 replicas on a core each (round-robin client)", start: (ctx, url) => hubsOnPostgres(ctx, url, 2, true) },
];

export async function measurePostgres(ctx: BenchContext): Promise<PostgresResult> {
  const result: PostgresResult = { status: "ok", rows: [] };
  const insight: PostgresInsight = { pgbench: [], statements: [], frames: [] };
  let cluster: PostgresCluster | undefined;
  try {
    cluster = await PostgresCluster.start();
    await enableStatementStats(cluster);
    const postmaster = cluster.serverPid;
    if (postmaster === undefined) throw new Error("the bench needs its own cluster (not A2A_HUB_TEST_PG_URL) to measure the database's CPU");
    const dbCpu = () => databaseCpuSeconds(postmaster);
    for (const setup of SETUPS) result.rows.push(await measureSetup(ctx, setup, await cluster.createDatabase(), dbCpu));
    try {
      insight.pgbench = await measurePgbench(cluster, ctx.pinning, ctx.freshDir("pgbench"), CONNECTIONS, ctx.options.runs * ctx.options.durationSec, dbCpu);
      for (const b of insight.pgbench) result.rows.push(pgbenchRow(b));
    } catch (e) {
      insight.pgbenchNote = (e instanceof Error ? e.message : String(e)).split("\n")[0];
      ctx.log(`pgbench failed: ${insight.pgbenchNote}`);
    }
    try {
      Object.assign(insight, await profileReplica(ctx, cluster, await cluster.createDatabase()));
    } catch (e) {
      insight.profileNote = (e instanceof Error ? e.message : String(e)).split("\n")[0];
      ctx.log(`postgres profile failed: ${insight.profileNote}`);
    }
  } catch (e) {
    result.status = "failed";
    result.note = failureNote(e);
    ctx.log(`postgres failed: ${result.note}`);
  } finally {
    await cluster?.stop();
  }
  if (result.status === "ok") writePostgresResults("bench/results-postgres.md", ctx.options, result, insight);
  return result;
}

function pgbenchRow(b: PgbenchFigure): PostgresRow {
  const one = (x: number) => spread([x]);
  return { id: b.id, label: b.label, status: "ok", replicas: 0, rps: one(b.tps), errors: 0, dbCpuUsPerCall: one(b.dbCpuUsPerTx), dbCores: one(b.dbCores) };
}

/**
 * One more replica, under --cpu-prof, loaded as the rows are while every
 * statement (nested ones too) is tracked: the top statements per call and
 * the hub's top frames. Apart from the rows, whose CPU figures neither
 * the profiler nor the tracking may inflate.
 */
async function profileReplica(ctx: BenchContext, cluster: PostgresCluster, dbUrl: string): Promise<{ statements: StatementCost[]; frames: PostgresInsight["frames"]; profileCalls: number }> {
  const profDir = ctx.freshDir("pg-profile");
  mkdirSync(profDir, { recursive: true });
  const hub = await startHubChild(ctx.pinning, ctx.freshDir("pg-hub-profiled"), { env: { A2A_HUB_STORE: dbUrl }, cpuProfDir: profDir });
  let window: { fromUs: number; toUs: number } = { fromUs: NaN, toUs: NaN };
  let calls = 0;
  try {
    await sampleSendMessage(a2aClient(hub.url), 3);
    const clockUs = () => Number(process.hrtime.bigint() / 1000n);
    const statements = await statementCosts(cluster, dbUrl, async () => {
      const r = await runLoader<{ error?: string; runs: TimedRun[] }>(
        "bench/loaders/autocannon-loader.ts",
        {
          url: hub.url,
          headers: JSON_HEADERS,
          body: jsonRpcBody("SendMessage", sendMessageJson(undefined, PER_REQUEST_ID)),
          check: "jsonrpc-task",
          connections: CONNECTIONS,
          warmupSec: 0,
          durationSec: ctx.options.profileSec,
          runs: 1,
        },
        ctx.pinning,
        ctx.options.profileSec * 1000 + 60_000,
        (child) =>
          child.onLine((line) => {
            if (line.startsWith("MARK start")) window = { fromUs: clockUs(), toUs: NaN };
            if (line.startsWith("MARK end")) window = { ...window, toUs: clockUs() };
          }),
      );
      if (r.error) throw new Error(`autocannon loader: ${r.error}`);
      calls = r.runs.reduce((a, x) => a + x.requests, 0);
      return calls;
    });
    await hub.child.stop("SIGINT", 30_000);
    const file = readdirSync(profDir).find((f) => f.endsWith(".cpuprofile"));
    if (!file) throw new Error("the profiled hub wrote no .cpuprofile");
    const top = topSelfFrames(`${profDir}/${file}`, 15, Number.isFinite(window.toUs) ? window : undefined);
    return { statements, frames: top.frames, profileCalls: calls };
  } finally {
    await hub.child.stop();
  }
}

async function measureSetup(ctx: BenchContext, setup: Setup, dbUrl: string, databaseCpuSeconds: () => number): Promise<PostgresRow> {
  const row: PostgresRow = { id: setup.id, label: setup.label, status: "ok", replicas: 0 };
  const hubs = await setup.start(ctx, dbUrl);
  row.replicas = hubs.length;
  try {
    const clients = hubs.map((h) => a2aClient(h.url));
    for (const c of clients) await sampleSendMessage(c, 3);
    const before = await countTasks(clients[0]!);
    await waitForQuiet(ctx, `postgres ${setup.id}`);
    const hubCpu: number[] = [];
    const dbCpu: number[] = [];
    let mark: { hub: number; db: number; at: bigint } | undefined;
    const hubSeconds = () => hubs.reduce((a, h) => a + cpuSeconds(h.child.pid), 0);
    const body = jsonRpcBody("SendMessage", sendMessageJson(undefined, PER_REQUEST_ID));
    const config = {
      // autocannon spreads its connections over the URLs in turn: a round-robin balancer in front of the replicas.
      url: hubs.length === 1 ? hubs[0]!.url : hubs.map((h) => h.url),
      headers: JSON_HEADERS,
      body,
      check: "jsonrpc-task",
      connections: CONNECTIONS,
      warmupSec: ctx.options.warmupSec,
      durationSec: ctx.options.durationSec,
      runs: ctx.options.runs,
    };
    const r = await runLoader<{ error?: string; warmupErrors: number; warmupRequests: number; runs: TimedRun[] }>(
      "bench/loaders/autocannon-loader.ts",
      config,
      ctx.pinning,
      (ctx.options.warmupSec + ctx.options.runs * ctx.options.durationSec) * 1000 + 60_000,
      (child) =>
        child.onLine((line) => {
          if (line.startsWith("MARK start")) mark = { hub: hubSeconds(), db: databaseCpuSeconds(), at: process.hrtime.bigint() };
          if (line.startsWith("MARK end") && mark) {
            const wall = Number(process.hrtime.bigint() - mark.at) / 1e9;
            hubCpu.push((hubSeconds() - mark.hub) / wall);
            dbCpu.push((databaseCpuSeconds() - mark.db) / wall);
          }
        }),
    );
    if (r.error) throw new Error(`autocannon loader: ${r.error}`);
    const rps = r.runs.map((x) => x.rps);
    row.rps = spread(rps);
    row.p50Ms = spread(r.runs.map((x) => x.p50Ms));
    row.p99Ms = spread(r.runs.map((x) => x.p99Ms));
    row.errors = r.warmupErrors + r.runs.reduce((a, x) => a + x.errors, 0);
    row.hubCpuUsPerCall = spread(r.runs.map((x, i) => ((hubCpu[i] ?? NaN) / x.rps) * 1e6));
    row.dbCpuUsPerCall = spread(r.runs.map((x, i) => ((dbCpu[i] ?? NaN) / x.rps) * 1e6));
    row.hubCores = spread(hubCpu);
    row.dbCores = spread(dbCpu);
    // Every good answer is a task the database holds, whichever replica answered it.
    const after = await countTasks(clients[0]!);
    const served = r.warmupRequests + r.runs.reduce((a, x) => a + x.requests, 0);
    row.stored = after.total - before.total;
    row.served = served;
    if (row.stored < served) row.note = `only ${row.stored} tasks stored for ${served} good answers`;
  } catch (e) {
    row.status = "failed";
    row.note = (e instanceof Error ? e.message : String(e)).split("\n").slice(0, 3).join(" | ");
    ctx.log(`postgres ${setup.id} failed: ${row.note}`);
  } finally {
    for (const h of hubs) await h.child.stop();
  }
  return row;
}
