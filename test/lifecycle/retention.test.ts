import { afterAll, describe, expect, it } from "vitest";
import Database from "better-sqlite3";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DATABASE_FILE, SqliteTaskStore, type StoreScope } from "../../src/store/index.js";
import { RetentionSweep } from "../../src/lifecycle/index.js";
import { seedTasks, settleSeededDeliveries } from "../helpers/seed-tasks.js";
import { startTestHub } from "../helpers/test-hub.js";
import { AGENTS, everyOperation, listAll, listProblems, metricValue, observe, reportSweep, retentionHubOptions, retentionSeed, rpc, sendLoad, wrongAnswers } from "../helpers/retention-scenario.js";
import { TaskState } from "../../gen/a2a/v1/a2a_pb.js";

/** Retention on SQLite: what expires goes with all its rows, under load, and nothing else does. */

const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));
const tempDir = (): string => {
  const d = mkdtempSync(join(tmpdir(), "a2a-hub-retention-"));
  dirs.push(d);
  return d;
};
const DAY = 86_400_000;
const BULK = 4_000;

/** Rows of child tables that name a task no longer in `tasks`, and ledger entries naming a missing task. */
function orphanRows(db: Database.Database): Record<string, number> {
  const out: Record<string, number> = {};
  for (const t of ["history", "artifacts", "artifact_parts", "events", "push_configs", "push_outbox", "push_delivery_log"]) {
    out[t] = (db.prepare(`SELECT COUNT(*) AS n FROM ${t} WHERE task_pk NOT IN (SELECT pk FROM tasks)`).get() as { n: number }).n;
  }
  for (const t of ["sent_messages", "idempotency_keys"]) {
    out[t] = (db.prepare(`SELECT COUNT(*) AS n FROM ${t} l WHERE task_id IS NOT NULL AND NOT EXISTS (SELECT 1 FROM tasks k WHERE k.tenant = l.tenant AND k.agent = l.agent AND k.id = l.task_id)`).get() as { n: number }).n;
  }
  return out;
}

describe("retention on SQLite", { timeout: 180_000 }, () => {
  it("deletes exactly the expired tasks of every state, tenant and agent with all their rows, under load, and counters, ListTasks and metrics agree", async () => {
    const dataDir = tempDir();
    const { tasks, owing } = retentionSeed(BULK);
    const seedStart = performance.now();
    const seeding = new SqliteTaskStore({ filename: join(dataDir, DATABASE_FILE) });
    await seedTasks(seeding, tasks);
    await settleSeededDeliveries(seeding, new Set([owing]));
    seeding.close();
    const seedMs = performance.now() - seedStart;

    // The sweep's clock starts 1000 days back (nothing has expired yet), then is set right.
    let shift = 1_000 * DAY;
    const options = retentionHubOptions();
    const hub = await startTestHub({ ...options, dataDir, retention: { ...options.retention!, intervalMs: 100, now: () => Date.now() - shift } });
    const base = hub.url;
    try {
      const load = sendLoad(base, 8);
      const expected = tasks.filter((t) => t.expires).length;
      const deleted = async (): Promise<number> => {
        let n = 0;
        for (const agent of AGENTS) n += (await metricValue(base, "a2a_retention_tasks_deleted_total", `agent="${agent}"`)) ?? 0;
        return n;
      };
      // The scope the sweep empties most, its first pages: a bounded read each round.
      const list = async (): Promise<string[]> => (await listAll(base, "t1", "brief", 5)).ids;
      // The first second warms the hub up (JIT, pools): not counted.
      await new Promise((r) => setTimeout(r, 1_500));
      load.mark();
      await observe(list, deleted, (_, ms) => ms >= 3_000, 60_000);
      const without = load.mark();
      expect(await deleted()).toBe(0);
      expect(await rpc(base, "t1", "brief", "GetTask", { id: "bulk-0" })).toHaveProperty("result.id", "bulk-0");

      shift = 0;
      const sweepStart = performance.now();
      // ListTasks while the sweep deletes: no page repeats a task.
      const during = await observe(list, deleted, (n) => n >= expected, 60_000);
      const sweepMs = performance.now() - sweepStart;
      const withSweep = load.mark();
      const { ids: made } = await load.stop();
      reportSweep("SQLite", tasks.length, seedMs, expected, sweepMs, without, withSweep);
      for (const page of during) expect(new Set(page).size).toBe(page.length);
      expect(await deleted()).toBe(expected);

      // Exactly the expired ones are gone; every other seeded task and every task made under load is there.
      const wrong = await wrongAnswers(base, tasks);
      expect(wrong).toEqual([]);

      // A deleted task is TaskNotFound on every operation, on every binding.
      for (const id of ["seed-t2-brief-COMPLETED-20d", "seed-t1-keep-INPUT_REQUIRED-120d", "bulk-7"]) {
        const t = tasks.find((x) => x.id === id)!;
        const outcomes = await everyOperation(base, t.scope.tenant, t.scope.agentId, id);
        expect(Object.entries(outcomes).filter(([, o]) => o !== "not-found")).toEqual([]);
      }

      // ListTasks: every page of every scope, and its total, match a recount of what must be there.
      expect(await listProblems(base, tasks, made)).toEqual([]);
      // Metrics: the oldest task of each tenant is younger than its longest rule, and the store's size is shown.
      const oldestT2 = (await metricValue(base, "a2a_oldest_task_age_seconds", 'tenant="t2"'))!;
      expect(oldestT2).toBeGreaterThan(0);
      expect(oldestT2).toBeLessThan(90 * 86_400);
      expect(await metricValue(base, "a2a_store_size_bytes", 'part="file"')).toBeGreaterThan(0);
      expect(await metricValue(base, "a2a_store_size_bytes", 'part="wal"')).toBeGreaterThanOrEqual(0);
    } finally {
      await hub.stop();
    }

    // No row of a deleted task is left in any table, and the state counters match a recount.
    const db = new Database(join(dataDir, DATABASE_FILE), { readonly: true });
    try {
      expect(orphanRows(db)).toEqual({ history: 0, artifacts: 0, artifact_parts: 0, events: 0, push_configs: 0, push_outbox: 0, push_delivery_log: 0, sent_messages: 0, idempotency_keys: 0 });
      const counted = db.prepare(`SELECT tenant, agent, state, n FROM task_counts WHERE n <> 0 ORDER BY 1, 2, 3`).all();
      const recount = db.prepare(`SELECT tenant, agent, state, COUNT(*) AS n FROM tasks GROUP BY 1, 2, 3 ORDER BY 1, 2, 3`).all();
      expect(counted).toEqual(recount);
      // The file gave its freed pages back (a new database is created with auto_vacuum INCREMENTAL).
      expect(db.pragma("auto_vacuum", { simple: true })).toBe(2);
      expect(db.pragma("freelist_count", { simple: true })).toBeLessThan(256);
    } finally {
      db.close();
    }
  });

  it("a task a run or a stream of the hub holds is left until it is released, and then deleted", async () => {
    const dataDir = tempDir();
    const store = new SqliteTaskStore({ filename: join(dataDir, DATABASE_FILE) });
    try {
      const scope: StoreScope = { tenant: "", agentId: "echo" };
      await seedTasks(store, [
        { scope, id: "held", state: TaskState.COMPLETED, ageMs: 2 * DAY },
        { scope, id: "free", state: TaskState.COMPLETED, ageMs: 2 * DAY },
      ]);
      let held = true;
      const sweep = new RetentionSweep({ retention: store.retention, policy: { terminalAfterMs: DAY }, busy: (_, id) => held && id === "held", pauseMs: 1 });
      expect(await sweep.pass()).toBe(1);
      expect(store.getTask(scope, "free")).toBeUndefined();
      expect(store.getTask(scope, "held")?.id).toBe("held");
      held = false;
      expect(await sweep.pass()).toBe(1);
      expect(store.getTask(scope, "held")).toBeUndefined();
      expect(store.listTasks(scope, { limit: 10 }).total).toBe(0);
      await sweep.stop();
    } finally {
      store.close();
    }
  });
});
