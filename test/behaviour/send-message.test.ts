import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Code } from "@connectrpc/connect";
import { create } from "@bufbuild/protobuf";
import { PartSchema, Role, SendMessageConfigurationSchema, TaskState } from "../../gen/a2a/v1/a2a_pb.js";
import { startTestHub, type TestHub } from "../helpers/test-hub.js";
import { BINDINGS, CONNECT_NODE_BINDINGS, expectRefusal, withHubClient } from "../helpers/hub-clients.js";
import { taskOf, textRequest } from "../helpers/messages.js";
import { expectA2AError, violatedFields } from "../helpers/errors.js";

let t: TestHub;
beforeAll(async () => {
  t = await startTestHub();
});
afterAll(async () => {
  await t.stop();
});

describe.each(BINDINGS)("SendMessage over %s", (binding) => {
  const open = withHubClient(() => t, binding);

  it("completes a task with one artifact echoing the text, with server-generated ids", async () => {
    const res = await open.client.send(textRequest("hello there"));
    if (res.payload.case !== "task") throw new Error("no task");
    expect(res.payload.value.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(res.payload.value.contextId).toMatch(/^[0-9a-f-]{36}$/);
    expect(res.payload.value.status?.state).toBe(TaskState.COMPLETED);
    expect(res.payload.value.artifacts).toHaveLength(1);
    expect(res.payload.value.artifacts[0]!.parts[0]!.content).toEqual({ case: "text", value: "hello there" });
  });

  it("keeps a client-given contextId", async () => {
    const res = await open.client.send(textRequest("hi", { contextId: `ctx-${binding}` }));
    if (res.payload.case !== "task") throw new Error("no task");
    expect(res.payload.value.contextId).toBe(`ctx-${binding}`);
  });

  it("answers `message` with a Message and creates no task", async () => {
    const res = await open.client.send(textRequest("message"));
    expect(res.payload.case).toBe("message");
    if (res.payload.case !== "message") throw new Error("no message");
    expect(res.payload.value.role).toBe(Role.AGENT);
    expect(res.payload.value.taskId).toBe("");
    expect(res.payload.value.contextId).not.toBe("");
  });

  it("is TaskNotFound for an unknown taskId", async () => {
    await expectRefusal(open.client, () => open.client.send(textRequest("x", { taskId: "no-such-task" })), "TaskNotFound");
  });
});

// src/client fills in a missing messageId, so its absence is sent by connect-node's clients only.
describe.each(CONNECT_NODE_BINDINGS)("SendMessage without a messageId over %s", (transport) => {
  it("is InvalidParams naming message.messageId when it is missing", async () => {
    const err = await expectA2AError(() => t.client(transport).sendMessage(textRequest("x", { messageId: "" })), Code.InvalidArgument, "INVALID_PARAMS");
    expect(violatedFields(err)).toEqual(["message.messageId"]);
  });
});

describe("SendMessage validation (§5.7)", () => {
  const client = () => t.client("connect-h1");
  const cases: Array<[string, (r: ReturnType<typeof textRequest>) => void, string]> = [
    ["no message", (r) => (r.message = undefined), "message"],
    ["role unspecified", (r) => (r.message!.role = Role.UNSPECIFIED), "message.role"],
    ["role agent", (r) => (r.message!.role = Role.AGENT), "message.role"],
    ["no parts", (r) => (r.message!.parts = []), "message.parts"],
    ["a part with no content", (r) => (r.message!.parts[0]!.content = { case: undefined }), "message.parts[0]"],
    ["a negative historyLength", (r) => (r.configuration = create(SendMessageConfigurationSchema, { historyLength: -1 })), "configuration.historyLength"],
  ];
  it.each(cases)("%s is InvalidParams naming the field", async (_name, mutate, field) => {
    const req = textRequest("x");
    mutate(req);
    const err = await expectA2AError(() => client().sendMessage(req), Code.InvalidArgument, "INVALID_PARAMS");
    expect(violatedFields(err)).toEqual([field]);
  });

  it("a part of a media type the agent does not accept is ContentTypeNotSupported", async () => {
    const req = textRequest("x");
    req.message!.parts.push(create(PartSchema, { content: { case: "raw", value: new Uint8Array([1, 2]) }, mediaType: "image/png" }));
    const err = await expectA2AError(() => client().sendMessage(req), Code.InvalidArgument, "CONTENT_TYPE_NOT_SUPPORTED");
    expect(violatedFields(err)).toEqual(["message.parts[1].mediaType"]);
  });

  it("acceptedOutputModes that the agent cannot produce are ContentTypeNotSupported", async () => {
    const req = textRequest("x", { configuration: { acceptedOutputModes: ["image/png"] } });
    await expectA2AError(() => client().sendMessage(req), Code.InvalidArgument, "CONTENT_TYPE_NOT_SUPPORTED");
  });
});

describe("multi-turn (§3.4)", () => {
  const client = () => t.client("grpc");

  it("input-required parks the task; a follow-up joins the history and completes it", async () => {
    const first = await client().sendMessage(textRequest("input-required"));
    if (first.payload.case !== "task") throw new Error("no task");
    const task = first.payload.value;
    expect(task.status?.state).toBe(TaskState.INPUT_REQUIRED);
    const second = await client().sendMessage(textRequest("the answer", { taskId: task.id }));
    if (second.payload.case !== "task") throw new Error("no task");
    expect(second.payload.value.id).toBe(task.id);
    expect(second.payload.value.contextId).toBe(task.contextId);
    expect(second.payload.value.status?.state).toBe(TaskState.COMPLETED);
    expect(second.payload.value.artifacts[0]!.parts[0]!.content).toEqual({ case: "text", value: "the answer" });
    const userTexts = second.payload.value.history.filter((m) => m.role === Role.USER).map((m) => m.parts[0]!.content.value);
    expect(userTexts).toEqual(["input-required", "the answer"]);
  });

  it("a message to a terminal task is UnsupportedOperation", async () => {
    const done = await client().sendMessage(textRequest("done"));
    if (done.payload.case !== "task") throw new Error("no task");
    await expectA2AError(() => client().sendMessage(textRequest("again", { taskId: taskOf(done).id })), Code.FailedPrecondition, "UNSUPPORTED_OPERATION");
  });

  it("a taskId and a contextId that disagree are InvalidParams", async () => {
    const first = await client().sendMessage(textRequest("input-required"));
    if (first.payload.case !== "task") throw new Error("no task");
    const err = await expectA2AError(
      () => client().sendMessage(textRequest("x", { taskId: taskOf(first).id, contextId: "another-context" })),
      Code.InvalidArgument,
      "INVALID_PARAMS",
    );
    expect(violatedFields(err)).toEqual(["message.contextId"]);
  });

  it("a new task in an existing context keeps the context", async () => {
    const a = await client().sendMessage(textRequest("one"));
    if (a.payload.case !== "task") throw new Error("no task");
    const b = await client().sendMessage(textRequest("two", { contextId: a.payload.value.contextId }));
    if (b.payload.case !== "task") throw new Error("no task");
    expect(b.payload.value.contextId).toBe(a.payload.value.contextId);
    expect(b.payload.value.id).not.toBe(a.payload.value.id);
  });
});

describe("execution mode and history (§3.2.2, §3.2.4)", () => {
  const client = () => t.client("connect-h2");

  it("returnImmediately returns the submitted or working task at once; it completes later", async () => {
    const res = await client().sendMessage(textRequest("slow 400", { configuration: { returnImmediately: true } }));
    if (res.payload.case !== "task") throw new Error("no task");
    expect([TaskState.SUBMITTED, TaskState.WORKING]).toContain(res.payload.value.status?.state);
    await new Promise((r) => setTimeout(r, 700));
    const later = await client().getTask({ id: res.payload.value.id });
    expect(later.status?.state).toBe(TaskState.COMPLETED);
  });

  it("blocking (the default) waits until the task is terminal", async () => {
    const res = await client().sendMessage(textRequest("slow 200"));
    if (res.payload.case !== "task") throw new Error("no task");
    expect(res.payload.value.status?.state).toBe(TaskState.COMPLETED);
  });

  it("historyLength 0 omits the history, 1 keeps the most recent message, unset keeps all", async () => {
    const zero = await client().sendMessage(textRequest("h", { configuration: { historyLength: 0 } }));
    if (zero.payload.case !== "task") throw new Error("no task");
    expect(zero.payload.value.history).toEqual([]);
    const first = await client().sendMessage(textRequest("input-required"));
    if (first.payload.case !== "task") throw new Error("no task");
    const one = await client().sendMessage(textRequest("last words", { taskId: first.payload.value.id, configuration: { historyLength: 1 } }));
    if (one.payload.case !== "task") throw new Error("no task");
    expect(one.payload.value.history).toHaveLength(1);
    const all = await client().getTask({ id: first.payload.value.id });
    expect(all.history.length).toBeGreaterThan(2);
    expect(all.history.at(-1)!.messageId).toBe(one.payload.value.history[0]!.messageId);
  });

  it("fail ends FAILED with a status message; reject ends REJECTED", async () => {
    const failed = await client().sendMessage(textRequest("fail"));
    if (failed.payload.case !== "task") throw new Error("no task");
    expect(failed.payload.value.status?.state).toBe(TaskState.FAILED);
    expect(failed.payload.value.status?.message?.parts[0]?.content.case).toBe("text");
    const rejected = await client().sendMessage(textRequest("reject"));
    if (rejected.payload.case !== "task") throw new Error("no task");
    expect(rejected.payload.value.status?.state).toBe(TaskState.REJECTED);
  });
});
