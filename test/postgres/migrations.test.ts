import Database from "better-sqlite3";
import { spawn } from "node:child_process";
import pg from "pg";
import { describe, expect, it } from "vitest";
import { POSTGRES_MIGRATIONS, createPool, migratePostgres, openPostgres, type MigrationOutcome } from "../../src/store/index.js";
import { MIGRATION_LOCK_KEY } from "../../src/store/postgres/index.js";
import { MIGRATIONS as SQLITE_MIGRATIONS } from "../../src/store/sqlite/index.js";
import { clusterForTests, hasPostgres, noticePostgresSkip } from "../helpers/postgres-cluster.js";
import { REPO_ROOT } from "../helpers/server-process.js";
import { until } from "../helpers/until.js";

noticePostgresSkip("postgres/migrations.test.ts");

const N = POSTGRES_MIGRATIONS.length;

/** Runs `read` on a fresh connection to `url`. */
async function withClient<T>(url: string, read: (c: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await read(client);
  } finally {
    await client.end();
  }
}

function versions(url: string): Promise<number[]> {
  return withClient(url, async (c) => (await c.query<{ version: number }>("SELECT version FROM schema_migrations ORDER BY version")).rows.map((r) => r.version));
}

/** Table name → its sorted column names, in the connection's schema. */
async function postgresTables(url: string): Promise<Map<string, string[]>> {
  const rows = await withClient(url, async (c) =>
    (
      await c.query<{ table_name: string; column_name: string }>(
        `SELECT table_name, column_name FROM information_schema.columns WHERE table_schema = current_schema() AND table_name <> 'schema_migrations'`,
      )
    ).rows,
  );
  return groupColumns(rows.map((r) => [r.table_name, r.column_name]));
}

/** The same for the schema SQLite's migrations build. */
function sqliteTables(): Map<string, string[]> {
  const db = new Database(":memory:");
  try {
    for (const m of SQLITE_MIGRATIONS) db.exec(m);
    const tables = db.prepare(`SELECT name FROM sqlite_master WHERE type = 'table'`).all() as { name: string }[];
    return groupColumns(tables.flatMap((t) => (db.pragma(`table_info(${t.name})`) as { name: string }[]).map((c) => [t.name, c.name] as [string, string])));
  } finally {
    db.close();
  }
}

/**
 * What only a fleet of hubs needs (schema 2, with the unit function): the replicas and their
 * leases, each task's owner, claims on push deliveries, and the counters' shards.
 */
const FLEET_ONLY: Readonly<Record<string, readonly string[]>> = {
  replicas: ["expires_at", "id", "started_at"],
  tasks: ["owner"],
  push_outbox: ["claim_until_ms", "claimed_by"],
  // Schema 5: units of several replicas at once count in shards rather than queue on one row.
  task_counts: ["shard"],
};

/**
 * What only the SQLite store has (its schema 9): rows packing the events and
 * appended parts of one unit of work (src/store/encoding/packed-rows.ts).
 * PostgreSQL applies a unit in one server-side call, where a row more costs
 * the database, not the hub's event loop; it keeps a row per event.
 */
const SQLITE_ONLY: Readonly<Record<string, readonly string[]>> = {
  events: ["n"],
  artifact_parts: ["n"],
};

/**
 * What only the PostgreSQL store has (its schema 6): a task counter per
 * context for ListTasks' totals, where SQLite counts the context's rows in
 * its own process.
 */
const POSTGRES_ONLY: Readonly<Record<string, readonly string[]>> = {
  task_context_counts: ["agent", "context_id", "n", "tenant"],
};

function withFleet(tables: Map<string, string[]>): Map<string, string[]> {
  for (const [t, cols] of Object.entries(SQLITE_ONLY)) tables.set(t, (tables.get(t) ?? []).filter((c) => !cols.includes(c)));
  for (const [t, cols] of Object.entries({ ...FLEET_ONLY, ...POSTGRES_ONLY })) tables.set(t, [...(tables.get(t) ?? []), ...cols].sort());
  return new Map([...tables].sort(([a], [b]) => a.localeCompare(b)));
}

function groupColumns(pairs: Array<[string, string]>): Map<string, string[]> {
  const tables = new Map<string, string[]>();
  for (const [t, c] of pairs) tables.set(t, [...(tables.get(t) ?? []), c]);
  for (const cols of tables.values()) cols.sort();
  return new Map([...tables].sort(([a], [b]) => a.localeCompare(b)));
}

/** Holds the migration lock from outside, so that migrations started now must queue on it. */
async function holdMigrationLock(url: string): Promise<{ waiting: () => Promise<number>; release: () => Promise<void> }> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  await client.query("SELECT pg_advisory_lock($1::bigint)", [MIGRATION_LOCK_KEY]);
  return {
    waiting: async () =>
      (
        await client.query<{ n: number }>(
          `SELECT COUNT(*)::integer AS n FROM pg_locks l JOIN pg_database d ON d.oid = l.database
           WHERE l.locktype = 'advisory' AND NOT l.granted AND d.datname = current_database()`,
        )
      ).rows[0]!.n,
    release: async () => {
      await client.query("SELECT pg_advisory_unlock($1::bigint)", [MIGRATION_LOCK_KEY]);
      await client.end();
    },
  };
}

/** `node --import tsx test/fixtures/pg-migrate.ts <url>`: a second process opening the store, as a replica starting. */
function migrateInProcess(url: string): Promise<MigrationOutcome> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ["--import", "tsx", "test/fixtures/pg-migrate.ts", url], { cwd: REPO_ROOT, stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    let err = "";
    child.stdout.on("data", (d: Buffer) => (out += d.toString()));
    child.stderr.on("data", (d: Buffer) => (err += d.toString()));
    child.once("error", reject);
    child.once("exit", (code) => {
      if (code === 0) resolve(JSON.parse(out.trim()) as MigrationOutcome);
      else reject(new Error(`pg-migrate.ts exited with ${code}: ${err}`));
    });
  });
}

describe.skipIf(!hasPostgres)("PostgreSQL store migrations", () => {
  const cluster = clusterForTests();

  it("apply to an empty database: every version recorded once, the tables and columns SQLite's migrations create", async () => {
    const url = await cluster().createDatabase();
    const db = await openPostgres({ url, poolSize: 2 });
    try {
      expect(db.schema).toEqual({ from: 0, to: N });
    } finally {
      await db.pool.end();
    }
    expect(await versions(url)).toEqual(Array.from({ length: N }, (_, i) => i + 1));
    expect(await postgresTables(url)).toEqual(withFleet(sqliteTables()));
  });

  it("keep ListTasks' counters and touch order in the database: triggers count states, the touch sequence grows", async () => {
    const url = await cluster().createDatabase();
    const db = await openPostgres({ url });
    try {
      const insert = `INSERT INTO tasks (tenant, agent, id, context_id, state, status, status_ms, metadata, last_seq, history_count, artifact_count, created_ms)
                      VALUES ($1, 'echo', $2, 'ctx', $3, $4, $5, NULL, 1, 1, 0, $5) RETURNING touch`;
      const t1 = (await db.pool.query<{ touch: number }>(insert, ["t", "a", 1, Buffer.from([8, 1]), 1_700_000_000_000])).rows[0]!.touch;
      const t2 = (await db.pool.query<{ touch: number }>(insert, ["t", "b", 1, Buffer.from([8, 1]), 1_700_000_000_000])).rows[0]!.touch;
      // bigint columns arrive as numbers (the pool's int8 parser), not strings.
      expect(typeof t1).toBe("number");
      expect(t2).toBeGreaterThan(t1);
      await db.pool.query(`UPDATE tasks SET state = $1 WHERE tenant = 't' AND id = 'b'`, [3]);
      await db.pool.query(`UPDATE tasks SET state = $1 WHERE tenant = 't' AND id = 'b'`, [3]);
      const counts = await db.pool.query<{ state: number; n: number }>(`SELECT state, SUM(n)::integer AS n FROM task_counts WHERE tenant = 't' GROUP BY state HAVING SUM(n) <> 0 ORDER BY state`);
      expect(counts.rows).toEqual([
        { state: 1, n: 1 },
        { state: 3, n: 1 },
      ]);
    } finally {
      await db.pool.end();
    }
  });

  it("keep a context's task count in the database: schema 6 counts the tasks already there, inserts add, deletes take away and drop an emptied context", async () => {
    const url = await cluster().createDatabase();
    const pool = createPool({ url, poolSize: 2 });
    const insert = `INSERT INTO tasks (tenant, agent, id, context_id, state, status, status_ms, metadata, last_seq, history_count, artifact_count, created_ms)
                    SELECT $1, 'echo', id, $2, 1, '\\x0801'::bytea, 1700000000000, NULL, 1, 1, 0, 1700000000000 FROM unnest($3::text[]) id`;
    const counted = async () =>
      (await pool.query<{ tenant: string; context_id: string; n: number }>(`SELECT tenant, context_id, n FROM task_context_counts ORDER BY tenant, context_id`)).rows;
    const recount = async () =>
      (await pool.query<{ tenant: string; context_id: string; n: number }>(
        `SELECT tenant, context_id, COUNT(*)::bigint AS n FROM tasks GROUP BY tenant, agent, context_id ORDER BY tenant, context_id`,
      )).rows;
    try {
      await migratePostgres(pool, POSTGRES_MIGRATIONS.slice(0, 5));
      await pool.query(insert, ["t", "ctx-a", ["a1", "a2"]]);
      await pool.query(insert, ["u", "ctx-a", ["u1"]]);
      expect(await migratePostgres(pool)).toEqual({ from: 5, to: N });
      expect(await counted()).toEqual([
        { tenant: "t", context_id: "ctx-a", n: 2 },
        { tenant: "u", context_id: "ctx-a", n: 1 },
      ]);
      await pool.query(insert, ["t", "ctx-a", ["a3"]]);
      await pool.query(insert, ["t", "ctx-b", ["b1", "b2"]]);
      // A state change moves no task between contexts.
      await pool.query(`UPDATE tasks SET state = 3 WHERE id = 'a1'`);
      expect(await counted()).toEqual(await recount());
      await pool.query(`DELETE FROM tasks WHERE id IN ('a1', 'b1', 'b2')`);
      expect(await counted()).toEqual([
        { tenant: "t", context_id: "ctx-a", n: 2 },
        { tenant: "u", context_id: "ctx-a", n: 1 },
      ]);
      expect(await counted()).toEqual(await recount());
    } finally {
      await pool.end();
    }
  });

  it("are idempotent on restart: a second start finds the schema current and applies nothing", async () => {
    const url = await cluster().createDatabase();
    for (const expected of [{ from: 0, to: N }, { from: N, to: N }, { from: N, to: N }]) {
      const db = await openPostgres({ url });
      await db.pool.end();
      expect(db.schema).toEqual(expected);
    }
    expect(await versions(url)).toEqual(Array.from({ length: N }, (_, i) => i + 1));
  });

  it("run exactly once when four pools start migrating at the same moment (all queued on the advisory lock)", async () => {
    const url = await cluster().createDatabase();
    const lock = await holdMigrationLock(url);
    const pools = Array.from({ length: 4 }, () => createPool({ url, poolSize: 1 }));
    try {
      const runs = pools.map((p) => migratePostgres(p));
      await until("four migrations wait for the lock", async () => (await lock.waiting()) === 4);
      await lock.release();
      const outcomes = await Promise.all(runs);
      expect(outcomes.filter((o) => o.from === 0)).toEqual([{ from: 0, to: N }]);
      expect(outcomes.filter((o) => o.from === N)).toHaveLength(3);
    } finally {
      await Promise.all(pools.map((p) => p.end()));
    }
    expect(await versions(url)).toEqual(Array.from({ length: N }, (_, i) => i + 1));
    expect(await postgresTables(url)).toEqual(withFleet(sqliteTables()));
  });

  it("run exactly once when two processes open the store at the same moment", async () => {
    const url = await cluster().createDatabase();
    const lock = await holdMigrationLock(url);
    const runs = [migrateInProcess(url), migrateInProcess(url)];
    // Both processes are at the lock before either may pass it: a true race, settled by the lock alone.
    await until("both processes wait for the lock", async () => (await lock.waiting()) === 2, 60_000);
    await lock.release();
    const outcomes = await Promise.all(runs);
    expect(outcomes.map((o) => o.from).sort((a, b) => a - b)).toEqual([0, N]);
    expect(outcomes.every((o) => o.to === N)).toBe(true);
    expect(await versions(url)).toEqual(Array.from({ length: N }, (_, i) => i + 1));
  }, 90_000);

  it("roll a failing migration back whole and release the lock: the version stays, the next start proceeds", async () => {
    const url = await cluster().createDatabase();
    const pool = createPool({ url, poolSize: 2 });
    try {
      await migratePostgres(pool);
      const broken = [...POSTGRES_MIGRATIONS, "CREATE TABLE half_done (x integer); SELECT 1 / 0;"];
      await expect(migratePostgres(pool, broken)).rejects.toThrow(`schema migration ${N + 1} failed: division by zero`);
      expect(await versions(url)).toHaveLength(N);
      const leftover = await pool.query(`SELECT to_regclass('half_done') AS t`);
      expect(leftover.rows[0]).toEqual({ t: null });
      // The lock was released: a start right after does not wait.
      expect(await migratePostgres(pool)).toEqual({ from: N, to: N });
    } finally {
      await pool.end();
    }
  });

  it("refuse a database whose schema is newer than this a2a-hub, leaving it untouched", async () => {
    const url = await cluster().createDatabase();
    const db = await openPostgres({ url });
    await db.pool.query("INSERT INTO schema_migrations (version) VALUES ($1)", [N + 1]);
    await db.pool.end();
    await expect(openPostgres({ url })).rejects.toThrow(`database schema version ${N + 1} is newer than this a2a-hub knows (${N}); refusing to open it`);
    expect(await versions(url)).toHaveLength(N + 1);
  });
});

describe("PostgreSQL store URL and pool settings", () => {
  it("are checked before any connection: a clear error for a URL of another scheme, a non-URL or a bad pool size", () => {
    expect(() => createPool({ url: "mysql://localhost/db" })).toThrow("the store URL must begin with postgres:// or postgresql://, not mysql://");
    expect(() => createPool({ url: "localhost:5432" })).toThrow("must begin with postgres://");
    expect(() => createPool({ url: "not a url" })).toThrow("the store URL is not a URL");
    expect(() => createPool({ url: "postgres://localhost/db", poolSize: 0 })).toThrow("poolSize must be a whole number of connections >= 1, not 0");
  });
});
