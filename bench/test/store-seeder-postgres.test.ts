import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import { BinaryWriter } from "@bufbuild/protobuf/wire";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TaskState } from "a2a-hub";
import { clusterForTests, hasPostgres, noticePostgresSkip } from "../../test/helpers/postgres-cluster.js";
import { a2aClient, sampleSendMessage } from "../harness/a2a-clients.js";
import { sqlTemplate, varint5 } from "../harness/bytes-template.js";
import type { CpuPinning } from "../harness/cpu-pinning.js";
import { startHubChild } from "../harness/servers-under-test.js";
import { seedPostgresTasks } from "../harness/store-seeder-postgres.js";
import { postgresQuery } from "../measures/store-scale-postgres.js";
import { listingLayout, PAGE_SIZE } from "../measures/store-listing.js";

noticePostgresSkip("bench/test/store-seeder-postgres.test.ts");

const UNPINNED: CpuPinning = { server: [], loader: [], description: "not pinned" };

describe("bytes templates", () => {
  it("write a five-byte varint as protobuf does, and refuse a value of another width", () => {
    for (const v of [2n ** 28n, 1_796_611_553n, 999_000_000n, 2n ** 35n - 1n]) {
      expect([...varint5(v)]).toEqual([...new BinaryWriter().uint64(v).finish()]);
    }
    expect(() => varint5(2n ** 28n - 1n)).toThrow("not five bytes long");
  });

  it("are the message's bytes with every marker, wherever it occurs, replaced by its SQL", () => {
    const bytes = Uint8Array.of(1, 0xaa, 0xaa, 2, 0xaa, 0xaa, 0xbb, 3);
    const sql = sqlTemplate(bytes, [
      { marker: Uint8Array.of(0xaa, 0xaa), sql: "x" },
      { marker: Uint8Array.of(0xbb), sql: "y" },
      { marker: Uint8Array.of(0xcc), sql: "absent" },
    ]);
    expect(sql).toBe(`'\\x01'::bytea || (x) || '\\x02'::bytea || (x) || (y) || '\\x03'::bytea`);
    expect(() => sqlTemplate(bytes, [{ marker: Uint8Array.of(0xaa, 0xaa), sql: "x" }, { marker: Uint8Array.of(0xaa, 2), sql: "z" }])).toThrow("overlap");
  });
});

describe.skipIf(!hasPostgres)("the PostgreSQL store seeder", () => {
  const cluster = clusterForTests();
  // The harness names the hub's entry from the repository root, where `npm run bench` runs it.
  beforeAll(() => process.chdir(fileURLToPath(new URL("../..", import.meta.url))));
  const dirs: string[] = [];
  afterAll(() => {
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  });
  const dataDir = () => {
    const d = mkdtempSync(join(tmpdir(), "a2a-hub-bench-seed-"));
    dirs.push(d);
    return d;
  };

  it("seeds tasks a hub lists newest first with the right totals, pages to the layout's deep point, and reads whole", async () => {
    const url = await cluster().createDatabase();
    const env = { A2A_HUB_STORE: url };
    let hub = await startHubChild(UNPINNED, dataDir(), { env });
    await sampleSendMessage(a2aClient(hub.url), 1);
    await hub.child.stop();

    const n = 6_789;
    const seeded = await seedPostgresTasks(url, n, () => undefined);
    const db = new pg.Client({ connectionString: url });
    await db.connect();
    const layout = await listingLayout(postgresQuery(db), seeded).finally(() => db.end());
    expect(layout.total).toBe(n + 1);
    // Task i is in context i mod 100: the first context holds tasks 0, 100, ..., 6700.
    expect(layout.totalInContext).toBe(68);

    hub = await startHubChild(UNPINNED, dataDir(), { env });
    try {
      const client = a2aClient(hub.url);
      const first = await client.listTasks({ pageSize: PAGE_SIZE });
      expect(first.totalSize).toBe(n + 1);
      // The hub's own task is the newest; then the seeded ones, the last seeded first.
      expect(first.tasks[1]?.history[0]?.parts[0]?.content.value).toBe(`seed ${String(n - 1).padStart(7, "0")}`);
      const filtered = await client.listTasks({ pageSize: PAGE_SIZE, contextId: layout.contextId });
      expect([filtered.totalSize, filtered.tasks.length]).toEqual([68, PAGE_SIZE]);
      expect(filtered.tasks.every((t) => t.contextId === layout.contextId)).toBe(true);
      const rest = await client.listTasks({ pageSize: PAGE_SIZE, contextId: layout.contextId, pageToken: filtered.nextPageToken });
      expect([rest.totalSize, rest.tasks[0]?.id, rest.tasks.length]).toEqual([68, layout.deepInContext.firstId, 18]);

      let page = first;
      for (let position = PAGE_SIZE; position < layout.deep.position; position += PAGE_SIZE) {
        page = await client.listTasks({ pageSize: PAGE_SIZE, pageToken: page.nextPageToken });
        expect(page.totalSize).toBe(n + 1);
      }
      page = await client.listTasks({ pageSize: PAGE_SIZE, pageToken: page.nextPageToken });
      expect(page.tasks[0]?.id).toBe(layout.deep.firstId);

      const task = await client.getTask({ id: layout.deep.firstId });
      expect(task.status?.state).toBe(TaskState.COMPLETED);
      const text = task.history[0]?.parts[0]?.content.value;
      expect(text).toMatch(/^seed \d{7}$/);
      expect(task.artifacts.map((a) => [a.artifactId, a.parts[0]?.content.value])).toEqual([["echo", text]]);
    } finally {
      await hub.child.stop();
    }
  }, 120_000);
});
