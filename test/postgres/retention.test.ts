import { describe, expect, it } from "vitest";
import { TaskState } from "../../gen/a2a/v1/a2a_pb.js";
import { PostgresTaskStore, type StoreScope } from "../../src/store/index.js";
import { withPgClient } from "../helpers/pg-client.js";
import { clusterForTests, hasPostgres, noticePostgresSkip } from "../helpers/postgres-cluster.js";
import { seedTasks, settleSeededDeliveries } from "../helpers/seed-tasks.js";
import { startTestHub } from "../helpers/test-hub.js";
import { AGENTS, everyOperation, listAll, listProblems, metricValue, observe, reportSweep, retentionHubOptions, retentionSeed, sendLoad, wrongAnswers } from "../helpers/retention-scenario.js";

noticePostgresSkip("postgres/retention.test.ts");

/** Retention on PostgreSQL: a fleet of two hubs on one database, one sweeping at a time. */

const DAY = 86_400_000;
const BULK = 2_000;
const RETENTION_LOCK = "27358465695970659";

describe.skipIf(!hasPostgres)("retention on PostgreSQL", { timeout: 240_000 }, () => {
  const cluster = clusterForTests();

  it("a fleet of two deletes exactly the expired tasks with all their rows, under load, and counters, ListTasks and metrics agree", async () => {
    const url = await cluster().createDatabase();
    const { tasks, owing } = retentionSeed(BULK);
    const seedStart = performance.now();
    const seeding = await PostgresTaskStore.open({ url, fleet: false });
    await seedTasks(seeding, tasks);
    await settleSeededDeliveries(seeding, new Set([owing]));
    await seeding.close();
    const seedMs = performance.now() - seedStart;

    let shift = 1_000 * DAY;
    const options = retentionHubOptions();
    const retention = { ...options.retention!, intervalMs: 100, now: () => Date.now() - shift };
    const a = await startTestHub({ ...options, store: { url }, retention });
    const b = await startTestHub({ ...options, store: { url }, retention });
    try {
      const load = sendLoad(a.url, 8);
      const expected = tasks.filter((t) => t.expires).length;
      const deleted = async (): Promise<number> => {
        let n = 0;
        for (const hub of [a, b]) for (const agent of AGENTS) n += (await metricValue(hub.url, "a2a_retention_tasks_deleted_total", `agent="${agent}"`)) ?? 0;
        return n;
      };
      // The scope the sweep empties most, its first pages: a bounded read each round.
      const list = async (): Promise<string[]> => (await listAll(b.url, "t1", "brief", 5)).ids;
      // The first second warms the hubs up (JIT, pools): not counted.
      await new Promise((r) => setTimeout(r, 1_500));
      load.mark();
      await observe(list, deleted, (_, ms) => ms >= 3_000, 120_000);
      const without = load.mark();
      expect(await deleted()).toBe(0);
      shift = 0;
      const sweepStart = performance.now();
      const during = await observe(list, deleted, (n) => n >= expected, 120_000);
      const sweepMs = performance.now() - sweepStart;
      const withSweep = load.mark();
      const { ids: made } = await load.stop();
      reportSweep("PostgreSQL, 2 replicas", tasks.length, seedMs, expected, sweepMs, without, withSweep);
      expect(await deleted()).toBe(expected);
      for (const page of during) expect(new Set(page).size).toBe(page.length);

      expect(await wrongAnswers(b.url, tasks)).toEqual([]);
      for (const id of ["seed-t2-brief-COMPLETED-20d", "seed-t1-keep-AUTH_REQUIRED-120d", "bulk-11"]) {
        const t = tasks.find((x) => x.id === id)!;
        for (const hub of [a, b]) {
          const outcomes = await everyOperation(hub.url, t.scope.tenant, t.scope.agentId, id);
          expect(Object.entries(outcomes).filter(([, o]) => o !== "not-found")).toEqual([]);
        }
      }
      expect(await listProblems(b.url, tasks, made)).toEqual([]);
      expect(await metricValue(a.url, "a2a_oldest_task_age_seconds", 'tenant="t2"')).toBeLessThan(90 * 86_400);
      expect(await metricValue(a.url, "a2a_store_size_bytes", 'part="events"')).toBeGreaterThan(0);
    } finally {
      await a.stop();
      await b.stop();
    }

    await withPgClient(url, async (c) => {
      const orphans: Record<string, number> = {};
      for (const t of ["history", "artifacts", "artifact_parts", "events", "push_configs", "push_outbox", "push_delivery_log"]) {
        orphans[t] = (await c.query(`SELECT COUNT(*)::integer AS n FROM ${t} WHERE task_pk NOT IN (SELECT pk FROM tasks)`)).rows[0].n;
      }
      for (const t of ["sent_messages", "idempotency_keys"]) {
        orphans[t] = (await c.query(`SELECT COUNT(*)::integer AS n FROM ${t} l WHERE task_id IS NOT NULL AND NOT EXISTS (SELECT 1 FROM tasks k WHERE k.tenant = l.tenant AND k.agent = l.agent AND k.id = l.task_id)`)).rows[0].n;
      }
      expect(orphans).toEqual({ history: 0, artifacts: 0, artifact_parts: 0, events: 0, push_configs: 0, push_outbox: 0, push_delivery_log: 0, sent_messages: 0, idempotency_keys: 0 });
      const counted = (await c.query(`SELECT tenant, agent, state, SUM(n)::integer AS n FROM task_counts GROUP BY 1, 2, 3 HAVING SUM(n) <> 0 ORDER BY 1, 2, 3`)).rows;
      const recount = (await c.query(`SELECT tenant, agent, state, COUNT(*)::integer AS n FROM tasks GROUP BY 1, 2, 3 ORDER BY 1, 2, 3`)).rows;
      expect(counted).toEqual(recount);
      // The per-context counters behind a filtered ListTasks' total (schema 6) agree too, emptied contexts gone.
      const byContext = (await c.query(`SELECT tenant, agent, context_id, n::integer AS n FROM task_context_counts ORDER BY 1, 2, 3`)).rows;
      const recountByContext = (await c.query(`SELECT tenant, agent, context_id, COUNT(*)::integer AS n FROM tasks GROUP BY 1, 2, 3 ORDER BY 1, 2, 3`)).rows;
      expect(byContext).toEqual(recountByContext);
    });
  });

  it("while another replica sweeps (holds the retention lock), a replica's delete deletes nothing; once it is free, the task goes", async () => {
    const url = await cluster().createDatabase();
    const store = await PostgresTaskStore.open({ url, fleet: false });
    try {
      const scope: StoreScope = { tenant: "", agentId: "echo" };
      await seedTasks(store, [{ scope, id: "old", state: TaskState.COMPLETED, ageMs: 2 * DAY }]);
      const cutoffs = { terminalBeforeMs: Date.now() - DAY };
      expect(await store.retention.expired(scope, cutoffs, 10)).toEqual(["old"]);
      await withPgClient(url, async (other) => {
        await other.query("SELECT pg_advisory_lock($1::bigint)", [RETENTION_LOCK]);
        expect(await store.retention.delete(scope, cutoffs, ["old"])).toEqual([]);
        await other.query("SELECT pg_advisory_unlock($1::bigint)", [RETENTION_LOCK]);
      });
      expect(await store.retention.delete(scope, cutoffs, ["old"])).toEqual(["old"]);
      expect(await store.getTask(scope, "old")).toBeUndefined();
      expect((await store.listTasks(scope, { limit: 10 })).total).toBe(0);
    } finally {
      await store.close();
    }
  });
});
