import { describe, expect, it } from "vitest";
import { gzipSync } from "node:zlib";
import { fromBinary, toBinary, toJson } from "@bufbuild/protobuf";
import { A2AService, SendMessageRequestSchema, SendMessageResponseSchema, TaskState } from "../../../gen/a2a/v1/a2a_pb.js";
import { textRequest } from "../../helpers/messages.js";
import { withTestHub } from "../../helpers/test-hub.js";

/**
 * Connect unary POSTs (JSON and binary codecs) are answered by the hub's
 * direct path (bindings/rpc/direct/protocol-connect/unary-handler.ts), not connect-node.
 * A body sent gzip-compressed (`content-encoding: gzip`) still goes to
 * connect-node, which inflates it to the same bytes, so every answer here
 * is compared with connect-node's answer to the same request: the HTTP
 * status, the content type, the extensions header and the body.
 */

const MAX_BODY_BYTES = 64 * 1024;

const h = withTestHub({ maxBodyBytes: MAX_BODY_BYTES });

interface Answer {
  status: number;
  type: string | null;
  extensions: string | null;
  body: Buffer;
}

async function post(method: string, body: Buffer, type: string, headers: Record<string, string>): Promise<Answer> {
  const res = await fetch(`${h.hub.url}lf.a2a.v1.A2AService/${method}`, { method: "POST", headers: { "content-type": type, "accept-encoding": "identity", ...headers }, body: new Uint8Array(body) });
  return { status: res.status, type: res.headers.get("content-type"), extensions: res.headers.get("a2a-extensions"), body: Buffer.from(await res.arrayBuffer()) };
}

/** The same request to the direct path and, compressed, to connect-node. */
async function both(method: string, body: Buffer, type = "application/json", headers: Record<string, string> = {}): Promise<{ hub: Answer; connect: Answer }> {
  const hub = await post(method, body, type, headers);
  const connect = await post(method, gzipSync(body), type, { ...headers, "content-encoding": "gzip" });
  return { hub, connect };
}

const json = (value: unknown): Buffer => Buffer.from(JSON.stringify(value));
const sendJson = (text: string): Buffer => json(toJson(SendMessageRequestSchema, textRequest(text)));

describe("Connect unary calls on the direct path", () => {
  it("SendMessage in JSON and in binary: a completed echo task, with connect-node's status and content type", async () => {
    const viaJson = await both("SendMessage", sendJson("hello json"));
    const viaProto = await both("SendMessage", Buffer.from(toBinary(SendMessageRequestSchema, textRequest("hello proto"))), "application/proto");
    for (const [answers, type] of [[viaJson, "application/json"], [viaProto, "application/proto"]] as const) {
      for (const answer of [answers.hub, answers.connect]) {
        expect(answer.status).toBe(200);
        expect(answer.type).toBe(type);
        const result = type === "application/json" ? JSON.parse(answer.body.toString()) : toJson(SendMessageResponseSchema, fromBinary(SendMessageResponseSchema, answer.body));
        expect(result.task.status.state).toBe("TASK_STATE_COMPLETED");
      }
    }
    const task = fromBinary(SendMessageResponseSchema, viaProto.hub.body).payload;
    expect(task.case === "task" && task.value.status?.state).toBe(TaskState.COMPLETED);
  });

  it("every unary method's refusal has connect-node's HTTP status and error body", async () => {
    const cases: Array<[string, unknown]> = [
      ["GetTask", { id: "no-such-task" }],
      ["CancelTask", { id: "no-such-task" }],
      ["ListTasks", { pageSize: -1 }],
      ["CreateTaskPushNotificationConfig", { taskId: "no-such-task", url: "http://127.0.0.1:9/hook" }],
      ["GetTaskPushNotificationConfig", { taskId: "no-such-task", id: "c" }],
      ["ListTaskPushNotificationConfigs", { taskId: "no-such-task" }],
      ["DeleteTaskPushNotificationConfig", { taskId: "no-such-task", id: "c" }],
      ["GetExtendedAgentCard", {}],
      ["SendMessage", { message: { messageId: "", parts: [] } }],
    ];
    const unary = A2AService.methods.filter((m) => m.methodKind === "unary").map((m) => m.name);
    expect(cases.map(([m]) => m).sort()).toEqual([...unary].sort());
    for (const [method, request] of cases) {
      const { hub, connect } = await both(method, json(request));
      expect(hub.status, method).toBeGreaterThanOrEqual(400);
      expect({ ...hub, body: JSON.parse(hub.body.toString()) }, method).toEqual({ ...connect, body: JSON.parse(connect.body.toString()) });
    }
  });

  it("bodies that do not parse, an unknown field and a body over maxBodyBytes are refused as connect-node refuses them", async () => {
    const cases: Array<[string, Buffer, string]> = [
      ["not JSON", Buffer.from("{nope"), "application/json"],
      ["an unknown field", json({ nope: 1 }), "application/json"],
      ["a wrong field type", json({ message: 7 }), "application/json"],
      ["not a SendMessageRequest", Buffer.from([0xff, 0xff, 0xff]), "application/proto"],
    ];
    for (const [what, body, type] of cases) {
      const { hub, connect } = await both("SendMessage", body, type);
      expect(hub.status, what).toBeGreaterThanOrEqual(400);
      expect(hub, what).toEqual(connect);
    }
    // connect-node's message for a compressed body speaks of decompression; the status and code are the same.
    const big = await both("SendMessage", json({ message: { messageId: "m", parts: [{ text: "x".repeat(MAX_BODY_BYTES) }] } }));
    expect(big.hub.status).toBe(429);
    expect([JSON.parse(big.hub.body.toString()).code, big.connect.status, JSON.parse(big.connect.body.toString()).code]).toEqual(["resource_exhausted", 429, "resource_exhausted"]);
    expect(JSON.parse(big.hub.body.toString()).message).toMatch(/^message size \d+ is larger than configured readMaxBytes 65536$/);
  });

  it("a refused version, a malformed deadline header, activated extensions and a passed deadline answer as connect-node does", async () => {
    const cases: Array<[string, Record<string, string>]> = [
      ["unsupported version", { "a2a-version": "9.9" }],
      ["a malformed connect-timeout-ms and an unsupported version", { "a2a-version": "9.9", "connect-timeout-ms": "soon" }],
    ];
    for (const [what, headers] of cases) {
      const { hub, connect } = await both("SendMessage", sendJson("x"), "application/json", headers);
      expect(hub.status, what).toBeGreaterThanOrEqual(400);
      expect(hub, what).toEqual(connect);
    }
    const echoed = await both("SendMessage", sendJson("hi"), "application/json", { "a2a-extensions": "urn:example:x" });
    expect(echoed.hub.extensions).toBe("urn:example:x");
    expect(echoed.connect.extensions).toBe("urn:example:x");
    const late = await both("SendMessage", sendJson("slow 3000"), "application/json", { "connect-timeout-ms": "300" });
    expect(late.hub.status).not.toBe(200);
    expect({ ...late.hub, body: JSON.parse(late.hub.body.toString()).code }).toEqual({ ...late.connect, body: JSON.parse(late.connect.body.toString()).code });
  });
});
