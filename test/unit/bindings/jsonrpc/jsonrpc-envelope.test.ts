import { describe, expect, it } from "vitest";
import { create, toJson } from "@bufbuild/protobuf";
import {
  GetTaskRequestSchema,
  ListTasksRequestSchema,
  ListTasksResponseSchema,
  Role,
  SendMessageRequestSchema,
  TaskSchema,
  TaskState,
  ListTaskPushNotificationConfigsResponseSchema,
} from "../../../../gen/a2a/v1/a2a_pb.js";
import { A2AError, ERROR_TABLE, silentLogger } from "../../../../src/core/index.js";
import { parseExtensions, parseVersion, readProtoJson, writeProtoJson } from "../../../../src/bindings/http/index.js";
import { checkEnvelope, ENVELOPE_ERRORS, EnvelopeError } from "../../../../src/bindings/jsonrpc/index.js";
import { toJsonRpcError } from "../../../../src/bindings/jsonrpc/jsonrpc-errors.js";

describe("JSON-RPC envelope", () => {
  it("accepts a request with string, number and null ids and tells notifications apart", () => {
    for (const id of ["a", 42, 0, null]) {
      const c = checkEnvelope({ jsonrpc: "2.0", id, method: "GetTask", params: { id: "t" } });
      expect(c).toEqual({ ok: true, request: { method: "GetTask", id, notification: false, params: { id: "t" } } });
    }
    const n = checkEnvelope({ jsonrpc: "2.0", method: "GetTask" });
    expect(n.ok && n.request.notification).toBe(true);
  });

  it.each([
    ["a number", 1, null],
    ["null", null, null],
    ["an array", [], null],
    ["no jsonrpc member", { id: 3, method: "GetTask" }, 3],
    ["jsonrpc 1.0", { jsonrpc: "1.0", id: "x", method: "GetTask" }, "x"],
    ["no method", { jsonrpc: "2.0", id: 1 }, 1],
    ["a non-string method", { jsonrpc: "2.0", id: 1, method: 5 }, 1],
    ["an object id", { jsonrpc: "2.0", id: { a: 1 }, method: "GetTask" }, null],
    ["a boolean id", { jsonrpc: "2.0", id: true, method: "GetTask" }, null],
  ])("refuses %s as -32600, echoing only a valid id", (_what, value, id) => {
    const c = checkEnvelope(value);
    expect(c.ok).toBe(false);
    if (c.ok) return;
    expect(c.id).toBe(id);
    expect(c.error.toJsonRpc().code).toBe(ENVELOPE_ERRORS.invalidRequest.code);
  });
});

describe("JSON-RPC error objects", () => {
  it("maps every A2A error through the table with an ErrorInfo in data", () => {
    for (const [name, row] of Object.entries(ERROR_TABLE)) {
      if (name === "InvalidParams" || name === "Internal") continue;
      const e = new A2AError(name as keyof typeof ERROR_TABLE, "boom", { metadata: { taskId: "t1" } });
      const out = toJsonRpcError(e, silentLogger);
      expect(out.code).toBe(row.jsonRpcCode);
      expect(out.message).toBe("boom");
      expect(out.data).toEqual([{ "@type": "type.googleapis.com/google.rpc.ErrorInfo", reason: row.reason, domain: "a2a-protocol.org", metadata: { taskId: "t1" } }]);
    }
  });

  it("maps InvalidParams to -32602 with a BadRequest field violation", () => {
    const e = new A2AError("InvalidParams", "id: is required", { violations: [{ field: "id", description: "is required" }] });
    expect(toJsonRpcError(e, silentLogger)).toEqual({
      code: -32602,
      message: "id: is required",
      data: [{ "@type": "type.googleapis.com/google.rpc.BadRequest", fieldViolations: [{ field: "id", description: "is required" }] }],
    });
  });

  it("answers anything unexpected with -32603 and no message or stack of its own", () => {
    const out = toJsonRpcError(new Error("secret database password in /srv/app.ts:12"), silentLogger);
    expect(out).toEqual({ code: -32603, message: "Internal error" });
    expect(toJsonRpcError(new A2AError("Internal", "internal detail"), silentLogger)).toEqual({ code: -32603, message: "Internal error" });
  });

  it("keeps JSON-RPC's own codes for envelope errors", () => {
    expect(new EnvelopeError("parseError", "x").toJsonRpc().code).toBe(-32700);
    expect(new EnvelopeError("methodNotFound", "x").toJsonRpc().code).toBe(-32601);
  });
});

describe("A2A-Version and A2A-Extensions", () => {
  it.each([
    ["1.0", "1.0"],
    ["1", "1.0"],
    ["1.0.1", "1.0"],
    [" 1.0 ", "1.0"],
    ["0.3", "0.3"],
    ["0.3.0", "0.3"],
    ["", undefined],
    [undefined, undefined],
  ])("reads %j as %j", (raw, version) => {
    expect(parseVersion(raw)).toBe(version);
  });

  it.each(["9.9", "2", "1.1", "0.2", "0", "v1", "latest"])("refuses %j as VersionNotSupported", (raw) => {
    expect(() => parseVersion(raw)).toThrowError(expect.objectContaining({ a2a: "VersionNotSupported" }) as never);
  });

  it("splits extension URIs on commas, trimming and deduplicating", () => {
    expect(parseExtensions(" urn:a , urn:b,,urn:a ")).toEqual(["urn:a", "urn:b"]);
    expect(parseExtensions(undefined)).toEqual([]);
  });
});

describe("ProtoJSON reading", () => {
  function violation(fn: () => unknown): { field: string; description: string } {
    try {
      fn();
    } catch (e) {
      expect(e).toBeInstanceOf(A2AError);
      const err = e as A2AError;
      expect(err.a2a).toBe("InvalidParams");
      return err.violations[0]!;
    }
    throw new Error("expected InvalidParams");
  }

  it("names the field of a value of the wrong type", () => {
    expect(violation(() => readProtoJson(GetTaskRequestSchema, { id: { not: "a string" } })).field).toBe("id");
    expect(violation(() => readProtoJson(GetTaskRequestSchema, { historyLength: "ten" })).field).toBe("historyLength");
  });

  it("names nested and repeated fields by their JSON path", () => {
    const v = violation(() => readProtoJson(SendMessageRequestSchema, { message: { messageId: "m", parts: [{ text: "ok" }, { raw: "%%%" }] } }));
    expect(v).toEqual({ field: "message.parts[1].raw", description: "invalid base64 string" });
    const oneof = violation(() => readProtoJson(SendMessageRequestSchema, { message: { parts: [{ text: "a", url: "b" }] } }));
    expect(oneof.field).toBe("message.parts[0]");
    expect(oneof.description).toContain("oneof");
    expect(violation(() => readProtoJson(SendMessageRequestSchema, { message: "hi" })).field).toBe("message");
    expect(violation(() => readProtoJson(SendMessageRequestSchema, { message: { parts: {} } })).field).toBe("message.parts");
  });

  it("names an enum value given by a name its enum does not have, at any depth, and takes the ones it has", () => {
    const robot = violation(() => readProtoJson(SendMessageRequestSchema, { message: { messageId: "m", role: "ROLE_ROBOT", parts: [{ text: "a" }] } }));
    expect(robot.field).toBe("message.role");
    expect(robot.description).toContain("ROLE_USER");
    expect(violation(() => readProtoJson(ListTasksRequestSchema, { status: "TASK_STATE_BOGUS" })).field).toBe("status");
    // Free-form metadata (a Struct) is not an enum, whatever its strings say.
    const ok = readProtoJson(SendMessageRequestSchema, { message: { messageId: "m", role: "ROLE_AGENT", parts: [{ text: "a", metadata: { role: "ROLE_ROBOT" } }] }, metadata: { status: "TASK_STATE_BOGUS" } });
    expect(ok.message?.role).toBe(Role.AGENT);
    expect(readProtoJson(ListTasksRequestSchema, { status: "TASK_STATE_WORKING" }).status).toBe(TaskState.WORKING);
  });

  it("refuses params that are not an object", () => {
    expect(violation(() => readProtoJson(GetTaskRequestSchema, "x")).field).toBe("params");
    expect(violation(() => readProtoJson(GetTaskRequestSchema, [1])).field).toBe("params");
  });

  it("ignores unknown fields (§5.7)", () => {
    expect(readProtoJson(GetTaskRequestSchema, { id: "t", somethingNew: true }).id).toBe("t");
  });
});

describe("ProtoJSON writing", () => {
  it("always writes the required fields of ListTasksResponse, even at their defaults", () => {
    expect(writeProtoJson(ListTasksResponseSchema, create(ListTasksResponseSchema, {}))).toEqual({ tasks: [], nextPageToken: "", pageSize: 0, totalSize: 0 });
    expect(toJson(ListTasksResponseSchema, create(ListTasksResponseSchema, {}))).toEqual({});
  });

  it("writes a task's contextId and status but no empty artifacts or history", () => {
    const task = create(TaskSchema, { id: "t", status: { state: TaskState.WORKING } });
    expect(writeProtoJson(TaskSchema, task)).toEqual({ id: "t", contextId: "", status: { state: "TASK_STATE_WORKING" } });
  });

  it("fills required fields inside nested and repeated messages", () => {
    const res = create(ListTasksResponseSchema, { tasks: [create(TaskSchema, { id: "a", status: {} })], pageSize: 1 });
    expect(writeProtoJson(ListTasksResponseSchema, res)).toEqual({
      tasks: [{ id: "a", contextId: "", status: { state: "TASK_STATE_UNSPECIFIED" } }],
      nextPageToken: "",
      pageSize: 1,
      totalSize: 0,
    });
  });

  it("writes an empty push config list as []", () => {
    expect(writeProtoJson(ListTaskPushNotificationConfigsResponseSchema, create(ListTaskPushNotificationConfigsResponseSchema))).toEqual({ configs: [] });
  });
});
