import * as http2 from "node:http2";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { create } from "@bufbuild/protobuf";
import { AgentCardSchema } from "../../../gen/a2a/v1/a2a_pb.js";
import { EchoAgent, echoCard } from "../../../src/agents/index.js";
import type { ServiceParams } from "../../../src/core/index.js";
import { createJsonRpcHandler } from "../../../src/bindings/jsonrpc/index.js";
import { h2Request, H2_JSONRPC_POST } from "../../helpers/h2c.js";
import { userMessage } from "../../helpers/json-messages.js";
import { startJsonRpcHub } from "../../helpers/jsonrpc-hub.js";
import { post, rpc } from "../../helpers/jsonrpc-requests.js";
import { spyOnGetTask } from "../../helpers/service-spies.js";
import type { TestHub } from "../../helpers/test-hub.js";

let t: TestHub;
const seen: ServiceParams[] = [];
beforeAll(async () => {
  t = await startJsonRpcHub({
    handler: { maxBodyBytes: 64 * 1024 },
    wrap: spyOnGetTask(seen),
  });
});
afterAll(async () => {
  await t.stop();
});

describe("JSON-RPC envelope errors", () => {
  it("answers invalid JSON with -32700 and id null, as HTTP 200 application/json", async () => {
    for (const body of ['{"jsonrpc":"2.0","id":1,"method":', "", "   "]) {
      const r = await post(t.url, body);
      expect(r.status).toBe(200);
      expect(r.type).toBe("application/json");
      expect(r.json).toMatchObject({ jsonrpc: "2.0", id: null, error: { code: -32700 } });
    }
  });

  it("answers what is not a Request object with -32600", async () => {
    for (const [body, id] of [
      ["[]", null],
      ['{"foo":1}', null],
      ["42", null],
      ['"x"', null],
      ['{"id":7,"method":"GetTask"}', 7],
      ['{"jsonrpc":"1.0","id":"a","method":"GetTask"}', "a"],
      ['{"jsonrpc":"2.0","id":8}', 8],
      ['{"jsonrpc":"2.0","id":{"x":1},"method":"GetTask"}', null],
    ] as const) {
      const r = await post(t.url, body);
      expect(r.status).toBe(200);
      expect(r.json, body).toMatchObject({ id, error: { code: -32600 } });
    }
  });

  it("answers an unknown method with -32601, echoing the id", async () => {
    for (const method of ["NoSuchMethod", "tasks/foo", "getTask", "sendMessage"]) {
      expect((await post(t.url, rpc(method, {}, "mnf"))).json).toMatchObject({ id: "mnf", error: { code: -32601 } });
    }
  });

  it("echoes string, number, zero and null ids with their type", async () => {
    for (const id of ["ß-id", 42, 0, -1.5, null]) {
      expect((await post(t.url, rpc("GetTask", { id: "nope" }, id))).json.id).toStrictEqual(id);
      expect((await post(t.url, rpc("ListTasks", {}, id))).json).toMatchObject({ id, result: { nextPageToken: expect.any(String) } });
    }
  });

  it("answers params of the wrong shape with -32602 and a BadRequest naming the field", async () => {
    // A string params is no structured value at all: -32600 (JSON-RPC 2.0 §4), in jsonrpc-corners.test.ts.
    const cases: Array<[unknown, string]> = [
      [[1, 2], "params"],
      [{}, "id"],
      [{ id: { not: "a string" } }, "id"],
      [{ id: "t", historyLength: "many" }, "historyLength"],
    ];
    for (const [params, field] of cases) {
      const r = await post(t.url, rpc("GetTask", params));
      expect(r.json.error.code).toBe(-32602);
      expect(r.json.error.data).toContainEqual({ "@type": "type.googleapis.com/google.rpc.BadRequest", fieldViolations: [expect.objectContaining({ field })] });
    }
    const bad = await post(t.url, rpc("SendMessage", { message: userMessage("x", { parts: [{ raw: "***" }] }) }));
    expect(bad.json.error.data[0].fieldViolations[0].field).toBe("message.parts[0].raw");
  });

  it("answers an A2A error with its §5.4 code and an ErrorInfo", async () => {
    const r = await post(t.url, rpc("GetTask", { id: "no-such-task" }));
    expect(r.status).toBe(200);
    expect(r.json.error).toMatchObject({
      code: -32001,
      data: [{ "@type": "type.googleapis.com/google.rpc.ErrorInfo", reason: "TASK_NOT_FOUND", domain: "a2a-protocol.org", metadata: { taskId: "no-such-task" } }],
    });
  });

  it("answers an unexpected failure with -32603 and leaks nothing of it", async () => {
    const r = await post(t.url, rpc("GetTask", { id: "explode" }));
    expect(r.json).toEqual({ jsonrpc: "2.0", id: 1, error: { code: -32603, message: "Internal error" } });
    expect(r.text).not.toMatch(/hunter2|store\.ts|secret/);
  });

  it("answers plain responses as application/json", async () => {
    const r = await post(t.url, rpc("SendMessage", { message: userMessage("hello") }));
    expect(r.type).toBe("application/json");
    expect(r.json.result.task.status.state).toBe("TASK_STATE_COMPLETED");
  });

  it("refuses methods other than POST with 405", async () => {
    // The route only sends POST here; the handler itself still guards.
    const h = createJsonRpcHandler({ service: t.hub.core.service, card: (r) => t.hub.cardFor(r) });
    const res = { status: 0, headers: {} as Record<string, string>, body: "", writableEnded: false, writeHead(s: number, h: Record<string, string>) { this.status = s; this.headers = h; }, end(b?: string) { this.body = b ?? ""; this.writableEnded = true; }, once() {} };
    await h({ method: "GET", headers: {}, url: "/", httpVersionMajor: 1 } as never, res as never);
    expect(res.status).toBe(405);
    expect(res.headers.allow).toBe("POST");
  });
});

describe("JSON-RPC batches and notifications", () => {
  it("answers a batch with an array in request order, skipping notifications", async () => {
    const ctx = `batch-${crypto.randomUUID()}`;
    const r = await post(t.url, [
      rpc("GetTask", { id: "nope" }, "a"),
      { jsonrpc: "2.0", method: "SendMessage", params: { message: userMessage("from a notification", { contextId: ctx }) } },
      rpc("NoSuch", {}, "b"),
      rpc("SendStreamingMessage", { message: userMessage("x") }, "c"),
      rpc("tasks/resubscribe", { id: "x" }, "c2"),
      1,
      rpc("ListTasks", { pageSize: 1 }, "d"),
    ]);
    expect(r.status).toBe(200);
    expect(r.json.map((x: { id: unknown }) => x.id)).toEqual(["a", "b", "c", "c2", null, "d"]);
    expect(r.json.map((x: { error?: { code: number } }) => x.error?.code)).toEqual([-32001, -32601, -32600, -32600, -32600, undefined]);
    expect(r.json[5].result.pageSize).toBe(1);
    // The notification ran: its task is there (SendMessage blocks until it settles, so it may still be running).
    await expect.poll(async () => (await post(t.url, rpc("ListTasks", { contextId: ctx }))).json.result.totalSize).toBe(1);
  });

  it("answers an empty batch with one -32600", async () => {
    expect((await post(t.url, "[]")).json).toMatchObject({ id: null, error: { code: -32600 } });
  });

  it("answers a batch of notifications, or one notification, with 204 and no body", async () => {
    const ctx = `notify-${crypto.randomUUID()}`;
    const one = await post(t.url, { jsonrpc: "2.0", method: "SendMessage", params: { message: userMessage("n1", { contextId: ctx }) } });
    expect(one.status).toBe(204);
    expect(one.text).toBe("");
    const many = await post(t.url, [
      { jsonrpc: "2.0", method: "SendMessage", params: { message: userMessage("n2", { contextId: ctx }) } },
      { jsonrpc: "2.0", method: "NoSuchMethod" },
      { jsonrpc: "2.0", method: "SendStreamingMessage", params: { message: userMessage("n3", { contextId: ctx }) } },
    ]);
    expect(many.status).toBe(204);
    await expect.poll(async () => (await post(t.url, rpc("ListTasks", { contextId: ctx }))).json.result.totalSize).toBe(3);
  });

  it("refuses batches over the limit as a whole", async () => {
    const r = await post(t.url, Array.from({ length: 101 }, (_, i) => rpc("GetTask", { id: "x" }, i)));
    expect(r.json).toMatchObject({ id: null, error: { code: -32600, message: expect.stringContaining("at most 100") } });
  });
});

describe("JSON-RPC request bodies over the limit", () => {
  const big = JSON.stringify(rpc("GetTask", { id: "x".repeat(100 * 1024) }));

  it("answers -32600 with the limit in the message, with or without a Content-Length", async () => {
    const withLength = await post(t.url, big);
    expect(withLength.status).toBe(200);
    expect(withLength.json).toMatchObject({ id: null, error: { code: -32600, message: expect.stringContaining("65536 bytes") } });
    const chunks = new TextEncoder().encode(big);
    const streamed = await fetch(t.url, {
      method: "POST",
      body: new ReadableStream({
        start(c) {
          for (let i = 0; i < chunks.length; i += 8192) c.enqueue(chunks.slice(i, i + 8192));
          c.close();
        },
      }),
      duplex: "half",
    } as RequestInit);
    expect(await streamed.json()).toMatchObject({ id: null, error: { code: -32600 } });
  });

  it("keeps serving afterwards", async () => {
    await post(t.url, big);
    expect((await post(t.url, rpc("ListTasks", {}))).json.result).toBeDefined();
  });
});

describe("A2A-Version", () => {
  it("refuses an unsupported version with -32009 and id null, from the header or the query", async () => {
    const viaHeader = await post(t.url, rpc("GetTask", { id: "x" }, 5), { "A2A-Version": "9.9" });
    expect(viaHeader.status).toBe(200);
    expect(viaHeader.json).toMatchObject({ id: null, error: { code: -32009, data: [expect.objectContaining({ reason: "VERSION_NOT_SUPPORTED" })] } });
    const viaQuery = await post(`${t.url}?A2A-Version=2.0`, rpc("GetTask", { id: "x" }, 5));
    expect(viaQuery.json).toMatchObject({ id: null, error: { code: -32009 } });
    // Refused before the envelope is read: even a broken body gets -32009.
    expect((await post(t.url, "{not json", { "A2A-Version": "3" })).json.error.code).toBe(-32009);
  });

  it("accepts 1.0, 1 and 0.3, and infers the version from the method name when none is sent", async () => {
    const cases: Array<[string | undefined, string, string]> = [
      ["1.0", "GetTask", "1.0"],
      ["1", "GetTask", "1.0"],
      ["0.3", "tasks/get", "0.3"],
      [undefined, "GetTask", "1.0"],
      [undefined, "tasks/get", "0.3"],
      ["", "tasks/get", "0.3"],
    ];
    for (const [version, method, expected] of cases) {
      seen.length = 0;
      const r = await post(t.url, rpc(method, { id: "nope" }), version === undefined ? {} : { "A2A-Version": version });
      expect(r.json.error.code, `${version} ${method}`).toBe(-32001);
      expect(seen.at(-1)?.version).toBe(expected);
    }
  });
});

describe("A2A-Extensions", () => {
  let ext: TestHub;
  beforeAll(async () => {
    const { $typeName: _, ...card } = echoCard();
    ext = await startJsonRpcHub({
      hub: {
        agents: [
          {
            id: "echo",
            executor: new EchoAgent(),
            card: create(AgentCardSchema, {
              ...card,
              capabilities: { streaming: true, extensions: [{ uri: "urn:x:required", required: true }, { uri: "urn:x:optional" }] },
            }),
          },
        ],
      },
    });
  });
  afterAll(async () => {
    await ext.stop();
  });

  it("refuses a call without a required extension with -32008", async () => {
    const r = await post(ext.url, rpc("ListTasks", {}, "e"), { "A2A-Extensions": "urn:x:optional" });
    expect(r.json).toMatchObject({ id: "e", error: { code: -32008, message: expect.stringContaining("urn:x:required") } });
    expect(r.json.error.data[0].reason).toBe("EXTENSION_SUPPORT_REQUIRED");
  });

  it("echoes the activated extensions the card declares, and only those", async () => {
    const r = await post(ext.url, rpc("ListTasks", {}), { "A2A-Extensions": "urn:x:required, urn:x:unknown,urn:x:optional" });
    expect(r.json.result).toBeDefined();
    expect(r.headers.get("a2a-extensions")).toBe("urn:x:required, urn:x:optional");
  });

  // Core matches them against the agent the call resolves to, once for every binding (as gRPC/Connect pass them).
  it("passes the extensions the client listed to the service, as gRPC and Connect do", async () => {
    seen.length = 0;
    await post(t.url, rpc("GetTask", { id: "nope" }), { "A2A-Extensions": "urn:not:declared" });
    expect(seen.at(-1)?.extensions).toEqual(["urn:not:declared"]);
  });
});

describe("JSON-RPC over HTTP/2", () => {
  it("answers unary calls over h2c", async () => {
    const session = http2.connect(t.url);
    try {
      const body = (await h2Request(session, H2_JSONRPC_POST, JSON.stringify(rpc("message/send", { message: { kind: "message", messageId: "h2", role: "user", parts: [{ kind: "text", text: "over h2" }] } }, "h2")))).text;
      expect(JSON.parse(body)).toMatchObject({ id: "h2", result: { kind: "task", status: { state: "completed" } } });
    } finally {
      session.close();
    }
  });
});
