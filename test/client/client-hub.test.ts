import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { randomUUID } from "node:crypto";
import { TaskState } from "../../gen/a2a/v1/a2a_pb.js";
import { A2AClient, BINDING_NAMES, PROTOCOL_BINDINGS, type BindingName } from "../../src/client/index.js";
import { startTestHub, type TestHub } from "../helpers/test-hub.js";
import { rejection } from "../helpers/errors.js";
import { clientText as text, collect } from "../helpers/messages.js";

/** The A2A client against our own hub, table-driven over every binding the hub's card lists. */

let t: TestHub;
const seen: Array<{ url: string; headers: Record<string, unknown> }> = [];
beforeAll(async () => {
  t = await startTestHub({
    // Records the HTTP requests that reach the fallback (JSON-RPC, REST, the card) and passes them on.
    routes: [
      (req) => {
        seen.push({ url: req.url ?? "", headers: { ...req.headers } });
        return false;
      },
    ],
  });
});
afterAll(async () => {
  await t?.stop();
});


/** Which bindings the hub's card offers. */
async function offered(): Promise<BindingName[]> {
  const c = await A2AClient.connect(t.url);
  c.close();
  return BINDING_NAMES.filter((b) => c.card.supportedInterfaces.some((i) => i.protocolBinding === PROTOCOL_BINDINGS[b]));
}

describe("A2AClient against our hub", () => {
  it("resolves the card from the base URL and picks JSON-RPC 1.0 first", async () => {
    const c = await A2AClient.connect(t.url);
    expect(c.card.name).toBe("a2a-hub echo");
    expect(c.chosen).toMatchObject({ binding: "jsonrpc", version: "1.0" });
    c.close();
  });

  it("resolves the card from its direct URL", async () => {
    const c = await A2AClient.connect(`${t.url}.well-known/agent-card.json`, { bindings: ["grpc"] });
    expect(c.chosen.binding).toBe("grpc");
    c.close();
  });

  it("sends A2A-Version and the bearer token with the card fetch and every call", async () => {
    const token = `tok-${randomUUID()}`;
    const c = await A2AClient.connect(t.url, { token, bindings: ["jsonrpc"] });
    await c.send(text("hello"));
    const mine = seen.filter((s) => s.headers.authorization === `Bearer ${token}`);
    expect(mine.map((s) => s.url)).toEqual(["/.well-known/agent-card.json", "/"]);
    expect(mine.every((s) => s.headers["a2a-version"] === "1.0")).toBe(true);
    c.close();
  });
});

const CASES: Array<{ name: string; binding: BindingName; v03?: boolean }> = [
  { name: "JSON-RPC 1.0", binding: "jsonrpc" },
  { name: "JSON-RPC 0.3", binding: "jsonrpc", v03: true },
  { name: "HTTP+JSON", binding: "rest" },
  { name: "gRPC", binding: "grpc" },
];

describe.each(CASES)("A2AClient over $name against our hub", ({ binding, v03 }) => {
  let client: A2AClient;
  beforeAll(async () => {
    // A card that stops offering a binding is a failure here, not a reason to skip its tests.
    expect(await offered(), `the hub's card offers ${binding}`).toContain(binding);
    const base = await A2AClient.connect(t.url, { bindings: [binding] });
    // Pin the v0.3 interface by handing the client a card that lists only it.
    const card = v03 ? { ...base.card, supportedInterfaces: base.card.supportedInterfaces.filter((i) => i.protocolVersion === "0.3") } : base.card;
    base.close();
    client = A2AClient.fromCard(card, { bindings: [binding], timeoutMs: 10_000 });
    expect(client.chosen.version).toBe(v03 ? "0.3" : "1.0");
  });
  afterAll(() => client?.close());

  it("sends a message and gets the completed task", async () => {
    const res = await client.send(text("hello client"));
    expect(res.payload.case).toBe("task");
    const task = res.payload.value as import("../../gen/a2a/v1/a2a_pb.js").Task;
    expect(task.status?.state).toBe(TaskState.COMPLETED);
    expect(task.artifacts[0]?.parts[0]?.content).toEqual({ case: "text", value: "hello client" });
  });

  it("gets a direct Message reply", async () => {
    const res = await client.send(text("message"));
    expect(res.payload.case).toBe("message");
  });

  it("streams a task: the Task, its chunks in order, then COMPLETED", async () => {
    const events = await collect(client.stream(text("stream 3")));
    expect(events[0]?.payload.case).toBe("task");
    const chunks = events.flatMap((e) => (e.payload.case === "artifactUpdate" ? [e.payload.value] : []));
    expect(chunks.map((c) => (c.artifact?.parts[0]?.content.value as string).trim())).toEqual(["chunk 1", "chunk 2", "chunk 3"]);
    expect(chunks.map((c) => c.lastChunk)).toEqual([false, false, true]);
    const last = events.at(-1)!;
    expect(last.payload.case).toBe("statusUpdate");
    expect(last.payload.case === "statusUpdate" && last.payload.value.status?.state).toBe(TaskState.COMPLETED);
  });

  it("gets a task with its history", async () => {
    const sent = await client.send(text("get me"));
    const id = (sent.payload.value as { id: string }).id;
    const task = await client.get({ id, historyLength: 5 });
    expect(task.id).toBe(id);
    expect(task.history.length).toBeGreaterThan(0);
  });

  it("lists tasks by context (ListTasks is UnsupportedOperation on v0.3, which has none)", async () => {
    const contextId = `ctx-${randomUUID()}`;
    const sent = await client.send({ message: { contextId, parts: [{ content: { case: "text", value: "listed" } }] } });
    const id = (sent.payload.value as { id: string }).id;
    if (v03) {
      expect((await rejection(client.list({ contextId }))).a2a).toBe("UnsupportedOperation");
      return;
    }
    const page = await client.list({ contextId, status: TaskState.COMPLETED, pageSize: 10, includeArtifacts: true });
    expect(page.tasks.map((x) => x.id)).toEqual([id]);
    expect(page.tasks[0]?.artifacts.length).toBe(1);
    expect(page.totalSize).toBe(1);
  });

  it("cancels a working task, and subscribes to another until it completes", async () => {
    const slow = await client.send({ ...text("slow 5000"), configuration: { returnImmediately: true } });
    const canceled = await client.cancel((slow.payload.value as { id: string }).id);
    expect(canceled.status?.state).toBe(TaskState.CANCELED);
    // Long enough that the subscription starts before it ends, on a loaded machine too.
    const other = await client.send({ ...text("slow 1500"), configuration: { returnImmediately: true } });
    const events = await collect(client.subscribe((other.payload.value as { id: string }).id));
    expect(events[0]?.payload.case).toBe("task");
    const last = events.at(-1)!;
    expect(last.payload.case === "statusUpdate" && last.payload.value.status?.state).toBe(TaskState.COMPLETED);
  });

  it("reads the agent's errors back as A2AError by name", async () => {
    const missing = await rejection(client.get(`no-such-${randomUUID()}`));
    expect(missing.a2a).toBe("TaskNotFound");
    const done = await client.send(text("done"));
    expect((await rejection(client.cancel((done.payload.value as { id: string }).id))).a2a).toBe("TaskNotCancelable");
    expect((await rejection(client.subscribe((done.payload.value as { id: string }).id).next())).a2a).toBe("UnsupportedOperation");
    const bad = await rejection(client.send({ message: { role: 2, parts: [{ content: { case: "text", value: "x" } }] } }));
    expect(bad.a2a).toBe("InvalidParams");
  });

  it("continues an input-required task with a follow-up on the same task", async () => {
    const parked = await client.send(text("input-required"));
    const task = parked.payload.value as import("../../gen/a2a/v1/a2a_pb.js").Task;
    expect(task.status?.state).toBe(TaskState.INPUT_REQUIRED);
    const done = await client.send({ message: { taskId: task.id, contextId: task.contextId, parts: [{ content: { case: "text", value: "here you go" } }] } });
    expect((done.payload.value as import("../../gen/a2a/v1/a2a_pb.js").Task).status?.state).toBe(TaskState.COMPLETED);
  });
});
