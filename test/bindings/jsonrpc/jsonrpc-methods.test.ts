import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { create } from "@bufbuild/protobuf";
import { AgentCardSchema } from "../../../gen/a2a/v1/a2a_pb.js";
import { EchoAgent, echoCard } from "../../../src/agents/index.js";
import { userMessage, v03Message } from "../../helpers/json-messages.js";
import { startJsonRpcHub } from "../../helpers/jsonrpc-hub.js";
import { post, rpc } from "../../helpers/jsonrpc-requests.js";
import type { TestHub } from "../../helpers/test-hub.js";

let nextId = 0;
/** One call with a fresh id; the answer must be plain application/json. */
async function exchange(url: string, method: string, params?: unknown): Promise<{ result?: any; error?: any }> {
  const r = await post(url, rpc(method, params, ++nextId));
  expect(r.headers.get("content-type")).toBe("application/json");
  return r.json as { result?: any; error?: any };
}

async function ok(url: string, method: string, params?: unknown): Promise<any> {
  const r = await exchange(url, method, params);
  expect(r.error, `${method}: ${JSON.stringify(r.error)}`).toBeUndefined();
  return r.result;
}

async function fails(url: string, method: string, params: unknown, code: number): Promise<any> {
  const r = await exchange(url, method, params);
  expect(r.error?.code, `${method}: ${JSON.stringify(r)}`).toBe(code);
  return r.error;
}

const HOOK = "https://hooks.example/a2a";

let t: TestHub;
beforeAll(async () => {
  const { $typeName: _, ...card } = echoCard({ pushNotifications: true });
  const extended = create(AgentCardSchema, { ...card, description: "the extended card", securitySchemes: { bearer: { scheme: { case: "httpAuthSecurityScheme", value: { scheme: "Bearer" } } } } });
  t = await startJsonRpcHub({
    hub: {
      agents: [
        { id: "echo", executor: new EchoAgent(), card: create(AgentCardSchema, { ...card, capabilities: { streaming: true, pushNotifications: true, extendedAgentCard: true } }), extendedCard: extended },
        { id: "plain", executor: new EchoAgent(), card: echoCard({ pushNotifications: false }) },
      ],
    },
  });
});
afterAll(async () => {
  await t.stop();
});

describe("v1.0 methods", () => {
  it("SendMessage answers {task} in ProtoJSON, or {message} for a direct reply", async () => {
    const r = await ok(t.url, "SendMessage", { message: userMessage("hi there") });
    expect(Object.keys(r)).toEqual(["task"]);
    expect(r.task).toMatchObject({ status: { state: "TASK_STATE_COMPLETED" }, artifacts: [{ parts: [{ text: "hi there" }] }] });
    expect(r.task.history[0]).toMatchObject({ role: "ROLE_USER", parts: [{ text: "hi there" }] });
    const m = await ok(t.url, "SendMessage", { message: userMessage("message") });
    expect(Object.keys(m)).toEqual(["message"]);
    expect(m.message).toMatchObject({ role: "ROLE_AGENT", messageId: expect.any(String), parts: [expect.any(Object)] });
  });

  it("SendMessage reads v0.3 parts, roles and blocking leniently, and answers in v1.0", async () => {
    const r = await ok(t.url, "SendMessage", { message: v03Message("lenient"), configuration: { blocking: false } });
    expect(r.task.history[0].parts).toEqual([{ text: "lenient" }]);
    expect(JSON.stringify(r)).not.toContain('"kind"');
  });

  it("GetTask honours historyLength and keeps required fields", async () => {
    const sent = (await ok(t.url, "SendMessage", { message: userMessage("h") })).task;
    const none = await ok(t.url, "GetTask", { id: sent.id, historyLength: 0 });
    expect(none.history).toBeUndefined();
    expect(none).toMatchObject({ id: sent.id, contextId: sent.contextId, status: { state: "TASK_STATE_COMPLETED" } });
    expect((await ok(t.url, "GetTask", { id: sent.id, historyLength: 1 })).history).toHaveLength(1);
  });

  it("ListTasks always has nextPageToken, pageSize and totalSize, and artifacts only on request", async () => {
    const ctx = `list-${crypto.randomUUID()}`;
    await ok(t.url, "SendMessage", { message: userMessage("one", { contextId: ctx }) });
    const page = await ok(t.url, "ListTasks", { contextId: ctx, historyLength: 0 });
    expect(page).toMatchObject({ nextPageToken: "", pageSize: 50, totalSize: 1 });
    expect(page.tasks[0].artifacts).toBeUndefined();
    expect(page.tasks[0].history).toBeUndefined();
    const full = await ok(t.url, "ListTasks", { contextId: ctx, includeArtifacts: true, status: "completed" });
    expect(full.tasks[0].artifacts).toHaveLength(1);
    const empty = await ok(t.url, "ListTasks", { contextId: `none-${crypto.randomUUID()}` });
    expect(empty).toEqual({ tasks: [], nextPageToken: "", pageSize: 50, totalSize: 0 });
    await fails(t.url, "ListTasks", { status: "finished" }, -32602);
  });

  it("CancelTask cancels a working task and refuses a completed one", async () => {
    const slow = (await ok(t.url, "SendMessage", { message: userMessage("slow 5000"), configuration: { returnImmediately: true } })).task;
    expect((await ok(t.url, "CancelTask", { id: slow.id })).status.state).toBe("TASK_STATE_CANCELED");
    const done = (await ok(t.url, "SendMessage", { message: userMessage("x") })).task;
    const err = await fails(t.url, "CancelTask", { id: done.id }, -32002);
    expect(err.data[0]).toMatchObject({ reason: "TASK_NOT_CANCELABLE", domain: "a2a-protocol.org" });
  });

  it("push notification configs: create, get, list, delete", async () => {
    const task = (await ok(t.url, "SendMessage", { message: userMessage("input-required") })).task;
    const created = await ok(t.url, "CreateTaskPushNotificationConfig", { taskId: task.id, url: HOOK, token: "tok", authentication: { scheme: "Bearer", credentials: "c" } });
    expect(created).toMatchObject({ taskId: task.id, url: HOOK, token: "tok", id: expect.any(String), authentication: { scheme: "Bearer" } });
    expect(await ok(t.url, "GetTaskPushNotificationConfig", { taskId: task.id, id: created.id })).toEqual(created);
    expect((await ok(t.url, "ListTaskPushNotificationConfigs", { taskId: task.id })).configs).toEqual([created]);
    expect(await ok(t.url, "DeleteTaskPushNotificationConfig", { taskId: task.id, id: created.id })).toEqual({});
    expect(await ok(t.url, "ListTaskPushNotificationConfigs", { taskId: task.id })).toEqual({ configs: [] });
    await fails(t.url, "GetTaskPushNotificationConfig", { taskId: task.id, id: created.id }, -32001);
  });

  it("push notification configs are PushNotificationNotSupported on an agent without the capability", async () => {
    await fails(t.url, "ListTaskPushNotificationConfigs", { tenant: "plain", taskId: "x" }, -32003);
  });

  it("GetExtendedAgentCard answers the extended card, or UnsupportedOperation when the card declares none", async () => {
    const card = await ok(t.url, "GetExtendedAgentCard");
    expect(card).toMatchObject({ name: "a2a-hub echo", description: "the extended card", capabilities: expect.any(Object), skills: [expect.objectContaining({ id: "echo" })] });
    await fails(t.url, "GetExtendedAgentCard", { tenant: "plain" }, -32004);
  });
});

describe("v0.3 methods", () => {
  it("message/send answers a kind-tagged Task with kebab-case states, or a Message", async () => {
    const task = await ok(t.url, "message/send", { message: v03Message("legacy") });
    expect(task).toMatchObject({ kind: "task", status: { state: "completed" }, artifacts: [{ parts: [{ kind: "text", text: "legacy" }] }] });
    expect(task.history[0]).toMatchObject({ kind: "message", role: "user" });
    const msg = await ok(t.url, "message/send", { message: v03Message("message") });
    expect(msg).toMatchObject({ kind: "message", role: "agent" });
  });

  it("message/send reads file and data parts, and blocking: false returns at once", async () => {
    const task = await ok(t.url, "message/send", {
      message: v03Message("slow 300", { parts: [{ kind: "text", text: "slow 300" }, { kind: "data", data: { a: 1 } }, { kind: "file", file: { uri: "https://f.example/x.txt", mimeType: "text/plain" } }] }),
      configuration: { blocking: false, historyLength: 1 },
    });
    expect(["submitted", "working"]).toContain(task.status.state);
    expect(task.history).toHaveLength(1);
    expect(task.history[0].parts.slice(1)).toEqual([{ kind: "data", data: { a: 1 } }, { kind: "file", file: { uri: "https://f.example/x.txt", mimeType: "text/plain" } }]);
  });

  it("message/send continues an input-required task", async () => {
    const parked = await ok(t.url, "message/send", { message: v03Message("input-required") });
    expect(parked.status.state).toBe("input-required");
    const done = await ok(t.url, "message/send", { message: v03Message("go on", { taskId: parked.id, contextId: parked.contextId }) });
    expect(done).toMatchObject({ id: parked.id, status: { state: "completed" } });
  });

  it("tasks/get and tasks/cancel answer v0.3 Tasks and A2A error codes", async () => {
    const task = await ok(t.url, "message/send", { message: v03Message("x") });
    expect(await ok(t.url, "tasks/get", { id: task.id, historyLength: 0 })).toMatchObject({ kind: "task", id: task.id, status: { state: "completed" } });
    await fails(t.url, "tasks/get", { id: "nope" }, -32001);
    await fails(t.url, "tasks/cancel", { id: task.id }, -32002);
    const slow = await ok(t.url, "message/send", { message: v03Message("slow 5000"), configuration: { blocking: false } });
    expect(await ok(t.url, "tasks/cancel", { id: slow.id })).toMatchObject({ kind: "task", status: { state: "canceled" } });
  });

  it("tasks/pushNotificationConfig set, get, list and delete use the v0.3 shapes", async () => {
    const task = await ok(t.url, "message/send", { message: v03Message("input-required") });
    const set = await ok(t.url, "tasks/pushNotificationConfig/set", { taskId: task.id, pushNotificationConfig: { url: HOOK, token: "t", authentication: { schemes: ["Bearer"], credentials: "c" } } });
    expect(set).toEqual({ taskId: task.id, pushNotificationConfig: { id: task.id, url: HOOK, token: "t", authentication: { schemes: ["Bearer"], credentials: "c" } } });
    expect(await ok(t.url, "tasks/pushNotificationConfig/get", { id: task.id })).toEqual(set);
    const second = await ok(t.url, "tasks/pushNotificationConfig/set", { taskId: task.id, pushNotificationConfig: { id: "second", url: HOOK } });
    expect(await ok(t.url, "tasks/pushNotificationConfig/get", { id: task.id, pushNotificationConfigId: "second" })).toEqual(second);
    const list = await ok(t.url, "tasks/pushNotificationConfig/list", { id: task.id });
    expect(list).toHaveLength(2);
    expect(list).toContainEqual(set);
    expect(await ok(t.url, "tasks/pushNotificationConfig/delete", { id: task.id, pushNotificationConfigId: "second" })).toBeNull();
    expect(await ok(t.url, "tasks/pushNotificationConfig/list", { id: task.id })).toEqual([set]);
  });

  it("agent/getAuthenticatedExtendedCard answers a v0.3 AgentCard", async () => {
    const card = await ok(t.url, "agent/getAuthenticatedExtendedCard");
    expect(card).toMatchObject({
      protocolVersion: "0.3.0",
      name: "a2a-hub echo",
      description: "the extended card",
      capabilities: { streaming: true, pushNotifications: true },
      securitySchemes: { bearer: { type: "http", scheme: "Bearer" } },
      skills: [expect.objectContaining({ id: "echo", tags: expect.any(Array) })],
    });
  });

  it("refuses params of the wrong shape with -32602", async () => {
    await fails(t.url, "message/send", { message: { kind: "message", role: "user", parts: [{ kind: "text", text: "no id" }] } }, -32602);
    await fails(t.url, "message/send", { message: v03Message("x"), configuration: { blocking: "no" } }, -32602);
    await fails(t.url, "tasks/get", [1], -32602);
    // JSON-RPC 2.0 §4: params that is not an object or an array makes the request invalid.
    await fails(t.url, "tasks/get", "x", -32600);
  });
});
