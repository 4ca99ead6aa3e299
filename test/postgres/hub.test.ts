import { existsSync } from "node:fs";
import { join } from "node:path";
import pg from "pg";
import { describe, expect, it } from "vitest";
import { Code } from "@connectrpc/connect";
import { Role, TaskState } from "../../gen/a2a/v1/a2a_pb.js";
import { parseCli } from "../../src/cli/index.js";
import { buildConfig } from "../../src/server/index.js";
import type { ConfigSource } from "../../src/server/config/index.js";
import { userMessage } from "../helpers/json-messages.js";
import { call, openRpcStream, post, rpc } from "../helpers/jsonrpc-requests.js";
import { textOf } from "../helpers/message-text.js";
import { collect, firstTask, kinds, taskOf, textRequest } from "../helpers/messages.js";
import { clusterForTests, hasPostgres, noticePostgresSkip } from "../helpers/postgres-cluster.js";
import type { ServerProcess } from "../helpers/server-process.js";
import { openStream, rest } from "../helpers/rest.js";
import { dataEvents } from "../helpers/sse.js";
import { describeEvent, startReceiver, streamDeliveries } from "../helpers/webhook-receiver.js";
import { until } from "../helpers/until.js";
import { testHubs } from "../helpers/test-hubs.js";

/**
 * The hub as `npm start -- --store postgres://…` runs it (A2A_HUB_STORE
 * here): every call a client makes answered from PostgreSQL, over
 * JSON-RPC, gRPC and REST, and a restart on the same database (after a crash)
 * finding every acknowledged task.
 */

noticePostgresSkip("postgres/hub.test.ts");

const hubs = testHubs();

/** Starts a hub process on the database at `url`; its --data directory must stay unused. */
function hubOn(url: string): Promise<ServerProcess> {
  // A short lease: a killed hub's tasks in flight are failed within about 1.3 s of its last renewal.
  return hubs.start({ A2A_HUB_STORE: url, A2A_HUB_STORE_LEASE_MS: String(LEASE_MS) });
}

const LEASE_MS = 1_000;

async function rows(url: string, sql: string, values: unknown[] = []): Promise<Array<Record<string, unknown>>> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    return (await c.query(sql, values)).rows;
  } finally {
    await c.end();
  }
}

describe("the store URL", () => {
  it("is checked at start, naming where it came from", () => {
    expect(() => parseCli(["serve", "--store", "mysql://db/x"], {})).toThrow("--store: the store URL must begin with postgres:// or postgresql://, not mysql://");
    expect(() => parseCli(["serve"], { A2A_HUB_STORE: "nonsense" })).toThrow("A2A_HUB_STORE: the store URL is not a URL");
    const cli = parseCli(["serve", "--store", "postgres://u@db:5432/a2a"], {});
    expect(cli.command === "serve" && cli.config.store).toEqual({ url: "postgres://u@db:5432/a2a", poolSize: undefined });
    // Without one the hub stays on SQLite.
    expect(buildConfig(undefined, {}).store).toBeUndefined();
  });

  it("comes from the config file's store: { url, poolSize }, the flag and variable winning over it", () => {
    const file = (store: unknown): ConfigSource => ({ file: "hub.yaml", data: { store }, lineOf: () => 3 });
    expect(buildConfig(file({ url: "postgresql://db/a2a?sslmode=require", poolSize: 4 }), {}).store).toEqual({ url: "postgresql://db/a2a?sslmode=require", poolSize: 4 });
    expect(buildConfig(file({ url: "postgres://db/a", poolSize: 4 }), { A2A_HUB_STORE: "postgres://other/b" }).store).toEqual({ url: "postgres://other/b", poolSize: 4 });
    expect(() => buildConfig(file({ poolSize: 4 }), {})).toThrow("store.poolSize: needs a store URL too (store.url, --store or A2A_HUB_STORE)");
    expect(() => buildConfig(file({ url: "postgres://db/a", poolSize: 0 }), {})).toThrow("store.poolSize");
    expect(() => buildConfig(file({ url: "postgres://db/a", pool: 4 }), {})).toThrow("store.pool");
    expect(() => buildConfig(file({ url: "sqlite:///tmp/x" }), {})).toThrow("store.url: the store URL must begin with postgres:// or postgresql://");
  });
});

describe.skipIf(!hasPostgres)("a hub on PostgreSQL", () => {
  const cluster = clusterForTests();

  it("serves send, stream, get, list, subscribe and cancel over JSON-RPC and gRPC; /readyz pings the database", async () => {
    const url = await cluster().createDatabase();
    const hub = await hubOn(url);
    const grpc = hub.client("grpc");

    // JSON-RPC: a send, a stream.
    const sent = await call(hub.url, "SendMessage", { message: userMessage("hello postgres") });
    expect(sent.task.status.state).toBe("TASK_STATE_COMPLETED");
    expect(sent.task.artifacts[0].parts[0].text).toBe("hello postgres");
    const streamed = await dataEvents((await openRpcStream(hub.url, "SendStreamingMessage", { message: userMessage("stream 3") })).events!);
    expect(streamed.map((e) => Object.keys(e.data.result)[0])).toEqual(["task", "statusUpdate", "artifactUpdate", "artifactUpdate", "artifactUpdate", "statusUpdate"]);
    const streamedId: string = streamed[0]!.data.result.task.id;

    // gRPC: a send, a stream, reads of both bindings' tasks.
    const viaGrpc = taskOf(await grpc.sendMessage(textRequest("hello over grpc")));
    expect(viaGrpc.status?.state).toBe(TaskState.COMPLETED);
    const events = await collect(grpc.sendStreamingMessage(textRequest("stream 2")));
    expect(kinds(events)).toEqual(["task", "statusUpdate", "artifactUpdate", "artifactUpdate", "statusUpdate"]);
    const got = await grpc.getTask({ id: sent.task.id });
    expect(got.artifacts[0]?.parts[0]?.content.value).toBe("hello postgres");
    expect(got.history.find((m) => m.role === Role.USER && textOf(m) === "hello postgres")).toBeDefined();
    const streamedTask = await call(hub.url, "GetTask", { id: streamedId });
    expect(streamedTask.artifacts).toHaveLength(1);
    expect(streamedTask.artifacts[0].parts).toHaveLength(3);
    const listed = await grpc.listTasks({ pageSize: 2 });
    expect(listed.totalSize).toBe(4);
    expect(listed.tasks).toHaveLength(2);
    expect(listed.nextPageToken).not.toBe("");
    const rest = await grpc.listTasks({ pageSize: 10, pageToken: listed.nextPageToken });
    expect([...listed.tasks, ...rest.tasks].map((t) => t.id).sort()).toEqual([sent.task.id, streamedId, viaGrpc.id, firstTask(events).id].sort());

    // Cancel over gRPC, seen by a JSON-RPC subscriber; cancel over JSON-RPC.
    const slow = taskOf(await grpc.sendMessage(textRequest("slow 60000", { configuration: { returnImmediately: true } })));
    const watching = await openRpcStream(hub.url, "SubscribeToTask", { id: slow.id });
    const watched = dataEvents(watching.events!);
    const canceled = await grpc.cancelTask({ id: slow.id });
    expect(canceled.status?.state).toBe(TaskState.CANCELED);
    const seen = await watched;
    expect(seen.at(-1)!.data.result.statusUpdate.status.state).toBe("TASK_STATE_CANCELED");
    const slow2 = await call(hub.url, "SendMessage", { message: userMessage("slow 60000"), configuration: { returnImmediately: true } });
    const canceled2 = await call(hub.url, "CancelTask", { id: slow2.task.id });
    expect(canceled2.status.state).toBe("TASK_STATE_CANCELED");
    expect((await grpc.getTask({ id: slow2.task.id })).status?.state).toBe(TaskState.CANCELED);

    const ready = await fetch(`${hub.url}readyz`);
    expect(ready.status).toBe(200);
    expect(await ready.json()).toEqual({ status: "ready" });

    // Everything is in PostgreSQL, nothing in the data directory.
    const [counts] = await rows(url, `SELECT COUNT(*)::integer AS tasks, (SELECT COUNT(*)::integer FROM events) AS events FROM tasks`);
    expect(counts).toMatchObject({ tasks: 6 });
    expect(existsSync(join(hubs.dataDir(), "a2a-hub.db"))).toBe(false);
    expect(existsSync(join(hubs.dataDir(), "hub.lock"))).toBe(false);
  });

  it("serves send, stream, get, list, subscribe and cancel over REST (HTTP+JSON) too", async () => {
    const url = await cluster().createDatabase();
    const hub = await hubOn(url);
    const base = hub.url.replace(/\/$/, "");

    const sent = await rest(base, "POST", "/message:send", { body: { message: userMessage("hello rest on postgres") } });
    expect(sent.status, sent.text).toBe(200);
    expect(sent.json.task).toMatchObject({ status: { state: "TASK_STATE_COMPLETED" }, artifacts: [{ parts: [{ text: "hello rest on postgres" }] }] });
    const streamed = await dataEvents((await openStream(base, "POST", "/message:stream", { body: { message: userMessage("stream 3") } })).events!);
    expect(streamed.map((e) => Object.keys(e.data)[0])).toEqual(["task", "statusUpdate", "artifactUpdate", "artifactUpdate", "artifactUpdate", "statusUpdate"]);
    const streamedId: string = streamed[0]!.data.task.id;

    const got = await rest(base, "GET", `/tasks/${streamedId}`);
    expect(got.status, got.text).toBe(200);
    expect(got.json).toMatchObject({ id: streamedId, status: { state: "TASK_STATE_COMPLETED" } });
    expect(got.json.artifacts[0].parts.map((p: { text: string }) => p.text)).toEqual(["chunk 1\n", "chunk 2\n", "chunk 3\n"]);
    const listed = await rest(base, "GET", "/tasks?pageSize=1");
    expect(listed.json).toMatchObject({ totalSize: 2, pageSize: 1, tasks: [expect.objectContaining({ id: expect.any(String) })] });
    const more = await rest(base, "GET", `/tasks?pageSize=1&pageToken=${encodeURIComponent(listed.json.nextPageToken)}`);
    expect([listed.json.tasks[0].id, more.json.tasks[0].id].sort()).toEqual([sent.json.task.id, streamedId].sort());

    // A subscriber over REST sees a cancel made over REST, as committed in PostgreSQL.
    const slow = await rest(base, "POST", "/message:send", { body: { message: userMessage("slow 60000"), configuration: { returnImmediately: true } } });
    const watching = await openStream(base, "GET", `/tasks/${slow.json.task.id}:subscribe`);
    const watched = dataEvents(watching.events!);
    const canceled = await rest(base, "POST", `/tasks/${slow.json.task.id}:cancel`);
    expect(canceled.status, canceled.text).toBe(200);
    expect(canceled.json).toMatchObject({ id: slow.json.task.id, status: { state: "TASK_STATE_CANCELED" } });
    expect((await watched).at(-1)!.data.statusUpdate.status.state).toBe("TASK_STATE_CANCELED");
    const [stored] = await rows(url, "SELECT state FROM tasks WHERE id = $1", [slow.json.task.id]);
    expect(stored?.state).toBe(TaskState.CANCELED);
  });

  it("restarted on the same database after a crash, finds every acknowledged task; the ones left in flight end FAILED", async () => {
    const url = await cluster().createDatabase();
    const first = await hubOn(url);
    const client = first.client("grpc");
    const completed: Array<{ id: string; text: string }> = [];
    for (let i = 0; i < 20; i++) {
      const text = `durable on postgres ${i}: ${"y".repeat(i * 41)} ✓`;
      const task = i % 2 === 0 ? taskOf(await client.sendMessage(textRequest(text))) : (await call(first.url, "SendMessage", { message: userMessage(text) })).task;
      expect(task.id).toBeTruthy();
      completed.push({ id: task.id, text });
    }
    const slow: string[] = [];
    for (let i = 0; i < 3; i++) slow.push(taskOf(await client.sendMessage(textRequest("slow 60000", { configuration: { returnImmediately: true } }))).id);
    await until("the slow tasks are WORKING", async () => {
      const states = await Promise.all(slow.map(async (id) => (await client.getTask({ id })).status?.state));
      return states.every((s) => s === TaskState.WORKING);
    });

    first.signal("SIGKILL");
    expect((await first.waitExit(5_000)).signal).toBe("SIGKILL");
    await first.kill();

    const second = await hubOn(url);
    const after = second.client("connect");
    for (const c of completed) {
      const task = await after.getTask({ id: c.id });
      expect(task.status?.state, c.text).toBe(TaskState.COMPLETED);
      expect(task.artifacts[0]?.parts.map((p) => p.content.value), c.text).toEqual([c.text]);
      expect(task.history.some((m) => m.role === Role.USER && textOf(m) === c.text), c.text).toBe(true);
    }
    // The dead hub's lease runs out, then a sweep (every third of it) fails what it left in flight.
    const killedAt = Date.now();
    await until("the dead hub's tasks are FAILED", async () => (await Promise.all(slow.map(async (id) => (await after.getTask({ id })).status?.state))).every((s) => s === TaskState.FAILED), 10_000);
    expect(Date.now() - killedAt).toBeLessThan(LEASE_MS * 3);
    for (const id of slow) {
      const task = await after.getTask({ id });
      expect(textOf(task.status?.message)).toMatch(/server (restarted|that ran this task stopped)/i);
    }
    // The restarted hub writes on: seqs continue the log.
    const more = taskOf(await after.sendMessage(textRequest("after the restart")));
    expect(more.status?.state).toBe(TaskState.COMPLETED);
    expect((await after.listTasks({ pageSize: 1 })).totalSize).toBe(24);
    const [failedSeq] = await rows(url, `SELECT MAX(seq)::integer AS n FROM events e JOIN tasks t ON t.pk = e.task_pk WHERE t.id = $1`, [slow[0]]);
    expect(failedSeq?.n).toBe(3);
  });

  it("delivers every push event in order, also those owed when the hub was killed, from the outbox after a restart", async () => {
    const url = await cluster().createDatabase();
    const r = await startReceiver();
    try {
      r.respond = () => 503; // the receiver is down while the task runs
      const env = { A2A_HUB_STORE: url, A2A_HUB_PUSH_ALLOW_CIDRS: "127.0.0.1/32", A2A_HUB_PUSH_RETRY_BASE_MS: "50", A2A_HUB_PUSH_RETRY_CAP_MS: "100", A2A_HUB_PUSH_ATTEMPTS: "1000" };
      const first = await hubs.start(env);
      await first.client("grpc").sendMessage(textRequest("stream 5", { configuration: { taskPushNotificationConfig: { url: r.url } } }));
      await until("the receiver was tried", async () => r.attempts > 0);
      expect(r.received).toHaveLength(0);
      first.signal("SIGKILL");
      await first.waitExit(5_000);
      const [owed] = await rows(url, `SELECT COUNT(*)::integer AS n FROM push_outbox WHERE NOT dead`);
      expect(owed?.n).toBe(8);
      r.respond = () => undefined; // the receiver is back
      await hubs.start(env);
      await r.waitFor(8, 20_000);
      expect(r.received.map((x) => describeEvent(x.body))).toEqual(streamDeliveries(5));
      await until("the outbox is empty", async () => (await rows(url, `SELECT COUNT(*)::integer AS n FROM push_outbox`))[0]?.n === 0);
    } finally {
      await r.close();
    }
  }, 60_000);

  // Last in the file: it stops the cluster the other tests share (and starts it again).
  it("while the database is down answers UNAVAILABLE on every binding within seconds (JSON-RPC -32000, gRPC UNAVAILABLE, REST 503 with Retry-After), /readyz says 503; recovers by itself when it is back", async () => {
    const url = await cluster().createDatabase();
    const hub = await hubOn(url);
    const before = await call(hub.url, "SendMessage", { message: userMessage("before the outage") });
    expect(before.task.status.state).toBe("TASK_STATE_COMPLETED");
    await cluster().kill();
    try {
      const start = Date.now();
      const ready = await fetch(`${hub.url}readyz`);
      expect(ready.status).toBe(503);
      expect(await ready.json()).toMatchObject({ status: "store unavailable", reason: expect.stringContaining("unavailable") });
      // UNAVAILABLE on every binding: nothing was changed, the same call may succeed shortly.
      const sent = await post(hub.url, rpc("SendMessage", { message: userMessage("during the outage") }));
      expect(sent.json.error, JSON.stringify(sent.json)).toMatchObject({ code: -32000 });
      const got = await post(hub.url, rpc("GetTask", { id: before.task.id }));
      expect(got.json.error, JSON.stringify(got.json)).toMatchObject({ code: -32000 });
      await expect(hub.client("grpc").getTask({ id: before.task.id })).rejects.toMatchObject({ code: Code.Unavailable });
      const viaRest = await rest(hub.url.replace(/\/$/, ""), "GET", `/tasks/${before.task.id}`);
      expect(viaRest.status).toBe(503);
      expect(Number(viaRest.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
      expect(Date.now() - start).toBeLessThan(20_000);
    } finally {
      await cluster().restart();
    }
    await until("/readyz is 200 again", async () => (await fetch(`${hub.url}readyz`)).status === 200);
    expect((await call(hub.url, "GetTask", { id: before.task.id })).status.state).toBe("TASK_STATE_COMPLETED");
    expect((await call(hub.url, "SendMessage", { message: userMessage("after the outage") })).task.status.state).toBe("TASK_STATE_COMPLETED");
  }, 60_000);
});
