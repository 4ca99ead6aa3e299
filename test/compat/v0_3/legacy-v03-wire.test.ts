import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { randomUUID } from "node:crypto";
import { Code, createClient } from "@connectrpc/connect";
import { A2AService as V03Service, TaskState as V03TaskState } from "../../../gen/a2a/v03/a2a_pb.js";
import { expectA2AError } from "../../helpers/errors.js";
import { dataEvents } from "../../helpers/sse.js";
import { openStream, rest } from "../../helpers/rest.js";
import { startTestHub, type TestHub } from "../../helpers/test-hub.js";

/**
 * The v0.3 bindings as bytes on the wire, read without any SDK: ProtoJSON of
 * the v0.3 proto under /v1/ (REST) and the v0.3 proto over gRPC, Connect and
 * gRPC-Web with connect-node's own clients of the generated a2a.v1 service.
 */

const v03Send = (text: string, configuration?: object) => ({
  message: { messageId: randomUUID(), role: "ROLE_USER", content: [{ text }] },
  ...(configuration ? { configuration } : {}),
});
const errorInfo = (body: any) => (body?.data ?? []).find((d: any) => d["@type"] === "type.googleapis.com/google.rpc.ErrorInfo");

let t: TestHub;
beforeAll(async () => {
  t = await startTestHub();
});
afterAll(() => t.stop());

describe("v0.3 HTTP+JSON: ProtoJSON of the v0.3 proto under /v1/", () => {
  it("message:send answers a SendMessageResponse whose task uses v0.3 names (content, TASK_STATE_COMPLETED, ROLE_USER)", async () => {
    const r = await rest(t.url, "POST", "/v1/message:send", { body: v03Send("hello wire") });
    expect(r.status, r.text).toBe(200);
    const task = r.json.task;
    expect(task.status.state).toBe("TASK_STATE_COMPLETED");
    expect(task.artifacts[0].parts).toEqual([{ text: "hello wire" }]);
    expect(task.history[0]).toMatchObject({ role: "ROLE_USER", content: [{ text: "hello wire" }] });
    expect(JSON.stringify(task)).not.toContain('"kind"');
  });

  it("the same under an agent's base path, and a canceled task says TASK_STATE_CANCELLED", async () => {
    const slow = await rest(t.url, "POST", "/v1/a2a/agents/echo/v1/message:send", { body: v03Send("slow 5000", { blocking: false }) });
    expect(["TASK_STATE_SUBMITTED", "TASK_STATE_WORKING"], slow.text).toContain(slow.json.task.status.state);
    const canceled = await rest(t.url, "POST", `/v1/a2a/agents/echo/v1/tasks/${slow.json.task.id}:cancel`);
    expect(canceled.json.status.state).toBe("TASK_STATE_CANCELLED");
  });

  it("message:stream sends StreamResponse events with append and final on the wire, and SSE ids", async () => {
    const s = await openStream(t.url, "POST", "/v1/message:stream", { body: v03Send("stream 3") });
    const events = await dataEvents(s.events!);
    expect(Object.keys(events[0]!.data)).toEqual(["task"]);
    const chunks = events.filter((e) => e.data.artifactUpdate).map((e) => e.data.artifactUpdate);
    expect(chunks.map((c) => [c.artifact.parts[0].text, c.append ?? false])).toEqual([
      ["chunk 1\n", false],
      ["chunk 2\n", true],
      ["chunk 3\n", true],
    ]);
    expect(events.at(-1)!.data.statusUpdate).toMatchObject({ final: true, status: { state: "TASK_STATE_COMPLETED" } });
    expect(events.every((e) => /^\d+$/.test(e.id ?? ""))).toBe(true);
  });

  it.each([
    ["an unknown task", "GET", "/v1/tasks/no-such-task", undefined, 404, -32001, "TASK_NOT_FOUND"],
    ["a body that is no SendMessageRequest", "POST", "/v1/message:send", { message: { content: "not a list" } }, 400, -32602, undefined],
    ["a name-less push config", "POST", "/v1/tasks/x/pushNotificationConfigs", {}, 400, -32602, undefined],
  ] as const)("%s: the §5.4 HTTP status and a v0.3 error body { code, message, data }", async (_what, method, path, body, status, code, reason) => {
    const r = await rest(t.url, method, path, body === undefined ? {} : { body });
    expect(r.status, r.text).toBe(status);
    expect(r.json).toMatchObject({ code, message: expect.any(String) });
    if (reason) expect(errorInfo(r.json)).toMatchObject({ reason, domain: "a2a-protocol.org" });
  });

  it("TaskNotCancelable is 400 with code -32002", async () => {
    const done = await rest(t.url, "POST", "/v1/message:send", { body: v03Send("done") });
    const r = await rest(t.url, "POST", `/v1/tasks/${done.json.task.id}:cancel`);
    expect(r.status).toBe(400);
    expect(r.json.code).toBe(-32002);
    expect(errorInfo(r.json).reason).toBe("TASK_NOT_CANCELABLE");
  });

  it("a v0.3 route with A2A-Version 1.0 is VersionNotSupported; a wrong method is 405 with Allow", async () => {
    const v = await rest(t.url, "GET", "/v1/tasks/any", { headers: { "A2A-Version": "1.0" } });
    expect([v.status, v.json.code]).toEqual([400, -32009]);
    const m = await rest(t.url, "DELETE", "/v1/message:send");
    expect(m.status).toBe(405);
    expect(m.headers.get("allow")).toBe("POST");
    expect(m.json.code).toBe(-32600);
  });

  it("a stream refused up front is a plain v0.3 error body, not an event stream", async () => {
    const s = await openStream(t.url, "GET", "/v1/tasks/no-such-task:subscribe");
    expect(s.status).toBe(404);
    expect(s.json).toMatchObject({ code: -32001 });
  });
});

describe.each(["grpc", "connect-h1", "grpc-web"] as const)("v0.3 a2a.v1.A2AService over %s", (transport) => {
  const client = () => createClient(V03Service, t.transport(transport));

  it("SendMessage answers the v0.3 Task; GetTask by resource name reads it back", async () => {
    const sent = await client().sendMessage({ request: { messageId: randomUUID(), role: 1, content: [{ part: { case: "text", value: "over a2a.v1" } }] } });
    expect(sent.payload.case).toBe("task");
    const task = sent.payload.value as any;
    expect(task.status.state).toBe(V03TaskState.COMPLETED);
    const got = await client().getTask({ name: `tasks/${task.id}`, historyLength: 1 });
    expect(got.id).toBe(task.id);
    expect(got.history).toHaveLength(1);
  });

  it("errors carry the §5.4 status and the ErrorInfo reason, as on lf.a2a.v1", async () => {
    await expectA2AError(() => client().getTask({ name: "tasks/no-such-task" }), Code.NotFound, "TASK_NOT_FOUND");
    const done = await client().sendMessage({ request: { messageId: randomUUID(), role: 1, content: [{ part: { case: "text", value: "done" } }] } });
    await expectA2AError(() => client().cancelTask({ name: `tasks/${(done.payload.value as any).id}` }), Code.FailedPrecondition, "TASK_NOT_CANCELABLE");
    await expectA2AError(() => client().getTask({ name: "not-a-task-name" }), Code.InvalidArgument, "INVALID_PARAMS");
  });

  it("SendStreamingMessage streams v0.3 events with append on the wire", async () => {
    const events = [];
    for await (const e of client().sendStreamingMessage({ request: { messageId: randomUUID(), role: 1, content: [{ part: { case: "text", value: "stream 2" } }] } })) events.push(e);
    expect(events[0]!.payload.case).toBe("task");
    const appends = events.flatMap((e) => (e.payload.case === "artifactUpdate" ? [e.payload.value.append] : []));
    expect(appends).toEqual([false, true]);
    const last = events.at(-1)!.payload;
    expect(last.case === "statusUpdate" && [last.value.final, last.value.status?.state]).toEqual([true, V03TaskState.COMPLETED]);
  });
});
