import * as http2 from "node:http2";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { create } from "@bufbuild/protobuf";
import { AgentCardSchema } from "../../../gen/a2a/v1/a2a_pb.js";
import { EchoAgent, echoCard } from "../../../src/agents/index.js";
import { matchRoute } from "../../../src/bindings/rest/index.js";
import { expectStatusError, rest, sendText, startRestHub, userMessage, violatedFields } from "../../helpers/rest.js";
import { h2Request } from "../../helpers/h2c.js";
import { startTestHub, type TestHub } from "../../helpers/test-hub.js";

let t: TestHub;
beforeAll(async () => {
  t = await startTestHub();
});
afterAll(async () => {
  await t.stop();
});

describe("the hub serves HTTP+JSON at its root (§11.3)", () => {
  it("lists the HTTP+JSON interface in the agent card beside JSON-RPC and gRPC", async () => {
    const card = (await rest(t.url, "GET", "/.well-known/agent-card.json")).json;
    expect(card.supportedInterfaces).toContainEqual({ url: t.url.replace(/\/$/, ""), protocolBinding: "HTTP+JSON", protocolVersion: "1.0" });
    expect(card.supportedInterfaces.map((i: any) => i.protocolBinding)).toEqual(expect.arrayContaining(["JSONRPC", "GRPC", "HTTP+JSON"]));
  });

  it("leaves POST / to JSON-RPC: the paths do not collide", async () => {
    const r = await rest(t.url, "POST", "/", { body: { jsonrpc: "2.0", id: 1, method: "GetTask", params: { id: "nope" } }, headers: { "content-type": "application/json" } });
    expect(r.json).toMatchObject({ jsonrpc: "2.0", id: 1, error: { code: -32001 } });
  });
});

describe("POST /message:send (§11.3.1)", () => {
  it("answers the SendMessageResponse as application/json when Accept names no JSON type", async () => {
    const r = await rest(t.url, "POST", "/message:send", { body: { message: userMessage("hello rest") } });
    expect(r.status).toBe(200);
    expect(r.type).toBe("application/json");
    expect(Object.keys(r.json)).toEqual(["task"]);
    expect(r.json.task).toMatchObject({ id: expect.any(String), contextId: expect.any(String), status: { state: "TASK_STATE_COMPLETED" } });
    expect(r.json.task.artifacts[0].parts).toEqual([{ text: "hello rest" }]);
  });

  it("accepts application/json bodies as well as application/a2a+json", async () => {
    const r = await rest(t.url, "POST", "/message:send", { body: { message: userMessage("plain json") }, headers: { "content-type": "application/json; charset=utf-8" } });
    expect(r.json.task.status.state).toBe("TASK_STATE_COMPLETED");
  });

  it("answers a direct Message as {message}", async () => {
    const r = await rest(t.url, "POST", "/message:send", { body: { message: userMessage("message") } });
    expect(Object.keys(r.json)).toEqual(["message"]);
    expect(r.json.message.role).toBe("ROLE_AGENT");
  });

  it("honours the send configuration: returnImmediately answers a working task", async () => {
    const task = await sendText(t.url, "slow 300", { configuration: { returnImmediately: true } });
    expect(task.status.state).toBe("TASK_STATE_WORKING");
  });
});

describe("task routes (§11.3.2)", () => {
  it("GET /tasks/{id} answers the task", async () => {
    const sent = await sendText(t.url, "get me");
    const r = await rest(t.url, "GET", `/tasks/${sent.id}`, { headers: { accept: "application/a2a+json" } });
    expect(r.status).toBe(200);
    expect(r.type).toBe("application/a2a+json");
    expect(r.json).toMatchObject({ id: sent.id, contextId: sent.contextId, status: { state: "TASK_STATE_COMPLETED" } });
  });

  it("GET /tasks lists tasks with the required fields", async () => {
    const sent = await sendText(t.url, "list me");
    const r = await rest(t.url, "GET", `/tasks?contextId=${sent.contextId}`);
    expect(r.status).toBe(200);
    expect(r.json).toEqual({ tasks: [expect.objectContaining({ id: sent.id })], nextPageToken: "", pageSize: 50, totalSize: 1 });
  });

  it("POST /tasks/{id}:cancel cancels a working task, with or without a body", async () => {
    for (const body of [undefined, {}]) {
      const task = await sendText(t.url, "slow 5000", { configuration: { returnImmediately: true } });
      const r = await rest(t.url, "POST", `/tasks/${task.id}:cancel`, { body, headers: { "content-type": "application/json" } });
      expect(r.status, r.text).toBe(200);
      expect(r.json).toMatchObject({ id: task.id, status: { state: "TASK_STATE_CANCELED" } });
    }
  });

  it("refuses a body whose id disagrees with the path, naming the field", async () => {
    const task = await sendText(t.url, "done");
    const r = await rest(t.url, "POST", `/tasks/${task.id}:cancel`, { body: { id: "another-task" } });
    expectStatusError(r, 400, "INVALID_ARGUMENT");
    expect(violatedFields(r)).toEqual(["id"]);
  });

  it("reads ids with colons literally and percent-encoded colons as part of the id", async () => {
    const literal = await rest(t.url, "GET", "/tasks/urn:uuid:1234");
    expectStatusError(literal, 404, "NOT_FOUND", "TASK_NOT_FOUND");
    expect(literal.json.error.details[0].metadata.taskId).toBe("urn:uuid:1234");
    const encoded = await rest(t.url, "GET", `/tasks/${encodeURIComponent("a:cancel")}`);
    expect(encoded.json.error.details[0].metadata.taskId).toBe("a:cancel");
  });
});

describe("push notification config routes (§11.3.3)", () => {
  it("create, get, list and delete round-trip on a task", async () => {
    const task = await sendText(t.url, "input-required");
    const base = `/tasks/${task.id}/pushNotificationConfigs`;
    const created = await rest(t.url, "POST", base, { body: { url: "https://example.com/hook", token: "tok" } });
    expect(created.status, created.text).toBe(200);
    expect(created.json).toMatchObject({ id: expect.any(String), taskId: task.id, url: "https://example.com/hook", token: "tok" });
    const id = created.json.id as string;

    expect((await rest(t.url, "GET", `${base}/${id}`)).json).toMatchObject({ id, taskId: task.id, url: "https://example.com/hook" });
    expect((await rest(t.url, "GET", base)).json.configs.map((c: any) => c.id)).toEqual([id]);

    const deleted = await rest(t.url, "DELETE", `${base}/${id}`);
    expect(deleted.status).toBe(200);
    expect(deleted.json).toEqual({});
    expect((await rest(t.url, "GET", base)).json).toEqual({ configs: [] });
    expectStatusError(await rest(t.url, "GET", `${base}/${id}`), 404, "NOT_FOUND", "TASK_NOT_FOUND");
  });

  it("takes the task from the path and refuses a body naming another", async () => {
    const task = await sendText(t.url, "input-required");
    const same = await rest(t.url, "POST", `/tasks/${task.id}/pushNotificationConfigs`, { body: { taskId: task.id, id: "mine", url: "https://example.com/a" } });
    expect(same.json).toMatchObject({ id: "mine", taskId: task.id });
    const other = await rest(t.url, "POST", `/tasks/${task.id}/pushNotificationConfigs`, { body: { taskId: "other", url: "https://example.com/a" } });
    expectStatusError(other, 400, "INVALID_ARGUMENT");
    expect(violatedFields(other)).toEqual(["taskId"]);
  });
});

describe("GET /extendedAgentCard (§11.3.4)", () => {
  it("is UnsupportedOperation when the card does not declare one", async () => {
    expectStatusError(await rest(t.url, "GET", "/extendedAgentCard"), 400, "FAILED_PRECONDITION", "UNSUPPORTED_OPERATION");
  });

  it("answers the configured extended card", async () => {
    const card = echoCard();
    card.capabilities!.extendedAgentCard = true;
    const extendedCard = create(AgentCardSchema, { ...card, name: "echo, extended" });
    const h = await startTestHub({ agents: [{ id: "echo", executor: new EchoAgent(), card, extendedCard }] });
    try {
      const r = await rest(h.url, "GET", "/extendedAgentCard");
      expect(r.status).toBe(200);
      expect(r.json.name).toBe("echo, extended");
    } finally {
      await h.stop();
    }
  });
});

describe("the /{tenant} prefix", () => {
  it("fills the request's tenant on every route", async () => {
    const task = await sendText(t.url, "tenant echo", { prefix: "/echo" });
    expect((await rest(t.url, "GET", `/echo/tasks/${task.id}`)).json.id).toBe(task.id);
    expect((await rest(t.url, "GET", `/echo/tasks?contextId=${task.contextId}`)).json.tasks).toHaveLength(1);
    expectStatusError(await rest(t.url, "POST", `/echo/tasks/${task.id}:cancel`), 400, "FAILED_PRECONDITION", "TASK_NOT_CANCELABLE");
    expect((await rest(t.url, "GET", `/echo/tasks/${task.id}/pushNotificationConfigs`)).json).toEqual({ configs: [] });
    expectStatusError(await rest(t.url, "GET", "/echo/extendedAgentCard"), 400, "FAILED_PRECONDITION", "UNSUPPORTED_OPERATION");
  });

  it("answers a tenant no agent has as not found, with a reason that names the agent, not a task (§13.1)", async () => {
    expectStatusError(await rest(t.url, "GET", "/nobody/tasks"), 404, "NOT_FOUND", "AGENT_NOT_FOUND");
  });

  it("refuses a body tenant that disagrees with the path", async () => {
    const r = await rest(t.url, "POST", "/echo/message:send", { body: { tenant: "other", message: userMessage("x") } });
    expect(violatedFields(r)).toEqual(["tenant"]);
  });

  it("reads a path as tenant-less first: /tasks/tasks is the task named tasks", () => {
    expect(matchRoute("GET", "/tasks/tasks")).toMatchObject({ kind: "found", fields: { id: "tasks" } });
    expect(matchRoute("GET", "/acme/tasks")).toMatchObject({ kind: "found", fields: { tenant: "acme" } });
    expect(matchRoute("GET", "/acme/tasks/t-1:subscribe")).toMatchObject({ kind: "found", fields: { tenant: "acme", id: "t-1" } });
  });
});

describe("unknown paths and wrong methods", () => {
  it("answers 404 in the google.rpc.Status form for a path no route has", async () => {
    for (const path of ["/nothing-here", "/tasks/a/b", "/tasks/", "/message:fly", "/a/b/c/d/e"]) {
      const r = await rest(t.url, "GET", path);
      expectStatusError(r, 404, "NOT_FOUND");
      expect(r.json.error.details).toEqual([]);
    }
  });

  it("answers 405 with Allow for a known path and a wrong method", async () => {
    const cases: Array<[string, string, string]> = [
      ["GET", "/message:send", "POST"],
      ["DELETE", "/tasks/x", "GET"],
      ["PUT", "/tasks/x:subscribe", "GET, POST"],
      ["GET", "/tasks/x:cancel", "POST"],
      ["PATCH", "/tasks/x/pushNotificationConfigs/y", "GET, DELETE"],
      ["POST", "/echo/extendedAgentCard", "GET"],
    ];
    for (const [method, path, allow] of cases) {
      const r = await rest(t.url, method, path);
      expectStatusError(r, 405, "UNIMPLEMENTED");
      expect(r.headers.get("allow"), `${method} ${path}`).toBe(allow);
    }
  });
});

describe("a handler mounted under a base path", () => {
  let based: TestHub;
  beforeAll(async () => {
    based = await startRestHub({ handler: { basePath: "/agents/echo/" } });
  });
  afterAll(async () => {
    await based.stop();
  });

  it("serves the routes under the base and leaves other paths alone", async () => {
    const task = await sendText(based.url, "based", { prefix: "/agents/echo" });
    expect((await rest(based.url, "GET", `/agents/echo/tasks/${task.id}`)).json.id).toBe(task.id);
    expectStatusError(await rest(based.url, "GET", "/agents/echo/nothing"), 404, "NOT_FOUND");
    // Outside the base the mount declines and the hub's own routes answer.
    expect((await rest(based.url, "GET", `/tasks/${task.id}`)).json.id).toBe(task.id);
  });
});

describe("over HTTP/2 (h2c on the same port)", () => {
  it("answers REST calls and errors", async () => {
    const session = http2.connect(t.url);
    const call = async (headers: http2.OutgoingHttpHeaders, body?: string) => {
      const r = await h2Request(session, headers, body);
      return { status: r.status, type: r.type, json: JSON.parse(r.text) };
    };
    try {
      const sent = await call(
        { ":method": "POST", ":path": "/message:send", "content-type": "application/a2a+json", accept: "application/a2a+json" },
        JSON.stringify({ message: userMessage("over h2") }),
      );
      expect(sent.status).toBe(200);
      expect(sent.type).toBe("application/a2a+json");
      const got = await call({ ":method": "GET", ":path": `/tasks/${sent.json.task.id}` });
      expect(got.json.status.state).toBe("TASK_STATE_COMPLETED");
      const missing = await call({ ":method": "GET", ":path": "/tasks/none" });
      expect(missing).toMatchObject({ status: 404, json: { error: { code: 404, status: "NOT_FOUND" } } });
    } finally {
      session.close();
    }
  });
});
