import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { randomUUID } from "node:crypto";
import { TaskState, type Task } from "../../gen/a2a/v1/a2a_pb.js";
import { A2AClient, clientFailureOf, type BindingName } from "../../src/client/index.js";
import { startSdkAgent, type SdkAgent } from "../fixtures/sdk-agent.js";
import { rejection } from "../helpers/errors.js";
import { clientText as text, collect } from "../helpers/messages.js";

/** The A2A client against an @a2a-js/sdk@1.3.0 server: proof on a server we did not write. */


const TOKEN = "sdk-secret";

describe.each([
  { name: "JSON-RPC", binding: "jsonrpc" as BindingName },
  { name: "HTTP+JSON", binding: "rest" as BindingName },
])("A2AClient over $name against an @a2a-js/sdk server", ({ binding }) => {
  let agent: SdkAgent;
  let client: A2AClient;
  beforeAll(async () => {
    agent = await startSdkAgent({ token: TOKEN });
    client = await A2AClient.connect(agent.url, { bindings: [binding], token: TOKEN, timeoutMs: 10_000 });
  });
  afterAll(async () => {
    client?.close();
    await agent?.stop();
  });

  it("picks the SDK's interface at 1.0", () => {
    expect(client.chosen).toMatchObject({ binding, version: "1.0" });
    expect(client.chosen.url).toBe(`${agent.url}${binding === "rest" ? "rest" : "jsonrpc"}`);
  });

  it("sends a message with A2A-Version and the bearer token, and gets the completed task", async () => {
    const res = await client.send(text("hello sdk"));
    const task = res.payload.value as Task;
    expect(task.status?.state).toBe(TaskState.COMPLETED);
    expect(task.artifacts[0]?.parts[0]?.content).toEqual({ case: "text", value: "hello sdk" });
    const got = agent.received.at(-1)!;
    expect(got.headers["a2a-version"]).toBe("1.0");
    expect(got.headers.authorization).toBe(`Bearer ${TOKEN}`);
  });

  it("gets a direct Message reply", async () => {
    const res = await client.send(text("message"));
    expect(res.payload.case).toBe("message");
  });

  it("streams a task's chunks as they come, ending COMPLETED", async () => {
    const events = await collect(client.stream(text("stream 3")));
    expect(events[0]?.payload.case).toBe("task");
    const chunks = events.flatMap((e) => (e.payload.case === "artifactUpdate" ? [e.payload.value] : []));
    expect(chunks.map((c) => c.artifact?.parts[0]?.content.value)).toEqual(["chunk 1\n", "chunk 2\n", "chunk 3\n"]);
    expect(chunks.map((c) => c.append)).toEqual([false, true, true]);
    const last = events.at(-1)!;
    expect(last.payload.case === "statusUpdate" && last.payload.value.status?.state).toBe(TaskState.COMPLETED);
  });

  it("gets and lists tasks", async () => {
    const contextId = randomUUID();
    const sent = await client.send(text("listed", { contextId }));
    const id = (sent.payload.value as Task).id;
    expect((await client.get(id)).id).toBe(id);
    const page = await client.list({ contextId });
    expect(page.tasks.map((x) => x.id)).toEqual([id]);
  });

  it("cancels a working task and subscribes to another one", async () => {
    const slow = await client.send({ ...text("slow 5000"), configuration: { returnImmediately: true } });
    const canceled = await client.cancel((slow.payload.value as Task).id);
    expect(canceled.status?.state).toBe(TaskState.CANCELED);
    const other = await client.send({ ...text("slow 400"), configuration: { returnImmediately: true } });
    const events = await collect(client.subscribe((other.payload.value as Task).id));
    const last = events.at(-1)!;
    expect(last.payload.case === "statusUpdate" && last.payload.value.status?.state).toBe(TaskState.COMPLETED);
  });

  it("continues an input-required task", async () => {
    const parked = (await client.send(text("input-required"))).payload.value as Task;
    expect(parked.status?.state).toBe(TaskState.INPUT_REQUIRED);
    const done = (await client.send(text("Ada", { taskId: parked.id, contextId: parked.contextId }))).payload.value as Task;
    expect(done.status?.state).toBe(TaskState.COMPLETED);
    expect(done.artifacts.find((a) => a.artifactId === "answer")?.parts[0]?.content.value).toBe("answer: Ada");
  });

  it("reads the SDK's errors back as A2AError by name", async () => {
    expect((await rejection(client.get("no-such-task"))).a2a).toBe("TaskNotFound");
    const done = (await client.send(text("done"))).payload.value as Task;
    expect((await rejection(client.cancel(done.id))).a2a).toBe("TaskNotCancelable");
  });

  it("reports a wrong token as UNAUTHENTICATED", async () => {
    const wrong = A2AClient.fromCard(client.card, { bindings: [binding], token: "wrong" });
    const e = await rejection(wrong.send(text("hello")));
    expect(clientFailureOf(e)).toBe("UNAUTHENTICATED");
    wrong.close();
  });
});

describe("A2AClient against an @a2a-js/sdk server that speaks only v0.3 JSON-RPC", () => {
  let agent: SdkAgent;
  let client: A2AClient;
  beforeAll(async () => {
    agent = await startSdkAgent({ interfaces: [{ binding: "JSONRPC", version: "0.3" }] });
    client = await A2AClient.connect(agent.url, { timeoutMs: 10_000 });
  });
  afterAll(async () => {
    client?.close();
    await agent?.stop();
  });

  it("falls back to the v0.3 dialect and sends A2A-Version 0.3", async () => {
    expect(client.chosen).toMatchObject({ binding: "jsonrpc", version: "0.3" });
    const task = (await client.send(text("hello v0.3"))).payload.value as Task;
    expect(task.status?.state).toBe(TaskState.COMPLETED);
    expect(task.artifacts[0]?.parts[0]?.content).toEqual({ case: "text", value: "hello v0.3" });
    expect(agent.received.at(-1)!.headers["a2a-version"]).toBe("0.3");
  });

  it("streams, gets and cancels in the v0.3 dialect", async () => {
    const events = await collect(client.stream(text("stream 2")));
    expect(events[0]?.payload.case).toBe("task");
    const last = events.at(-1)!;
    expect(last.payload.case === "statusUpdate" && last.payload.value.status?.state).toBe(TaskState.COMPLETED);
    const id = (events[0]!.payload.value as Task).id;
    expect((await client.get(id)).status?.state).toBe(TaskState.COMPLETED);
    const slow = (await client.send({ ...text("slow 5000"), configuration: { returnImmediately: true } })).payload.value as Task;
    expect((await client.cancel(slow.id)).status?.state).toBe(TaskState.CANCELED);
    expect((await rejection(client.get("no-such-task"))).a2a).toBe("TaskNotFound");
  });
});
