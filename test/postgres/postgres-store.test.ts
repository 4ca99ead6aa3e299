import { describe, expect, it } from "vitest";
import { TaskState } from "../../gen/a2a/v1/a2a_pb.js";
import { createPool, PostgresTaskStore, StoreFenceError, StoreUnavailableError } from "../../src/store/index.js";
import { clusterForTests, hasPostgres, noticePostgresSkip } from "../helpers/postgres-cluster.js";
import { countingPool, failedUnit, scope, unit, useStoreDatabase, writer } from "../helpers/store-writes.js";

/**
 * What only the PostgreSQL store does, beside the contract both stores keep
 * (test/unit/store/store-contract.test.ts): the fence on predicted seqs,
 * a unit in one round trip, answers that need none, and an unreachable or
 * restarted server.
 */

noticePostgresSkip("postgres/postgres-store.test.ts");

describe.skipIf(!hasPostgres)("the PostgreSQL store, beyond the contract", () => {
  let url = "";
  // Migrated once; every test starts from empty tables.
  useStoreDatabase(clusterForTests(), (u) => (url = u));

  it("fences a unit whose predicted seq the log has moved past: nothing stored, the task read again, the next write commits", async () => {
    // Hubs alone on one database: in a fleet, a task in flight is written by its owner only (unit-conflicts.test.ts).
    const mine = await PostgresTaskStore.open({ url, poolSize: 2, fleet: false });
    const theirs = await PostgresTaskStore.open({ url, poolSize: 2, fleet: false });
    try {
      await unit(mine, () => writer(mine).create("f"));
      expect(await theirs.getHead(scope, "f")).toMatchObject({ lastSeq: 1 });
      await unit(theirs, () => writer(theirs).status("f", TaskState.WORKING));
      const error = await failedUnit(mine, () => {
        writer(mine).status("f", TaskState.CANCELED);
        writer(mine).create("g");
      });
      // Written by another replica: nothing a client did wrong, and the same calls may succeed now (UNAVAILABLE).
      expect(error).toBeInstanceOf(StoreUnavailableError);
      expect((error as Error).cause).toBeInstanceOf(StoreFenceError);
      expect(String(error)).toContain("task f was written elsewhere: event 2 was predicted, the log holds 2 events");
      expect(await mine.getHead(scope, "g")).toBeUndefined();
      // Its state was unknown, so the store asked again before writing.
      expect(() => writer(mine).status("f", TaskState.CANCELED)).toThrow("was written before it was read in this process");
      mine.rollbackBatch();
      expect(await mine.getHead(scope, "f")).toMatchObject({ state: TaskState.WORKING, lastSeq: 2 });
      let seq = 0;
      await unit(mine, () => {
        seq = writer(mine).status("f", TaskState.CANCELED);
      });
      expect(seq).toBe(3);
      expect((await theirs.eventsAfter(scope, "f", 0)).map((e) => e.seq)).toEqual([1, 2, 3]);
    } finally {
      await mine.close();
      await theirs.close();
    }
  });

  it("sends a unit of create + status + artifact + status as one round trip", async () => {
    const counting = countingPool(url);
    const store = new PostgresTaskStore(counting.pool);
    try {
      // The connection is opened first, so that only the units are counted.
      await store.ping();
      const before = counting.sent();
      const w = writer(store);
      const n = 50;
      const start = performance.now();
      for (let i = 0; i < n; i++) {
        await unit(store, () => {
          w.create(`echo-${i}`);
          w.status(`echo-${i}`, TaskState.WORKING);
          w.artifact(`echo-${i}`, "out", ["echo"], { lastChunk: true });
          w.status(`echo-${i}`, TaskState.COMPLETED);
        });
      }
      const ms = (performance.now() - start) / n;
      const calls = (counting.sent() - before) / n;
      const pingStart = performance.now();
      for (let i = 0; i < n; i++) await store.ping();
      const pingMs = (performance.now() - pingStart) / n;
      console.log(
        `PostgreSQL unit of an echo (create + status + artifact + status): ${calls} round trip(s), ${ms.toFixed(2)} ms per unit (a bare SELECT 1 round trip: ${pingMs.toFixed(2)} ms)`,
      );
      expect(calls).toBe(1);
      expect((await store.listTasks(scope, { limit: 1 })).total).toBe(n);
    } finally {
      await store.close();
    }
  });

  it("answers a task a unit created and ended, once, without a round trip: a blocking send's answer (§3.2.2); any other read asks the database", async () => {
    const counting = countingPool(url);
    const store = new PostgresTaskStore(counting.pool);
    try {
      await store.ping();
      const w = writer(store);
      await unit(store, () => {
        w.create("s");
        w.status("s", TaskState.WORKING);
        w.artifact("s", "out", ["echo"], { lastChunk: true });
        w.status("s", TaskState.COMPLETED);
        w.create("open");
        w.status("open", TaskState.INPUT_REQUIRED);
      });
      const trips = async (read: () => Promise<unknown>) => {
        const before = counting.sent();
        await read();
        return counting.sent() - before;
      };
      let first: Uint8Array | undefined;
      expect(await trips(async () => (first = await store.getTaskWire(scope, "s")))).toBe(0);
      // Taken once: the next read is the database's, and the same bytes.
      let second: Uint8Array | undefined;
      expect(await trips(async () => (second = await store.getTaskWire(scope, "s")))).toBe(1);
      expect(Buffer.from(first!)).toEqual(Buffer.from(second!));
      // Interrupted, not terminal: a message on any replica may continue it.
      expect(await trips(() => store.getTaskWire(scope, "open"))).toBe(1);
      // Held by an open unit (a push config written to it): asked of the database.
      await unit(store, () => {
        w.create("held");
        w.status("held", TaskState.COMPLETED);
      });
      store.beginBatch();
      w.pushConfig("held", "c1");
      expect(await trips(() => store.getTaskWire(scope, "held"))).toBe(1);
      await store.commitBatch();
      // Released, it is still the unit's whole task, not yet answered.
      expect(await trips(() => store.getTaskWire(scope, "held"))).toBe(0);
      // A task whose life spans units is read.
      await unit(store, () => w.create("two"));
      await unit(store, () => w.status("two", TaskState.COMPLETED));
      expect(await trips(() => store.getTaskWire(scope, "two"))).toBe(1);
    } finally {
      await store.close();
    }
  });

  it("rejects with StoreUnavailableError, soon, when the database cannot be reached", async () => {
    const { port } = new URL(url);
    // A port nothing listens on: the server is down.
    const downUrl = url.replace(`:${port}/`, ":1/");
    const start = Date.now();
    await expect(PostgresTaskStore.open({ url: downUrl, connectTimeoutMs: 2000 })).rejects.toBeInstanceOf(StoreUnavailableError);
    const down = new PostgresTaskStore(createPool({ url: downUrl, connectTimeoutMs: 2000 }));
    await expect(down.ping()).rejects.toBeInstanceOf(StoreUnavailableError);
    await expect(down.getHead(scope, "x")).rejects.toThrow("the task store's database is unavailable");
    await expect(unit(down, () => writer(down).create("x"))).rejects.toBeInstanceOf(StoreUnavailableError);
    expect(Date.now() - start).toBeLessThan(10_000);
    await down.close();
  });
});

describe.skipIf(!hasPostgres)("PostgreSQL store when the server stops and comes back", () => {
  const cluster = clusterForTests();

  it("rejects with StoreUnavailableError while the server is down (no hang), and recovers by itself once it is back", async () => {
    const url = await cluster().createDatabase();
    const store = await PostgresTaskStore.open({ url, poolSize: 2, connectTimeoutMs: 2000 });
    try {
      await unit(store, () => writer(store).create("before"));
      await cluster().kill();
      const start = Date.now();
      // The pooled connection was cut: the first call learns it, the next finds no server.
      await expect(store.ping()).rejects.toBeInstanceOf(StoreUnavailableError);
      await expect(store.getHead(scope, "before")).rejects.toBeInstanceOf(StoreUnavailableError);
      await expect(unit(store, () => writer(store).status("before", TaskState.WORKING))).rejects.toBeInstanceOf(StoreUnavailableError);
      expect(Date.now() - start).toBeLessThan(15_000);
      await cluster().restart();
      // The failed unit's task was dropped from the cache: read again, then written.
      expect(await store.getHead(scope, "before")).toEqual({ id: "before", contextId: "ctx", state: TaskState.SUBMITTED, lastSeq: 1 });
      let seq = 0;
      await unit(store, () => {
        seq = writer(store).status("before", TaskState.WORKING);
      });
      expect(seq).toBe(2);
    } finally {
      await store.close();
    }
  }, 60_000);
});
