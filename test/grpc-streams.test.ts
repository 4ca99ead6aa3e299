import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as http2 from "node:http2";
import { create, fromBinary, toBinary } from "@bufbuild/protobuf";
import { SendMessageRequestSchema, StreamResponseSchema, SubscribeToTaskRequestSchema, TaskState } from "../gen/a2a/v1/a2a_pb.js";
import { textRequest } from "./helpers/messages.js";
import { grpcFrame } from "./helpers/raw-client.js";
import { startTestHub, type TestHub } from "./helpers/test-hub.js";

/**
 * gRPC SendStreamingMessage and SubscribeToTask are answered by the hub's
 * own stream path (bindings/connect/grpc-stream-route.ts), everything else
 * by connect-node. A request that says `grpc-encoding: gzip` still goes to
 * connect-node (a message flagged uncompressed is read as is), so each
 * refusal is compared with what connect-node answers for the same bytes.
 * A stream its deadline ends is DEADLINE_EXCEEDED on both (connect-node
 * used to end it OK: the service's stream ends quietly on abort).
 */

const MAX_BODY_BYTES = 64 * 1024;

let t: TestHub;
let session: http2.ClientHttp2Session;

beforeAll(async () => {
  t = await startTestHub({ maxBodyBytes: MAX_BODY_BYTES });
  session = http2.connect(t.url);
});

afterAll(async () => {
  session.close();
  await t.stop();
});

interface GrpcAnswer {
  headers: http2.IncomingHttpHeaders;
  messages: Buffer[];
  trailers: Record<string, string>;
}

/** One server-streaming call over raw h2c: the head, every message, the trailers. */
function call(method: string, body: Buffer, extra: Record<string, string> = {}): Promise<GrpcAnswer> {
  return new Promise((resolve, reject) => {
    const stream = session.request({ ":method": "POST", ":path": `/lf.a2a.v1.A2AService/${method}`, "content-type": "application/grpc", te: "trailers", ...extra });
    let headers: http2.IncomingHttpHeaders = {};
    let trailers: Record<string, string> = {};
    let pending = Buffer.alloc(0);
    const messages: Buffer[] = [];
    stream.on("response", (h) => (headers = h));
    stream.on("trailers", (h) => (trailers = statusOf(h)));
    stream.on("data", (chunk: Buffer) => {
      pending = Buffer.concat([pending, chunk]);
      while (pending.length >= 5 && pending.length >= 5 + pending.readUInt32BE(1)) {
        const n = pending.readUInt32BE(1);
        messages.push(pending.subarray(5, 5 + n));
        pending = pending.subarray(5 + n);
      }
    });
    stream.on("end", () => resolve({ headers, messages, trailers: Object.keys(trailers).length ? trailers : statusOf(headers) }));
    stream.on("error", reject);
    stream.end(body);
  });
}

/** The status part of trailers (or of a trailers-only head). */
function statusOf(h: http2.IncomingHttpHeaders): Record<string, string> {
  const out: Record<string, string> = {};
  for (const k of ["grpc-status", "grpc-message", "grpc-status-details-bin"]) if (h[k] !== undefined) out[k] = String(h[k]);
  return out;
}

/** Calls the method on both paths with the same bytes: the hub's (identity) and connect-node's (gzip declared). */
async function bothPaths(method: string, body: Buffer): Promise<{ hub: GrpcAnswer; connect: GrpcAnswer }> {
  const hub = await call(method, body);
  const connect = await call(method, body, { "grpc-encoding": "gzip" });
  return { hub, connect };
}

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
    const one = subscribe("x");
    const oversized = Buffer.alloc(5);
    oversized.writeUInt32BE(MAX_BODY_BYTES + 1, 1);
    const cases: Array<[string, Buffer, string]> = [
      ["no message", Buffer.alloc(0), "12"],
      ["two messages", Buffer.concat([one, one]), "12"],
      ["over maxBodyBytes", oversized, "8"],
      ["cut short", one.subarray(0, one.length - 1), "3"],
    ];
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
    expect(hub.trailers["grpc-status"]).toBe("12");
    expect(hub.trailers).toEqual(connect.trailers);
  });

  it("activated extensions are echoed in the head", async () => {
    const hub = await call("SendStreamingMessage", grpcFrame(toBinary(SendMessageRequestSchema, textRequest("stream 1"))), { "a2a-extensions": "urn:example:x" });
    expect(hub.headers["a2a-extensions"]).toBe("urn:example:x");
    expect(hub.trailers).toEqual({ "grpc-status": "0" });
  });

  it("a subscription past its grpc-timeout ends DEADLINE_EXCEEDED after the events it had, and leaves no subscriber behind", async () => {
    const started = await t.client("grpc").sendMessage(textRequest("slow 5000", { configuration: { returnImmediately: true } }));
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
    expect(t.hub.core.engine.bus.listenerCount()).toBe(0);
    await t.client("grpc").cancelTask({ id: taskId });
  });
});
