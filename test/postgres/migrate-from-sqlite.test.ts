import Database from "better-sqlite3";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { TaskState } from "../../gen/a2a/v1/a2a_pb.js";
import { migrateToPostgres } from "../../src/lifecycle/index.js";
import { DATABASE_FILE, SqliteTaskStore, type TaskStore } from "../../src/store/index.js";
import { spawn } from "node:child_process";
import { BIN, runProcess } from "../helpers/cli-process.js";
import { withPgClient } from "../helpers/pg-client.js";
import { clusterForTests, hasPostgres, noticePostgresSkip } from "../helpers/postgres-cluster.js";
import { AGENTS, rpc, TOKENS } from "../helpers/retention-scenario.js";
import { seedTasks, type SeedTask } from "../helpers/seed-tasks.js";
import { openSse, dataEvents } from "../helpers/sse.js";
import { tenantHubOptions } from "../helpers/tenant-hub.js";
import { startTestHub, type TestHub } from "../helpers/test-hub.js";
import { startReceiver } from "../helpers/webhook-receiver.js";
import { until } from "../helpers/until.js";

noticePostgresSkip("postgres/migrate-from-sqlite.test.ts");

/** `a2a-hub migrate`: a SQLite hub moved into PostgreSQL, checked through a fleet serving it. */

const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));
const tempDir = (): string => {
  const d = mkdtempSync(join(tmpdir(), "a2a-hub-migrate-"));
  dirs.push(d);
  return d;
};

const STATES = [TaskState.COMPLETED, TaskState.FAILED, TaskState.CANCELED, TaskState.REJECTED, TaskState.INPUT_REQUIRED, TaskState.AUTH_REQUIRED];
const hubAgents = () => tenantHubOptions(TOKENS, AGENTS.map((id) => ({ id })));

/**
 * `n` settled tasks of every state over two tenants and two agents, a
 * third of them sharing their status time with another (ListTasks orders
 * those by write order), with artifacts, ledger entries of both kinds, and
 * push configs: `pending` tasks owe deliveries to `webhook`, `dead` ones
 * have given theirs up.
 */
function migrationSeed(n: number, webhook: string, pending: number, dead: number): SeedTask[] {
  return Array.from({ length: n }, (_, i) => {
    const tenant = i % 2 === 0 ? "t1" : "t2";
    const agent = AGENTS[Math.floor(i / 2) % 2]!;
    return {
      scope: { tenant, agentId: agent },
      id: `task-${i}`,
      state: STATES[i % STATES.length]!,
      ageMs: 10_000 + Math.floor(i / 3) * 1_000,
      artifacts: i % 3,
      sent: i % 4 === 0 ? ("both" as const) : i % 4 === 1,
      push: i < pending ? webhook : i < pending + dead ? true : undefined,
    };
  });
}

/** Gives up every delivery owed to the tasks in `dead`; the others stay pending. */
async function killDeliveries(store: TaskStore, dead: ReadonlySet<string>): Promise<void> {
  for (;;) {
    const due = (await store.dueDeliveries(Date.now(), 1_000)).filter((d) => dead.has(d.taskId));
    if (due.length === 0) return;
    for (const d of due) await store.deliveryFailed(d.id, undefined, "seeded: given up");
  }
}

async function seedHub(n: number, webhook: string, pending: number, dead: number): Promise<{ dir: string; tasks: SeedTask[] }> {
  const dir = tempDir();
  const tasks = migrationSeed(n, webhook, pending, dead);
  const store = new SqliteTaskStore({ filename: join(dir, DATABASE_FILE) });
  await seedTasks(store, tasks, Date.now(), 500);
  await killDeliveries(store, new Set(tasks.slice(pending, pending + dead).map((t) => t.id)));
  store.close();
  return { dir, tasks };
}

/** Every ListTasks page (full tasks: history and artifacts) of one tenant's agent, each page asked of the next hub in turn. */
async function pages(hubs: readonly TestHub[], tenant: string, agent: string): Promise<any[]> {
  const out: any[] = [];
  let pageToken = "";
  do {
    const r = await rpc(hubs[out.length % hubs.length]!.url, tenant, agent, "ListTasks", { pageSize: 100, includeArtifacts: true, ...(pageToken ? { pageToken } : {}) });
    if (r.error) throw new Error(`ListTasks: ${JSON.stringify(r.error)}`);
    out.push({ tasks: r.result.tasks, totalSize: r.result.totalSize, more: Boolean(r.result.nextPageToken) });
    pageToken = r.result.nextPageToken ?? "";
  } while (pageToken);
  return out;
}

/** SubscribeToTask with Last-Event-ID: the events logged after `after`, as ids and payloads. */
async function resume(base: string, tenant: string, agent: string, id: string, after: number): Promise<Array<{ id?: string; data: unknown }>> {
  const s = await openSse(new URL(`v1/a2a/agents/${agent}`, base).toString(), {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${TOKENS[tenant]}`, "a2a-version": "1.0", "last-event-id": String(after) },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "SubscribeToTask", params: { id } }),
  });
  if (!s.events) throw new Error(`SubscribeToTask answered ${s.status}: ${JSON.stringify(s.json)}`);
  return (await dataEvents(s.events)).map((e) => ({ id: e.id, data: e.data }));
}

describe.skipIf(!hasPostgres)("a2a-hub migrate from SQLite to PostgreSQL", { timeout: 600_000 }, () => {
  const cluster = clusterForTests();

  it("moves a hub of tens of thousands of tasks; a fleet on the target serves every task, ListTasks page, stream resume and pending push delivery as the source did", async () => {
    const receiver = await startReceiver();
    const N = 20_000;
    const PENDING = 60;
    const seedStart = performance.now();
    const { dir, tasks } = await seedHub(N, receiver.url, PENDING, 60);
    const seedMs = performance.now() - seedStart;
    const owed = (() => {
      const db = new Database(join(dir, DATABASE_FILE), { readonly: true });
      try {
        const rows = db.prepare(`SELECT t.id, o.seq, o.kind FROM push_outbox o JOIN tasks t ON t.pk = o.task_pk WHERE o.dead = 0`).all() as Array<{ id: string; seq: number; kind: number }>;
        return new Set(rows.map((r) => `${r.id}:${r.seq}:${r.kind === 1 ? "task" : "event"}`));
      } finally {
        db.close();
      }
    })();
    expect(owed.size).toBeGreaterThan(PENDING);

    const url = await cluster().createDatabase();
    const started = performance.now();
    const report = await migrateToPostgres({ from: dir, to: url });
    const migrateMs = performance.now() - started;
    console.log(`migrate: seeded ${N} tasks in ${seedMs.toFixed(0)} ms; copied and verified them in ${migrateMs.toFixed(0)} ms (${JSON.stringify(report.source)})`);
    expect(report).toMatchObject({ resumed: false, copied: N, verified: N, kept: [] });
    expect(report.target).toEqual(report.source);
    expect(report.ledger).toBe(tasks.filter((t) => t.sent).length + tasks.filter((t) => t.sent === "both").length);

    // The source hub (its webhooks to loopback refused, so it delivers nothing) and a fleet of two on the target.
    const source = await startTestHub({ ...hubAgents(), dataDir: dir });
    const fleet = [
      await startTestHub({ ...hubAgents(), store: { url }, push: { allowPrivateNetworks: true } }),
      await startTestHub({ ...hubAgents(), store: { url }, push: { allowPrivateNetworks: true } }),
    ];
    try {
      // Every task, through every ListTasks page of every tenant's agent, as the source shows it.
      for (const tenant of Object.keys(TOKENS)) {
        for (const agent of AGENTS) {
          const [before, after] = [await pages([source], tenant, agent), await pages(fleet, tenant, agent)];
          expect(after.length).toBe(before.length);
          expect(after).toEqual(before);
          expect(before.reduce((n, p) => n + p.tasks.length, 0)).toBe(tasks.filter((t) => t.scope.tenant === tenant && t.scope.agentId === agent).length);
        }
      }
      // Stream resumes with Last-Event-ID find the same events under the same ids.
      for (const t of tasks.filter((_, i) => i % 997 === 5)) {
        const theirs = await resume(source.url, t.scope.tenant, t.scope.agentId, t.id, 1);
        expect(theirs.length).toBeGreaterThan(1);
        expect(await resume(fleet[1]!.url, t.scope.tenant, t.scope.agentId, t.id, 1)).toEqual(theirs);
      }
      // Deliveries pending at the move are made by the fleet; given-up ones stay given up.
      const got = (): Set<string> => new Set(receiver.accepted.map((a) => `${a.taskId}:${a.seq}:${a.kind === "task" ? "task" : "event"}`));
      await until("the owed deliveries", async () => got().size >= owed.size, 60_000);
      expect(got()).toEqual(owed);
    } finally {
      await Promise.all([source.stop(), ...fleet.map((h) => h.stop())]);
      await receiver.close();
    }
  });

  it("an interrupted migration resumes where it stopped and verifies; a target holding other data is refused unless --merge", async () => {
    const { dir, tasks } = await seedHub(3_000, "http://127.0.0.1:9/hook", 20, 20);
    const url = await cluster().createDatabase();
    const migrate = (args: string[]) => runProcess(process.execPath, [BIN, "migrate", ...args], { timeoutMs: 180_000 });
    const imports = () => withPgClient(url, async (c) => (await c.query(`SELECT last_pk, finished_at FROM sqlite_imports`)).rows);

    // Killed (SIGKILL) once its first batch has committed: nothing after the last commit is kept.
    const child = spawn(process.execPath, [BIN, "migrate", "--from", dir, "--to", url], { stdio: ["ignore", "ignore", "pipe"] });
    child.stderr.setEncoding("utf8").on("data", (d: string) => d.includes("copied") && child.kill("SIGKILL"));
    await new Promise((r) => child.once("exit", r));
    const [killed] = await imports();
    expect(killed.finished_at).toBeNull();
    expect(Number(killed.last_pk)).toBeLessThan(tasks.length);

    // Interrupted again, in process, after one more batch.
    await expect(
      migrateToPostgres({
        from: dir,
        to: url,
        batch: 200,
        onBatch: () => {
          throw new Error("interrupted");
        },
      }),
    ).rejects.toThrow("interrupted");
    const [again] = await imports();
    expect(Number(again.last_pk)).toBe(Number(killed.last_pk) + 200);

    const resumed = await migrate(["--from", dir, "--to", url]);
    expect(resumed.stderr.replace(/copied \d+ tasks\r/g, "")).toBe("");
    expect(resumed.code).toBe(0);
    expect(resumed.stdout).toMatch(new RegExp(`^migrated \\(resumed\\): ${tasks.length - Number(again.last_pk)} tasks copied by this run, ${tasks.length} verified by checksum`));
    expect(await withPgClient(url, async (c) => (await c.query(`SELECT COUNT(*)::integer AS n FROM tasks`)).rows[0].n)).toBe(tasks.length);

    const other = await seedHub(50, "http://127.0.0.1:9/hook", 0, 0);
    const refused = await migrate(["--from", other.dir, "--to", url]);
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toContain("the target already holds data (3000 tasks and send-ledger entries)");
    // Merging, the other hub's tasks with the same ids as tasks already there are kept as the target has them.
    const merged = await migrate(["--from", other.dir, "--to", url, "--merge"]);
    expect(merged.code).toBe(0);
    expect(merged.stdout).toMatch(/^migrated: 0 tasks copied by this run, 0 verified by checksum, 50 already in the target kept/);
  });
});
