import { afterEach, describe, expect, it } from "vitest";
import { Code } from "@connectrpc/connect";
import Database from "better-sqlite3";
import { join } from "node:path";
import { startTestHub, type TestHub } from "../helpers/test-hub.js";
import { taskOf, textRequest } from "../helpers/messages.js";
import { expectA2AError, violatedFields } from "../helpers/errors.js";
import { describeEvent, startReceiver, streamDeliveries, type WebhookReceiver } from "../helpers/webhook-receiver.js";
import { removeDir, spawnServer, tempDataDir, type ServerProcess } from "../helpers/server-process.js";

const FAST_RETRY = { baseMs: 20, capMs: 100, attempts: 6 };
const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!();
});

async function hubAndReceiver(push: Parameters<typeof startTestHub>[0] extends infer O ? (O extends { push?: infer P } ? P : never) : never = { allowCidrs: ["127.0.0.1/32"], retry: FAST_RETRY }): Promise<{ t: TestHub; r: WebhookReceiver }> {
  const r = await startReceiver();
  const t = await startTestHub({ push });
  cleanups.push(() => r.close(), () => t.stop());
  return { t, r };
}

describe("push delivery (§3.5.3)", () => {
  it("delivers every event of a `stream 20` task in order, then the final task, with the configured headers", async () => {
    const { t, r } = await hubAndReceiver();
    const task = taskOf(
      await t.client("grpc").sendMessage(
        textRequest("stream 20", {
          configuration: { taskPushNotificationConfig: { url: r.url, token: "secret-token", authentication: { scheme: "Bearer", credentials: "creds" } } },
        }),
      ),
    );
    await r.waitFor(23);
    const order = r.received.map((x) => describeEvent(x.body));
    expect(order).toEqual(streamDeliveries(20));
    const seqs = r.received.slice(0, 22).map((x) => x.seq);
    expect(seqs).toEqual([...seqs].sort((a, b) => a - b));
    for (const x of r.received) {
      expect(x.headers.authorization).toBe("Bearer creds");
      expect(x.headers["x-a2a-notification-token"]).toBe("secret-token");
      expect(x.headers["content-type"]).toBe("application/a2a+json");
    }
    const first = r.received[0]!.body.statusUpdate as { taskId: string; metadata: Record<string, unknown> };
    expect(first.taskId).toBe(task.id);
    expect(first.metadata["a2a-hub/seq"]).toBe(r.received[0]!.seq);
  });

  it("a receiver failing the first 3 attempts then succeeding gets every event exactly once, in order", async () => {
    const { t, r } = await hubAndReceiver();
    r.respond = (attempt) => (attempt <= 3 ? 503 : undefined);
    await t.client("connect-h1").sendMessage(textRequest("stream 3", { configuration: { taskPushNotificationConfig: { url: r.url } } }));
    await r.waitFor(6);
    await new Promise((res) => setTimeout(res, 300));
    expect(r.received.map((x) => describeEvent(x.body))).toEqual(streamDeliveries(3));
    expect(r.attempts).toBe(9);
  });

  it("a delivery that never succeeds goes dead and later events still go out", async () => {
    const { t, r } = await hubAndReceiver({ allowCidrs: ["127.0.0.1/32"], retry: { baseMs: 10, capMs: 20, attempts: 2 } });
    let poisoned: number | undefined;
    r.respond = (_a, seq) => {
      poisoned ??= seq;
      return seq === poisoned ? 500 : undefined;
    };
    await t.client("grpc").sendMessage(textRequest("hello", { configuration: { taskPushNotificationConfig: { url: r.url } } }));
    await r.waitFor(3);
    expect(r.received.map((x) => describeEvent(x.body))).toEqual(["artifact:hello", "status:TASK_STATE_COMPLETED", "task:TASK_STATE_COMPLETED"]);
  });

  it("deleting a config stops its deliveries and leaves no outbox rows", async () => {
    const { t, r } = await hubAndReceiver();
    r.respond = () => 503; // keep everything pending
    const client = t.client("grpc");
    const task = taskOf(await client.sendMessage(textRequest("input-required", { configuration: { taskPushNotificationConfig: { url: r.url, id: "only" } } })));
    await new Promise((res) => setTimeout(res, 100));
    expect(r.attempts).toBeGreaterThan(0);
    await client.deleteTaskPushNotificationConfig({ taskId: task.id, id: "only" });
    const before = r.attempts;
    await new Promise((res) => setTimeout(res, 300));
    expect(r.attempts - before).toBeLessThanOrEqual(1); // at most one already in flight
    const db = new Database(join(t.dataDir, "a2a-hub.db"), { readonly: true });
    expect((db.prepare("SELECT COUNT(*) AS n FROM push_outbox").get() as { n: number }).n).toBe(0);
    db.close();
  });
});

describe("push payload dialect", () => {
  it("a config created through the v0.3 method gets v0.3 events (kind-tagged, lowercase states)", async () => {
    const { t, r } = await hubAndReceiver();
    const client = t.client("grpc");
    const parked = taskOf(await client.sendMessage(textRequest("input-required")));
    const rpc = async (method: string, params: unknown) => {
      const res = await fetch(t.url, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }) });
      return (await res.json()) as { result?: unknown; error?: unknown };
    };
    const set = await rpc("tasks/pushNotificationConfig/set", { taskId: parked.id, pushNotificationConfig: { id: "legacy", url: r.url } });
    expect(set.error).toBeUndefined();
    await client.sendMessage(textRequest("go on", { taskId: parked.id }));
    await r.waitFor(3);
    const kinds = r.received.map((x) => `${x.body.kind}:${(x.body.status as { state?: string } | undefined)?.state ?? ""}`);
    expect(kinds.slice(0, 2)).toEqual(["status-update:working", "artifact-update:"]);
    expect(kinds).toContain("status-update:completed");
  });
});

describe("SSRF guard (§13.2)", () => {
  const refused = [
    "http://127.0.0.1/hook",
    "http://10.1.2.3/hook",
    "http://169.254.169.254/latest/meta-data",
    "http://[::1]/hook",
    "http://[fc00::1]/hook",
    "http://[::ffff:127.0.0.1]/hook",
    "http://localhost/hook",
    "http://0.0.0.0/hook",
    "http://224.0.0.1/hook",
  ];
  it.each(refused)("refuses %s at create time when not allow-listed, naming the url", async (url) => {
    const t = await startTestHub();
    cleanups.push(() => t.stop());
    const client = t.client("grpc");
    const task = taskOf(await client.sendMessage(textRequest("input-required")));
    const err = await expectA2AError(() => client.createTaskPushNotificationConfig({ taskId: task.id, url }), Code.InvalidArgument, "INVALID_PARAMS");
    expect(violatedFields(err)).toEqual(["url"]);
    const inline = await expectA2AError(
      () => client.sendMessage(textRequest("x", { configuration: { taskPushNotificationConfig: { url } } })),
      Code.InvalidArgument,
      "INVALID_PARAMS",
    );
    expect(violatedFields(inline)).toEqual(["configuration.taskPushNotificationConfig.url"]);
  });

  it("an allow-listed range is accepted", async () => {
    const t = await startTestHub({ push: { allowCidrs: ["10.0.0.0/8"] } });
    cleanups.push(() => t.stop());
    const client = t.client("grpc");
    const task = taskOf(await client.sendMessage(textRequest("input-required")));
    expect((await client.createTaskPushNotificationConfig({ taskId: task.id, url: "http://10.1.2.3/hook" })).url).toBe("http://10.1.2.3/hook");
  });
});

describe("push delivery across a crash", () => {
  let server: ServerProcess | undefined;
  let dataDir: string | undefined;
  afterEach(async () => {
    await server?.kill();
    removeDir(dataDir);
  });

  it("deliveries pending when the server was killed are sent after restart", { timeout: 60_000 }, async () => {
    const r = await startReceiver();
    cleanups.push(() => r.close());
    r.respond = () => 503; // the receiver is down while the task runs
    dataDir = tempDataDir();
    const env = { A2A_HUB_PUSH_ALLOW_CIDRS: "127.0.0.1/32", A2A_HUB_PUSH_RETRY_BASE_MS: "50", A2A_HUB_PUSH_RETRY_CAP_MS: "100", A2A_HUB_PUSH_ATTEMPTS: "1000" };
    server = await spawnServer(dataDir, { env });
    await server.client("grpc").sendMessage(textRequest("stream 5", { configuration: { taskPushNotificationConfig: { url: r.url } } }));
    await new Promise((res) => setTimeout(res, 200));
    expect(r.received).toHaveLength(0);
    server.signal("SIGKILL");
    await server.waitExit(5_000);
    r.respond = () => undefined; // the receiver is back
    server = await spawnServer(dataDir, { env });
    await r.waitFor(8, 20_000);
    expect(r.received.map((x) => describeEvent(x.body))).toEqual(streamDeliveries(5));
  });
});
