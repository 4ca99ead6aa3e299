import pg from "pg";
import { describe, expect, it } from "vitest";
import { TaskState } from "../../gen/a2a/v1/a2a_pb.js";
import { taskOf, textRequest } from "../helpers/messages.js";
import { clusterForTests, hasPostgres, noticePostgresSkip } from "../helpers/postgres-cluster.js";
import type { ServerProcess } from "../helpers/server-process.js";
import { until } from "../helpers/until.js";
import { testHubs } from "../helpers/test-hubs.js";

/**
 * A replica's lease (docs/postgres-fleet.md) is what keeps the others from
 * failing its runs: it must be renewed however busy the replica is, and a
 * replica that finds it ran out anyway must say so loudly.
 */

noticePostgresSkip("postgres/lease.test.ts");

const LEASE_MS = 1_000;

const hubs = testHubs();

function hubOn(url: string): Promise<ServerProcess> {
  return hubs.start({ A2A_HUB_STORE: url, A2A_HUB_STORE_LEASE_MS: String(LEASE_MS) });
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe.skipIf(!hasPostgres)("a replica's lease on PostgreSQL", () => {
  const cluster = clusterForTests();

  it("is renewed on a connection of its own: with every pooled connection stuck behind a lock, the lease never runs out and the replica's run is not failed", async () => {
    const url = await cluster().createDatabase();
    const hub = await hubOn(url);
    const client = hub.client("grpc");
    const slow = taskOf(await client.sendMessage(textRequest("slow 60000", { configuration: { returnImmediately: true } }))).id;
    await until("the slow task is WORKING", async () => (await client.getTask({ id: slow })).status?.state === TaskState.WORKING);

    const locker = new pg.Client({ connectionString: url });
    const watcher = new pg.Client({ connectionString: url });
    await locker.connect();
    await watcher.connect();
    try {
      // Every read of a task now waits for the lock: more reads than the pool has connections fill it.
      await locker.query("BEGIN");
      await locker.query("LOCK TABLE tasks IN ACCESS EXCLUSIVE MODE");
      const stuck = Array.from({ length: 16 }, () => client.getTask({ id: slow }).catch(() => undefined));
      await until("the pool is full of waiting reads", async () => {
        const { rows } = await watcher.query<{ n: number }>("SELECT count(*)::integer AS n FROM pg_locks WHERE relation = 'tasks'::regclass AND NOT granted");
        return rows[0]!.n >= 10;
      });
      const left: number[] = [];
      for (let i = 0; i < 8; i++) {
        await sleep(LEASE_MS / 2);
        const { rows } = await watcher.query<{ ms: number }>("SELECT (extract(epoch FROM expires_at - now()) * 1000)::integer AS ms FROM replicas");
        left.push(...rows.map((r) => r.ms));
      }
      expect(Math.min(...left), `lease left, ms, every half lease for four leases: ${left.join(", ")}`).toBeGreaterThan(0);
      await locker.query("COMMIT");
      await Promise.all(stuck);
    } finally {
      await locker.end().catch(() => undefined);
      await watcher.end();
    }
    // The run was never taken for an orphan's: it is still WORKING, and the replica logged no error.
    expect((await client.getTask({ id: slow })).status?.state).toBe(TaskState.WORKING);
    expect(hub.stderr().split("\n").filter((l) => l.includes('"level":"error"'))).toEqual([]);
  });

  it("that ran out while the replica lived (stopped for longer than the lease) is logged as an error when the replica renews it", async () => {
    const url = await cluster().createDatabase();
    const hub = await hubOn(url);
    hub.signal("SIGSTOP");
    await sleep(LEASE_MS * 2.5);
    hub.signal("SIGCONT");
    await until("the replica says its lease ran out", async () => hub.stderr().includes("lease had run out before it was renewed"), 10_000);
    const line = hub.stderr().split("\n").find((l) => l.includes("lease had run out"))!;
    expect(JSON.parse(line)).toMatchObject({ level: "error" });
  });
});
