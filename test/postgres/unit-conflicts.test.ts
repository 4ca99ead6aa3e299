import { create } from "@bufbuild/protobuf";
import { StreamResponseSchema, TaskSchema, TaskState, TaskStatusSchema } from "../../gen/a2a/v1/a2a_pb.js";
import pg from "pg";
import { describe, expect, it } from "vitest";
import { PostgresTaskStore, type StoreScope } from "../../src/store/index.js";
import { clusterForTests, hasPostgres, noticePostgresSkip } from "../helpers/postgres-cluster.js";
import { failedUnit, unit } from "../helpers/store-writes.js";

/**
 * Two replicas commit units on one database at once. Each unit moves the
 * shared per-state task counters (task_counts, one row per tenant, agent
 * and state); were the rows taken in the order the unit's writes come,
 * two units taking them in opposite orders would deadlock (the server
 * breaks it after a second by rolling one back, and its callers would
 * hear INTERNAL). The unit statement takes them up front in one order;
 * and since schema 5 each connection counts in a shard of its own, so
 * that units on different connections seldom meet there at all.
 *
 * A replica also writes tasks another replica wrote last (a continuation
 * of an interrupted task, a sweep failing a dead replica's tasks): what it
 * predicts the next seq from must be what it read just before, even when a
 * commit of its own settled while that read was out (on a busy replica,
 * almost every read). A replica taken for dead (its lease ran out) cannot
 * write a task in flight once another replica has claimed it: a statement
 * it sent before it died may still reach the database after the claim.
 */

noticePostgresSkip("postgres/unit-conflicts.test.ts");

const scope: StoreScope = { tenant: "t", agentId: "echo" };
const ROUNDS = 20;
const PER_ROUND = 60;

function createTask(store: PostgresTaskStore, id: string): void {
  const status = create(TaskStatusSchema, { state: TaskState.SUBMITTED });
  const task = create(TaskSchema, { id, contextId: "ctx", status });
  store.createTask(scope, { id, contextId: "ctx", status, history: [] }, create(StreamResponseSchema, { payload: { case: "task", value: task } }));
}

function moveTo(store: PostgresTaskStore, id: string, state: TaskState): void {
  const status = create(TaskStatusSchema, { state });
  store.setStatus(scope, id, status, create(StreamResponseSchema, { payload: { case: "statusUpdate", value: { taskId: id, contextId: "ctx", status } } }));
}

/** Lets a test hold back the pool's answers to reads of a task's head (HEAD_BY_KEY) once the database gave them. */
function holdHeadReads(pool: pg.Pool): { hold(): void; release(): void } {
  let held: Promise<void> | undefined;
  let go: (() => void) | undefined;
  const query = pool.query.bind(pool) as (config: pg.QueryConfig) => Promise<pg.QueryResult>;
  // The store calls query(config) only.
  pool.query = ((config: pg.QueryConfig) => {
    const answer = query(config);
    const wait = held;
    if (!wait || !config.text.includes("AS elsewhere")) return answer;
    return answer.then(async (r) => {
      await wait;
      return r;
    });
  }) as typeof pool.query;
  return {
    hold: () => void (held = new Promise((resolve) => (go = resolve))),
    release: () => {
      go?.();
      held = undefined;
    },
  };
}

/**
 * One replica's rounds: each unit creates tasks, starts last round's and
 * completes the round's before; `reversed` takes the counters the other
 * way round (COMPLETED, WORKING, SUBMITTED instead of SUBMITTED, WORKING,
 * COMPLETED).
 */
async function replica(store: PostgresTaskStore, name: string, reversed: boolean): Promise<void> {
  const ids = (r: number) => Array.from({ length: PER_ROUND }, (_, i) => `${name}-${r}-${i}`);
  for (let r = 0; r < ROUNDS + 2; r++) {
    const steps = [
      () => r < ROUNDS && ids(r).forEach((id) => createTask(store, id)),
      () => r >= 1 && r <= ROUNDS && ids(r - 1).forEach((id) => moveTo(store, id, TaskState.WORKING)),
      () => r >= 2 && ids(r - 2).forEach((id) => moveTo(store, id, TaskState.COMPLETED)),
    ];
    store.beginBatch();
    for (const step of reversed ? steps.reverse() : steps) step();
    await store.commitBatch();
  }
}

describe.skipIf(!hasPostgres)("units of two replicas at once", () => {
  const cluster = clusterForTests();

  it("commit, each of them, without a deadlock, though their writes move the shared task counters in opposite orders", async () => {
    const url = await cluster().createDatabase();
    const a = await PostgresTaskStore.open({ url, poolSize: 2, fleet: false });
    const b = await PostgresTaskStore.open({ url, poolSize: 2, fleet: false });
    try {
      await Promise.all([replica(a, "a", false), replica(b, "b", true)]);
      // The counters are right too: what ListTasks totals from them.
      expect((await a.listTasks(scope, { state: TaskState.COMPLETED, limit: 1 })).total).toBe(2 * ROUNDS * PER_ROUND);
      expect((await a.listTasks(scope, { state: TaskState.WORKING, limit: 1 })).total).toBe(0);
      for (const id of ["a-0-0", `b-${ROUNDS - 1}-${PER_ROUND - 1}`]) expect((await b.getHead(scope, id))?.state).toBe(TaskState.COMPLETED);
    } finally {
      await a.close();
      await b.close();
    }
    expect(cluster().log()).not.toContain("deadlock detected");
  }, 60_000);

  it("count their tasks in the shard of their connection: one holding its counter rows does not hold up another on a connection of another shard", async () => {
    const url = await cluster().createDatabase();
    await (await PostgresTaskStore.open({ url, poolSize: 1, fleet: false })).close();
    const clients: pg.Client[] = [];
    const connect = async () => {
      const c = new pg.Client({ connectionString: url });
      await c.connect();
      clients.push(c);
      return { c, shard: (await c.query<{ s: number }>("SELECT a2a_counter_shard() AS s")).rows[0]!.s };
    };
    // Each task in a context of its own: tasks of one context share its counter row (schema 6).
    const insert = (c: pg.Client, id: string) =>
      c.query(`INSERT INTO tasks (tenant, agent, id, context_id, state, status, status_ms, last_seq, history_count, artifact_count, created_ms)
               VALUES ('t', 'echo', $1, $1, $2, '\\x0801', 1, 1, 0, 0, 1)`, [id, TaskState.SUBMITTED]);
    try {
      const first = await connect();
      let other = await connect();
      while (other.shard === first.shard) other = await connect();
      await first.c.query("BEGIN");
      await insert(first.c, "held");
      // Before schema 5 both counted in one row, held by the open transaction until it ends.
      await other.c.query("SET lock_timeout = '2s'");
      await insert(other.c, "free");
      await first.c.query("UPDATE tasks SET state = $1 WHERE id = 'held'", [TaskState.COMPLETED]);
      await first.c.query("COMMIT");
      const totals = await other.c.query<{ state: number; n: number }>(
        "SELECT state, SUM(n)::integer AS n FROM task_counts WHERE tenant = 't' GROUP BY state HAVING SUM(n) <> 0 ORDER BY state",
      );
      expect(totals.rows).toEqual([
        { state: TaskState.SUBMITTED, n: 1 },
        { state: TaskState.COMPLETED, n: 1 },
      ]);
    } finally {
      for (const c of clients) await c.end();
    }
  });

  it("predict from a read that spanned a commit of their own, when it found a task the other replica wrote since", async () => {
    const url = await cluster().createDatabase();
    const a = await PostgresTaskStore.open({ url, poolSize: 2, fleet: false });
    const pool = new pg.Pool({ connectionString: url, max: 2 });
    const reads = holdHeadReads(pool);
    const b = new PostgresTaskStore(pool);
    try {
      await unit(a, () => createTask(a, "x"));
      await unit(a, () => moveTo(a, "x", TaskState.WORKING));
      expect((await b.getHead(scope, "x"))?.lastSeq).toBe(2);
      // The task's run on a ends interrupted: b's entry is now one event behind.
      await unit(a, () => moveTo(a, "x", TaskState.INPUT_REQUIRED));
      reads.hold();
      const read = b.getHead(scope, "x");
      await unit(b, () => createTask(b, "y"));
      reads.release();
      expect((await read)?.lastSeq).toBe(3);
      // The continuation, on b: its event is the log's fourth.
      await unit(b, () => moveTo(b, "x", TaskState.WORKING));
      expect(await a.getHead(scope, "x")).toMatchObject({ state: TaskState.WORKING, lastSeq: 4 });
    } finally {
      await a.close();
      await b.close();
    }
  }, 60_000);

  it("refuse a replica's write to a task in flight that another replica claimed after its lease ran out, and take the claimer's", async () => {
    const url = await cluster().createDatabase();
    // Leases long enough that neither renews during the test: the database's clock is moved by hand.
    const a = await PostgresTaskStore.open({ url, poolSize: 2, fleet: { leaseMs: 60_000 } });
    const b = await PostgresTaskStore.open({ url, poolSize: 2, fleet: { leaseMs: 60_000 } });
    const sql = new pg.Client({ connectionString: url });
    await sql.connect();
    try {
      await unit(a, () => createTask(a, "x"));
      await unit(a, () => moveTo(a, "x", TaskState.WORKING));
      await sql.query("UPDATE replicas SET expires_at = now() - interval '1 second' WHERE id = $1", [a.fleet!.replica]);
      expect((await b.fleet!.sweep()).map((t) => t.taskId)).toEqual(["x"]);
      // What a's run wrote last, reaching the database only after the claim (a statement of a replica killed meanwhile, say).
      const late = await failedUnit(a, () => moveTo(a, "x", TaskState.COMPLETED));
      expect(String(late)).toContain(`store: task x is run by replica ${b.fleet!.replica} since this one's lease ran out`);
      // The sweep's FAILED, predicted from the claim, is the log's third event.
      await unit(b, () => moveTo(b, "x", TaskState.FAILED));
      expect(await b.getHead(scope, "x")).toMatchObject({ state: TaskState.FAILED, lastSeq: 3 });
    } finally {
      await sql.end();
      await a.close();
      await b.close();
    }
  }, 60_000);
});
