import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { create } from "@bufbuild/protobuf";
import { AgentCardSchema } from "../../../gen/a2a/v1/a2a_pb.js";
import { EchoAgent, echoCard } from "../../../src/agents/index.js";
import type { ServiceParams } from "../../../src/core/index.js";
import { prefersProblemDetails } from "../../../src/bindings/rest/index.js";
import { expectStatusError, rest, sendText, startRestHub, userMessage, violatedFields, type RestReply } from "../../helpers/rest.js";
import { spyOnGetTask } from "../../helpers/service-spies.js";
import { startTestHub, type TestHub } from "../../helpers/test-hub.js";

const PROBLEM = { accept: "application/problem+json" };

/** Expects RFC 9457 problem details with the v1.0 draft's A2A type URI for `slug`. */
function expectProblem(r: RestReply, status: number, slug: string): void {
  expect(r.status, r.text).toBe(status);
  expect(r.type).toBe("application/problem+json");
  expect(r.json).toMatchObject({ type: `https://a2a-protocol.org/errors/${slug}`, title: expect.any(String), status, detail: expect.any(String) });
}

let t: TestHub;
const seen: ServiceParams[] = [];
beforeAll(async () => {
  t = await startRestHub({
    handler: { maxBodyBytes: 4096 },
    wrap: spyOnGetTask(seen),
  });
});
afterAll(async () => {
  await t.stop();
});

describe("§11.6 google.rpc.Status bodies, statuses per §5.4", () => {
  it("TaskNotFound is 404 NOT_FOUND with an ErrorInfo carrying the task id", async () => {
    const r = await rest(t.url, "GET", "/tasks/no-such-task");
    expectStatusError(r, 404, "NOT_FOUND", "TASK_NOT_FOUND");
    expect(r.json).toEqual({
      error: {
        code: 404,
        status: "NOT_FOUND",
        message: expect.stringContaining("no-such-task"),
        details: [{ "@type": "type.googleapis.com/google.rpc.ErrorInfo", reason: "TASK_NOT_FOUND", domain: "a2a-protocol.org", metadata: { taskId: "no-such-task" } }],
      },
    });
  });

  it("TaskNotCancelable is 400 FAILED_PRECONDITION", async () => {
    const task = await sendText(t.url, "done");
    expectStatusError(await rest(t.url, "POST", `/tasks/${task.id}:cancel`), 400, "FAILED_PRECONDITION", "TASK_NOT_CANCELABLE");
  });

  it("UnsupportedOperation is 400 FAILED_PRECONDITION (a message to a terminal task)", async () => {
    const task = await sendText(t.url, "done");
    const r = await rest(t.url, "POST", "/message:send", { body: { message: userMessage("again", { taskId: task.id }) } });
    expectStatusError(r, 400, "FAILED_PRECONDITION", "UNSUPPORTED_OPERATION");
  });

  it("ContentTypeNotSupported is 400 INVALID_ARGUMENT with the ErrorInfo and the offending field", async () => {
    const message = { messageId: crypto.randomUUID(), role: "ROLE_USER", parts: [{ text: "x" }, { raw: "AQI=", mediaType: "image/png" }] };
    const r = await rest(t.url, "POST", "/message:send", { body: { message } });
    expectStatusError(r, 400, "INVALID_ARGUMENT", "CONTENT_TYPE_NOT_SUPPORTED");
    expect(violatedFields(r)).toEqual(["message.parts[1].mediaType"]);
  });

  it("invalid input is 400 INVALID_ARGUMENT with BadRequest field violations", async () => {
    const cases: Array<[unknown, string]> = [
      [{ message: { role: "ROLE_USER", parts: [{ text: "x" }] } }, "message.messageId"],
      [{ message: { messageId: "m", role: "ROLE_USER", parts: [] } }, "message.parts"],
      [{ message: { messageId: "m", role: "ROLE_USER", parts: "x" } }, "message.parts"],
      [{ message: { messageId: "m", role: "ROLE_WIZARD", parts: [{ text: "x" }] } }, "message.role"],
      [{ message: { messageId: "m", role: "ROLE_USER", parts: [{ raw: "%%%" }] } }, "message.parts[0].raw"],
      [{ configuration: { historyLength: -1 }, message: userMessage("x") }, "configuration.historyLength"],
    ];
    for (const [body, field] of cases) {
      const r = await rest(t.url, "POST", "/message:send", { body });
      expectStatusError(r, 400, "INVALID_ARGUMENT");
      expect(violatedFields(r), JSON.stringify(body)).toEqual([field]);
    }
  });

  it("a body that is not JSON, or not an object, is 400 INVALID_ARGUMENT", async () => {
    expectStatusError(await rest(t.url, "POST", "/message:send", { raw: "{not json" }), 400, "INVALID_ARGUMENT");
    const array = await rest(t.url, "POST", "/message:send", { raw: "[1,2]" });
    expectStatusError(array, 400, "INVALID_ARGUMENT");
    expect(violatedFields(array)).toEqual(["body"]);
  });

  it("a body that is not JSON by its Content-Type is ContentTypeNotSupported, 400", async () => {
    const r = await rest(t.url, "POST", "/message:send", { raw: "hello", headers: { "content-type": "text/plain" } });
    expectStatusError(r, 400, "INVALID_ARGUMENT", "CONTENT_TYPE_NOT_SUPPORTED");
  });

  it("a body over the limit is 413, and the server stays usable", async () => {
    const r = await rest(t.url, "POST", "/message:send", { body: { message: userMessage("x".repeat(10_000)) } });
    expectStatusError(r, 413, "INVALID_ARGUMENT");
    expect((await rest(t.url, "GET", "/tasks/none")).status).toBe(404);
  });

  it("an unexpected failure is 500 INTERNAL and says nothing of ours", async () => {
    const r = await rest(t.url, "GET", "/tasks/explode");
    expectStatusError(r, 500, "INTERNAL");
    expect(r.text).not.toContain("hunter2");
    expect(r.text).not.toContain("store.ts");
  });
});

describe("PushNotificationNotSupported on an agent without push (§3.3.4)", () => {
  let noPush: TestHub;
  beforeAll(async () => {
    noPush = await startTestHub({ agents: [{ id: "echo", executor: new EchoAgent(), card: echoCard({ pushNotifications: false }) }] });
  });
  afterAll(async () => {
    await noPush.stop();
  });

  it("is 400 FAILED_PRECONDITION on all four push routes", async () => {
    const task = await sendText(noPush.url, "input-required");
    const base = `/tasks/${task.id}/pushNotificationConfigs`;
    const calls: Array<[string, string, unknown]> = [
      ["POST", base, { url: "https://example.com/hook" }],
      ["GET", base, undefined],
      ["GET", `${base}/c1`, undefined],
      ["DELETE", `${base}/c1`, undefined],
    ];
    for (const [method, path, body] of calls) {
      expectStatusError(await rest(noPush.url, method, path, { body }), 400, "FAILED_PRECONDITION", "PUSH_NOTIFICATION_NOT_SUPPORTED");
    }
  });
});

describe("RFC 9457 problem details when the client asks for them", () => {
  it("answers application/problem+json with the A2A type URI, the reason and the metadata", async () => {
    const r = await rest(t.url, "GET", "/tasks/no-such-task", { headers: PROBLEM });
    expectProblem(r, 404, "task-not-found");
    expect(r.json).toMatchObject({ reason: "TASK_NOT_FOUND", taskId: "no-such-task", title: "Task not found" });
  });

  it("names each A2A error by its kebab-case type", async () => {
    const task = await sendText(t.url, "done");
    expectProblem(await rest(t.url, "POST", `/tasks/${task.id}:cancel`, { headers: PROBLEM }), 400, "task-not-cancelable");
    expectProblem(await rest(t.url, "GET", "/extendedAgentCard", { headers: PROBLEM }), 400, "unsupported-operation");
    expectProblem(await rest(t.url, "GET", "/tasks", { headers: { ...PROBLEM, "A2A-Version": "0.5" } }), 400, "version-not-supported");
  });

  it("lists field violations as errors[] (§6.5)", async () => {
    const r = await rest(t.url, "GET", "/tasks?pageSize=150", { headers: PROBLEM });
    expectProblem(r, 400, "invalid-params");
    expect(r.json.errors).toEqual([{ field: "pageSize", message: expect.stringContaining("150") }]);
  });

  it("uses about:blank for HTTP-level failures", async () => {
    const r = await rest(t.url, "GET", "/nowhere", { headers: PROBLEM });
    expect(r.type).toBe("application/problem+json");
    expect(r.json).toMatchObject({ type: "about:blank", title: "Not Found", status: 404 });
    const m = await rest(t.url, "DELETE", "/tasks/x", { headers: PROBLEM });
    expect(m.json).toMatchObject({ type: "about:blank", status: 405 });
    expect(m.headers.get("allow")).toBe("GET");
  });

  it("prefers it only when Accept ranks it above the JSON types", () => {
    expect(prefersProblemDetails(undefined)).toBe(false);
    expect(prefersProblemDetails("*/*")).toBe(false);
    expect(prefersProblemDetails("application/json")).toBe(false);
    expect(prefersProblemDetails("application/problem+json")).toBe(true);
    expect(prefersProblemDetails("application/problem+json, application/json")).toBe(true);
    expect(prefersProblemDetails("application/a2a+json, application/problem+json")).toBe(false);
    expect(prefersProblemDetails("application/json;q=0.5, application/problem+json;q=0.9")).toBe(true);
    expect(prefersProblemDetails("application/problem+json;q=0.1, */*")).toBe(false);
    expect(prefersProblemDetails("Application/Problem+JSON")).toBe(true);
  });

  it("keeps the §11.6 form for a client that accepts both equally via */*", async () => {
    expectStatusError(await rest(t.url, "GET", "/tasks/none", { headers: { accept: "*/*" } }), 404, "NOT_FOUND", "TASK_NOT_FOUND");
  });
});

describe("A2A-Version, as in JSON-RPC (§3.6)", () => {
  it("refuses an unsupported version from the header or the query with VersionNotSupported", async () => {
    for (const [path, headers] of [
      ["/tasks", { "A2A-Version": "9.9" }],
      ["/tasks?A2A-Version=2.0", {}],
    ] as const) {
      const r = await rest(t.url, "GET", path, { headers });
      expectStatusError(r, 400, "FAILED_PRECONDITION", "VERSION_NOT_SUPPORTED");
      expect(r.json.error.details[0].metadata).toMatchObject({ supportedVersions: "1.0" });
    }
  });

  it("refuses 0.3: the v1.0 paths speak only 1.0 (v0.3's REST binding lived under /v1/)", async () => {
    expectStatusError(await rest(t.url, "GET", "/tasks", { headers: { "A2A-Version": "0.3" } }), 400, "FAILED_PRECONDITION", "VERSION_NOT_SUPPORTED");
  });

  it("refuses the version before reading the body, and keeps the connection usable", async () => {
    const r = await rest(t.url, "POST", "/message:send", { raw: "{not json", headers: { "A2A-Version": "3" } });
    expectStatusError(r, 400, "FAILED_PRECONDITION", "VERSION_NOT_SUPPORTED");
  });

  it("accepts 1.0, 1 and 1.0.1, and reads no header as 1.0", async () => {
    for (const v of ["1.0", "1", "1.0.1", undefined]) {
      const r = await rest(t.url, "GET", "/tasks/none", { headers: v === undefined ? {} : { "A2A-Version": v } });
      expect(r.status, String(v)).toBe(404);
      expect(seen.at(-1)?.version).toBe("1.0");
    }
  });

  it("answers 404 and 405 for paths whatever the version", async () => {
    expect((await rest(t.url, "GET", "/nowhere", { headers: { "A2A-Version": "9.9" } })).status).toBe(404);
  });
});

describe("A2A-Extensions, as in JSON-RPC (§3.2.6, §3.3.4)", () => {
  let ext: TestHub;
  beforeAll(async () => {
    const { $typeName: _, ...card } = echoCard();
    ext = await startTestHub({
      agents: [
        {
          id: "echo",
          executor: new EchoAgent(),
          card: create(AgentCardSchema, { ...card, capabilities: { streaming: true, extensions: [{ uri: "urn:x:required", required: true }, { uri: "urn:x:optional" }] } }),
        },
      ],
    });
  });
  afterAll(async () => {
    await ext.stop();
  });

  it("refuses a call without a required extension with ExtensionSupportRequired", async () => {
    const r = await rest(ext.url, "GET", "/tasks", { headers: { "A2A-Extensions": "urn:x:optional" } });
    expectStatusError(r, 400, "FAILED_PRECONDITION", "EXTENSION_SUPPORT_REQUIRED");
    expect(r.json.error.message).toContain("urn:x:required");
    expect(r.headers.get("a2a-extensions")).toBe("urn:x:optional");
  });

  it("echoes the activated extensions the card declares, and only those", async () => {
    const r = await rest(ext.url, "GET", "/tasks", { headers: { "A2A-Extensions": "urn:x:required, urn:x:unknown,urn:x:optional" } });
    expect(r.status).toBe(200);
    expect(r.headers.get("a2a-extensions")).toBe("urn:x:required, urn:x:optional");
  });

  // Core matches them against the agent the call resolves to, once for every binding (as gRPC/Connect pass them).
  it("passes the extensions the client listed to the service, as gRPC and Connect do", async () => {
    await rest(t.url, "GET", "/tasks/none", { headers: { "A2A-Extensions": "urn:not:declared" } });
    expect(seen.at(-1)?.extensions).toEqual(["urn:not:declared"]);
  });
});
