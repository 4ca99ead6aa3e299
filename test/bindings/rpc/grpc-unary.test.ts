import { describe, expect, it } from "vitest";
import { create, toBinary, fromBinary, type DescMessage } from "@bufbuild/protobuf";
import {
  A2AService,
  CancelTaskRequestSchema,
  DeleteTaskPushNotificationConfigRequestSchema,
  GetExtendedAgentCardRequestSchema,
  GetTaskPushNotificationConfigRequestSchema,
  GetTaskRequestSchema,
  ListTaskPushNotificationConfigsRequestSchema,
  ListTasksRequestSchema,
  ListTasksResponseSchema,
  SendMessageRequestSchema,
  SendMessageResponseSchema,
  TaskPushNotificationConfigSchema,
  TaskState,
} from "../../../gen/a2a/v1/a2a_pb.js";
import { bothGrpcPaths, type GrpcAnswer, envelopeFaults, withH2Hub } from "../../helpers/grpc-answer.js";
import { textRequest } from "../../helpers/messages.js";
import { grpcFrame } from "../../helpers/raw-client.js";

/**
 * Plain gRPC unary calls are answered by the hub's direct path
 * (bindings/rpc/direct/protocol-grpc/unary-handler.ts), not connect-node. A request that
 * declares `grpc-encoding: gzip` still goes to connect-node (its message,
 * flagged uncompressed, is read as is), so every answer here is compared
 * with connect-node's answer to the same bytes: the head, the message and
 * the trailers (status, message, google.rpc.Status details).
 */

const MAX_BODY_BYTES = 64 * 1024;

const h = withH2Hub({ maxBodyBytes: MAX_BODY_BYTES });

const frame = <S extends DescMessage>(schema: S, init: Parameters<typeof create<S>>[1]): Buffer => grpcFrame(toBinary(schema, create(schema, init)));
const send = (text: string): Buffer => grpcFrame(toBinary(SendMessageRequestSchema, textRequest(text)));
const both = (method: string, body: Buffer, extra: Record<string, string> = {}) => bothGrpcPaths(h.session, method, body, extra);

/** The answers' heads agree on what a client reads (the date header aside). */
function sameHead(hub: GrpcAnswer, connect: GrpcAnswer): void {
  const head = (a: GrpcAnswer) => ({ status: a.headers[":status"], type: a.headers["content-type"], extensions: a.headers["a2a-extensions"] });
  expect(head(hub)).toEqual(head(connect));
}

describe("gRPC unary calls on the direct path", () => {
  it("SendMessage: the head, one completed echo task and grpc-status 0, as connect-node sends them", async () => {
    const { hub, connect } = await both("SendMessage", send("hello direct"));
    sameHead(hub, connect);
    for (const answer of [hub, connect]) {
      expect(answer.headers["content-type"]).toBe("application/grpc+proto");
      expect(answer.trailers).toEqual({ "grpc-status": "0" });
      expect(answer.messages).toHaveLength(1);
      const result = fromBinary(SendMessageResponseSchema, answer.messages[0]!).payload;
      expect(result.case).toBe("task");
      if (result.case !== "task") return;
      expect(result.value.status?.state).toBe(TaskState.COMPLETED);
      expect(JSON.stringify(result.value.artifacts)).toContain("hello direct");
    }
  });

  it("GetTask and ListTasks answer the same bytes on both paths", async () => {
    const sent = fromBinary(SendMessageResponseSchema, (await both("SendMessage", send("read me"))).hub.messages[0]!).payload;
    const id = sent.case === "task" ? sent.value.id : "";
    const got = await both("GetTask", frame(GetTaskRequestSchema, { id }));
    sameHead(got.hub, got.connect);
    expect(got.hub.trailers).toEqual({ "grpc-status": "0" });
    expect(got.hub.messages).toEqual(got.connect.messages);
    const listed = await both("ListTasks", frame(ListTasksRequestSchema, { contextId: sent.case === "task" ? sent.value.contextId : "" }));
    expect(listed.hub.trailers).toEqual({ "grpc-status": "0" });
    expect(fromBinary(ListTasksResponseSchema, listed.hub.messages[0]!).tasks.map((task) => task.id)).toEqual([id]);
    expect(listed.hub.messages).toEqual(listed.connect.messages);
  });

  it("every unary method's refusal has connect-node's status, message and ErrorInfo details", async () => {
    const cases: Array<[string, Buffer]> = [
      ["GetTask", frame(GetTaskRequestSchema, { id: "no-such-task" })],
      ["CancelTask", frame(CancelTaskRequestSchema, { id: "no-such-task" })],
      ["ListTasks", frame(ListTasksRequestSchema, { pageSize: -1 })],
      ["CreateTaskPushNotificationConfig", frame(TaskPushNotificationConfigSchema, { taskId: "no-such-task", url: "http://127.0.0.1:9/hook" })],
      ["GetTaskPushNotificationConfig", frame(GetTaskPushNotificationConfigRequestSchema, { taskId: "no-such-task", id: "c" })],
      ["ListTaskPushNotificationConfigs", frame(ListTaskPushNotificationConfigsRequestSchema, { taskId: "no-such-task" })],
      ["DeleteTaskPushNotificationConfig", frame(DeleteTaskPushNotificationConfigRequestSchema, { taskId: "no-such-task", id: "c" })],
      ["GetExtendedAgentCard", frame(GetExtendedAgentCardRequestSchema, {})],
      ["SendMessage", frame(SendMessageRequestSchema, { message: { messageId: "", parts: [] } })],
    ];
    const unary = A2AService.methods.filter((m) => m.methodKind === "unary").map((m) => m.name);
    expect(cases.map(([m]) => m).sort()).toEqual([...unary].sort());
    for (const [method, body] of cases) {
      const { hub, connect } = await both(method, body);
      expect(hub.trailers["grpc-status"], method).not.toBe("0");
      expect(hub.trailers, method).toEqual(connect.trailers);
      expect(hub.messages, method).toEqual([]);
      sameHead(hub, connect);
    }
  });

  it("a body with no message or with two, one over maxBodyBytes, or cut short is refused with connect-node's status", async () => {
    const cases: Array<[string, Buffer, string]> = [
      ...envelopeFaults(send("x"), MAX_BODY_BYTES),
      // connect-node answers bytes that do not parse as the request with INTERNAL.
      ["not a SendMessageRequest", grpcFrame(Buffer.from([0xff, 0xff, 0xff])), "13"],
    ];
    for (const [what, body, code] of cases) {
      const { hub, connect } = await both("SendMessage", body);
      expect(hub.trailers["grpc-status"], what).toBe(code);
      expect(connect.trailers, what).toEqual(hub.trailers);
    }
  });

  it("judges the deadline header and the body before the version, as connect-node does for unary calls", async () => {
    const cases: Array<[string, Buffer, Record<string, string>]> = [
      ["unsupported version", send("x"), { "a2a-version": "9.9" }],
      ["no message and an unsupported version", Buffer.alloc(0), { "a2a-version": "9.9" }],
      ["a malformed grpc-timeout and an unsupported version", send("x"), { "a2a-version": "9.9", "grpc-timeout": "soon" }],
    ];
    for (const [what, body, extra] of cases) {
      const { hub, connect } = await both("SendMessage", body, extra);
      expect(hub.trailers["grpc-status"], what).not.toBe("0");
      expect(hub.trailers, what).toEqual(connect.trailers);
    }
  });

  it("echoes activated extensions in the head and honours the call's deadline", async () => {
    const { hub, connect } = await both("SendMessage", send("hi"), { "a2a-extensions": "urn:example:x" });
    expect(hub.headers["a2a-extensions"]).toBe("urn:example:x");
    sameHead(hub, connect);
    const t0 = Date.now();
    const late = await both("SendMessage", send("slow 3000"), { "grpc-timeout": "300m" });
    expect(Date.now() - t0).toBeLessThan(2900 * 2);
    expect(late.hub.trailers["grpc-status"]).toBe(late.connect.trailers["grpc-status"]);
    expect(late.hub.trailers["grpc-status"]).not.toBe("0");
  });
});
