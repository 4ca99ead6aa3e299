import pg from "pg";
import { describe, expect, it } from "vitest";
import { taskOf, textRequest } from "../helpers/messages.js";
import { clusterForTests, hasPostgres, noticePostgresSkip } from "../helpers/postgres-cluster.js";
import { until } from "../helpers/until.js";
import { testHubs } from "../helpers/test-hubs.js";

/**
 * A task is read by its key (tenant, agent, id) through the unique index,
 * whatever the table's size: on a new database too, where the planner has
 * no statistics yet and could walk every task of the agent instead.
 */

noticePostgresSkip("postgres/planner-statistics.test.ts");

const hubs = testHubs();

interface IndexUse {
  readonly scans: number;
  readonly tuples: number;
}

async function indexUse(db: pg.Client): Promise<Map<string, IndexUse>> {
  const { rows } = await db.query<{ name: string; scans: number; tuples: number }>(
    "SELECT indexrelname AS name, idx_scan::integer AS scans, idx_tup_read::integer AS tuples FROM pg_stat_user_indexes WHERE relname = 'tasks'",
  );
  return new Map(rows.map((r) => [r.name, { scans: r.scans, tuples: r.tuples }]));
}

describe.skipIf(!hasPostgres)("reads of a task on PostgreSQL", () => {
  const cluster = clusterForTests();

  it("go through the (tenant, agent, id) index from a new database's first hundred tasks on, not through a walk of the agent's tasks", async () => {
    const url = await cluster().createDatabase();
    const hub = await hubs.start({ A2A_HUB_STORE: url });
    const client = hub.client("grpc");
    const ids: string[] = [];
    for (let i = 0; i < 120; i++) ids.push(taskOf(await client.sendMessage(textRequest(`task ${i}`))).id);

    const db = new pg.Client({ connectionString: url });
    await db.connect();
    try {
      // The hub gathers them in the background once it has created a hundred tasks (without it, autovacuum does, a minute or more later).
      await until("the tables' statistics know their rows", async () => {
        const { rows } = await db.query<{ n: number }>("SELECT reltuples::integer AS n FROM pg_class WHERE oid = 'tasks'::regclass");
        return rows[0]!.n >= 50;
      }, 10_000).catch(() => undefined);
      await db.query("SELECT pg_stat_reset()");
      for (const id of ids.slice(0, 40)) expect((await client.getTask({ id })).id).toBe(id);
      // Each backend publishes its counters once a second at most, and other
      // indexes count scans too (the primary key, by the same reads' later
      // statements): a total of 40 could be reached with part of the key
      // index's still unpublished, so the wait is for the key index itself.
      let use = new Map<string, IndexUse>();
      await until("the reads are counted on the key index", async () => {
        use = await indexUse(db);
        return (use.get("tasks_tenant_agent_id_key")?.scans ?? 0) >= 40;
      }).catch(() => undefined);
      const byKey = use.get("tasks_tenant_agent_id_key")!;
      // A walk reads many index entries per scan; a key lookup (or one by pk) one at most.
      const walked = [...use].filter(([, u]) => u.tuples > u.scans);
      expect(walked, `index use: ${JSON.stringify([...use])}`).toEqual([]);
      expect(byKey.scans, `index use: ${JSON.stringify([...use])}`).toBeGreaterThanOrEqual(40);
      expect(byKey.tuples).toBeLessThanOrEqual(byKey.scans);
    } finally {
      await db.end();
    }
  }, 120_000);
});
