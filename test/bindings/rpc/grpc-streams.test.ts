import { describe, expect, it } from "vitest";
import { create, fromBinary, toBinary } from "@bufbuild/protobuf";
import { SendMessageRequestSchema, StreamResponseSchema, SubscribeToTaskRequestSchema, TaskState } from "../../../gen/a2a/v1/a2a_pb.js";
import { textRequest } from "../../helpers/messages.js";
import { bothGrpcPaths, grpcAnswer, type GrpcAnswer, envelopeFaults, withH2Hub } from "../../helpers/grpc-answer.js";
import { grpcFrame } from "../../helpers/raw-client.js";

/**
 * Plain gRPC SendStreamingMessage and SubscribeToTask are answered by the
 * hub's own stream path (bindings/rpc/direct/protocol-grpc/stream-handler.ts), other
 * protocols by connect-node. A request that says `grpc-encoding: gzip` still goes to
 * connect-node (a message flagged uncompressed is read as is), so each
 * refusal is compared with what connect-node answers for the same bytes.
 * A stream its deadline ends is DEADLINE_EXCEEDED on both (connect-node
 * used to end it OK: the service's stream ends quietly on abort).
 */

const MAX_BODY_BYTES = 64 * 1024;

const h = withH2Hub({ maxBodyBytes: MAX_BODY_BYTES });

const call = (method: string, body: Buffer, extra: Record<string, string> = {}): Promise<GrpcAnswer> => grpcAnswer(h.session, method, body, extra);
const bothPaths = (method: string, body: Buffer) => bothGrpcPaths(h.session, method, body);

const subscribe = (id: string): Buffer => grpcFrame(toBinary(SubscribeToTaskRequestSchema, create(SubscribeToTaskRequestSchema, { id })));

describe("gRPC server streams", () => {
  it("SendStreamingMessage: the head, one message per event and grpc-status 0, as connect-node sends them", async () => {
    const { hub, connect } = await bothPaths("SendStreamingMessage", grpcFrame(toBinary(SendMessageRequestSchema, textRequest("stream 3"))));
    for (const answer of [hub, connect]) {
      expect(answer.headers[":status"]).toBe(200);
      expect(answer.headers["content-type"]).toBe("application/grpc+proto");
      expect(answer.trailers).toEqual({ "grpc-status": "0" });
      const events = answer.messages.map((m) => fromBinary(StreamResponseSchema, m).payload);
      expect(events.map((e) => e.case)).toEqual(["task", "statusUpdate", "artifactUpdate", "artifactUpdate", "artifactUpdate", "statusUpdate"]);
      const last = events.at(-1)!;
      expect(last.case === "statusUpdate" && last.value.status?.state).toBe(TaskState.COMPLETED);
    }
  });

  it("an unknown task is NOT_FOUND with the same message and ErrorInfo details on both paths", async () => {
    const { hub, connect } = await bothPaths("SubscribeToTask", subscribe("no-such-task"));
    expect(hub.trailers["grpc-status"]).toBe("5");
    expect(hub.trailers["grpc-status-details-bin"]).toBeTruthy();
    expect(hub.trailers).toEqual(connect.trailers);
  });

  it("a body with no message or with two, one over maxBodyBytes, or cut short is refused with connect-node's status", async () => {
    const cases = envelopeFaults(subscribe("x"), MAX_BODY_BYTES);
    for (const [what, body, code] of cases) {
      const { hub, connect } = await bothPaths("SubscribeToTask", body);
      expect(hub.trailers["grpc-status"], what).toBe(code);
      expect(connect.trailers["grpc-status"], what).toBe(code);
      expect(hub.messages, what).toEqual([]);
    }
  });

  it("a version the binding does not speak is VERSION_NOT_SUPPORTED, as the interceptor says it", async () => {
    const body = subscribe("x");
    const hub = await call("SubscribeToTask", body, { "a2a-version": "9.9" });
    const connect = await call("SubscribeToTask", body, { "a2a-version": "9.9", "grpc-encoding": "gzip" });
    expect(hub.trailers["grpc-status"]).toBe("9"); // FAILED_PRECONDITION (v1.0.1 §5.4)
    expect(hub.trailers).toEqual(connect.trailers);
  });

  it("activated extensions are echoed in the head", async () => {
    const hub = await call("SendStreamingMessage", grpcFrame(toBinary(SendMessageRequestSchema, textRequest("stream 1"))), { "a2a-extensions": "urn:example:x" });
    expect(hub.headers["a2a-extensions"]).toBe("urn:example:x");
    expect(hub.trailers).toEqual({ "grpc-status": "0" });
  });

  it("a subscription past its grpc-timeout ends DEADLINE_EXCEEDED after the events it had, and leaves no subscriber behind", async () => {
    const started = await h.hub.client("grpc").sendMessage(textRequest("slow 5000", { configuration: { returnImmediately: true } }));
    const taskId = started.payload.case === "task" ? started.payload.value.id : "";
    expect(taskId).not.toBe("");
    const t0 = Date.now();
    const sub = await call("SubscribeToTask", subscribe(taskId), { "grpc-timeout": "300m" });
    expect(Date.now() - t0).toBeGreaterThanOrEqual(250);
    expect(sub.trailers["grpc-status"]).toBe("4");
    const viaConnect = await call("SubscribeToTask", subscribe(taskId), { "grpc-timeout": "300m", "grpc-encoding": "gzip" });
    expect(viaConnect.trailers).toEqual(sub.trailers);
    expect(fromBinary(StreamResponseSchema, sub.messages[0]!).payload.case).toBe("task");
    // The subscription's queue is gone with it: only the task's own run is left.
    expect(h.hub.hub.core.engine.bus.listenerCount()).toBe(0);
    await h.hub.client("grpc").cancelTask({ id: taskId });
  });
});
