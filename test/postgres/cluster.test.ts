import pg from "pg";
import { describe, expect, it } from "vitest";
import { openPostgres, type PostgresDatabase } from "../../src/store/index.js";
import { canKillPostgres, clusterForTests, hasPostgres, noticePostgresSkip } from "../helpers/postgres-cluster.js";

noticePostgresSkip("postgres/cluster.test.ts");

describe.skipIf(!hasPostgres)("the PostgreSQL test cluster", () => {
  const cluster = clusterForTests();

  it.skipIf(!canKillPostgres)(
    "can be killed and restarted under a live pool: queries fail fast while it is down, nothing committed is lost, the pool recovers by itself",
    async () => {
      const url = await cluster().createDatabase();
      const idleErrors: Error[] = [];
      let db: PostgresDatabase | undefined = await openPostgres({ url, poolSize: 3, connectTimeoutMs: 2000, onIdleError: (e) => idleErrors.push(e) });
      try {
        const { pool } = db;
        await pool.query("CREATE TABLE acked (n integer PRIMARY KEY)");
        for (let n = 1; n <= 50; n++) await pool.query("INSERT INTO acked (n) VALUES ($1)", [n]);
        // Three connections open and idle in the pool when the server dies.
        await Promise.all([1, 2, 3].map(() => pool.query("SELECT pg_sleep(0.05)")));

        await cluster().kill();
        const started = Date.now();
        await expect(pool.query("SELECT 1")).rejects.toThrow();
        expect(Date.now() - started).toBeLessThan(5000);
        // The idle connections' ends reach the pool's listener instead of crashing the process.
        for (let waited = 0; idleErrors.length === 0 && waited < 2000; waited += 20) await new Promise((r) => setTimeout(r, 20));
        expect(idleErrors.length).toBeGreaterThan(0);

        await cluster().restart();
        const rows = await pool.query<{ n: number; max: number }>("SELECT COUNT(*)::integer AS n, MAX(n) AS max FROM acked");
        expect(rows.rows[0]).toEqual({ n: 50, max: 50 });
        await pool.end();
        db = undefined;
        // A fresh start on the restarted server finds the schema current.
        const again = await openPostgres({ url });
        await again.pool.end();
        expect(again.schema.from).toBe(again.schema.to);
      } finally {
        await db?.pool.end();
      }
      expect(cluster().log()).toContain("database system is ready to accept connections");
    },
    60_000,
  );

  it("gives each test a database of its own", async () => {
    const [a, b] = [await cluster().createDatabase(), await cluster().createDatabase()];
    expect(a).not.toBe(b);
    const client = new pg.Client({ connectionString: a });
    await client.connect();
    try {
      await client.query("CREATE TABLE only_in_a (x integer)");
    } finally {
      await client.end();
    }
    const other = new pg.Client({ connectionString: b });
    await other.connect();
    try {
      expect((await other.query("SELECT to_regclass('only_in_a') AS t")).rows[0]).toEqual({ t: null });
    } finally {
      await other.end();
    }
  });
});
