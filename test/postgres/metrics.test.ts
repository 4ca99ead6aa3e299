import { describe, expect, it } from "vitest";
import { userMessage } from "../helpers/json-messages.js";
import { call } from "../helpers/jsonrpc-requests.js";
import { clusterForTests, hasPostgres, noticePostgresSkip } from "../helpers/postgres-cluster.js";
import { testHubs } from "../helpers/test-hubs.js";

/**
 * The store metrics on the PostgreSQL store: the pool's connections
 * and waits beside the unit-of-work series every store has. A hub on SQLite
 * has no pool and shows no pool series.
 */

noticePostgresSkip("postgres/metrics.test.ts");

const hubs = testHubs();

/** The value of one sample line of a Prometheus exposition, or undefined when the series is absent. */
function sample(text: string, series: string): number | undefined {
  const line = text.split("\n").find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

describe.skipIf(!hasPostgres)("metrics of a hub on PostgreSQL", () => {
  const cluster = clusterForTests();

  it("show the pool's open and idle connections and the calls waiting for one, beside the units of work", async () => {
    const hub = await hubs.start({ A2A_HUB_STORE: await cluster().createDatabase() });
    for (let i = 0; i < 5; i++) expect((await call(hub.url, "SendMessage", { message: userMessage(`count ${i}`) })).task.status.state).toBe("TASK_STATE_COMPLETED");
    const text = await (await fetch(`${hub.url}metrics`)).text();
    const open = sample(text, 'a2a_store_pool_connections{state="open"}');
    const idle = sample(text, 'a2a_store_pool_connections{state="idle"}');
    expect(open).toBeGreaterThanOrEqual(1);
    expect(idle).toBeGreaterThanOrEqual(0);
    expect(idle).toBeLessThanOrEqual(open!);
    // Only the scrape's own outbox query may be waiting (for a connection the pool is opening).
    const waiting = sample(text, "a2a_store_pool_waiting");
    expect(waiting).toBeGreaterThanOrEqual(0);
    expect(waiting).toBeLessThanOrEqual(1);
    expect(sample(text, "a2a_store_unit_of_work_seconds_count")).toBeGreaterThanOrEqual(1);
  });
});

describe("metrics of a hub on SQLite", () => {
  it("have no pool series", async () => {
    const hub = await hubs.start();
    await call(hub.url, "SendMessage", { message: userMessage("hello") });
    const text = await (await fetch(`${hub.url}metrics`)).text();
    expect(text).not.toContain("a2a_store_pool_connections{");
    expect(sample(text, "a2a_store_pool_waiting")).toBeUndefined();
    expect(sample(text, "a2a_store_unit_of_work_seconds_count")).toBeGreaterThanOrEqual(1);
  });
});
