import { afterEach, describe, expect, it } from "vitest";
import { PostgresTaskStore } from "../../src/store/index.js";
import { clusterForTests, hasPostgres, noticePostgresSkip } from "../helpers/postgres-cluster.js";

/**
 * `a2a_store_pool_waiting` reads the store's poolStats(): calls waiting
 * because every connection the pool may open is busy. A call queued while
 * a connection is being opened for it (as a scrape's own query is on an
 * idle replica whose connections timed out) waits for the server, not for
 * the pool, and an alert on the gauge must not fire on an idle fleet.
 */

noticePostgresSkip("postgres-pool-waiting.test.ts");

const stores: PostgresTaskStore[] = [];
afterEach(async () => {
  for (const s of stores.splice(0)) await s.close();
});

describe.skipIf(!hasPostgres)("the PostgreSQL pool's waiting calls", () => {
  const cluster = clusterForTests();

  async function open(poolSize: number): Promise<PostgresTaskStore> {
    const store = await PostgresTaskStore.open({ url: await cluster().createDatabase(), poolSize, fleet: false });
    stores.push(store);
    return store;
  }

  it("counts no call as waiting while the pool opens a connection for it (an idle replica's scrape reads 0)", async () => {
    const store = await open(4);
    // The start-up migration's connection is idle now; hold it, so the next call needs a new one.
    const pings = [store.ping(), store.ping()];
    expect(store.poolStats().waiting).toBe(0);
    await Promise.all(pings);
    expect(store.poolStats().waiting).toBe(0);
  });

  it("counts the calls queued behind a pool whose every connection is open and busy", async () => {
    const store = await open(1);
    await store.ping();
    const pings = [store.ping(), store.ping(), store.ping()];
    // Queued at once, before the pool hands out its one (idle) connection on its next turn.
    expect(store.poolStats()).toMatchObject({ total: 1, waiting: 3 });
    await Promise.all(pings);
    expect(store.poolStats().waiting).toBe(0);
  });
});
