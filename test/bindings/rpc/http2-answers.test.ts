import { describe, expect, it } from "vitest";
import * as http2 from "node:http2";
import { fromBinary, toBinary } from "@bufbuild/protobuf";
import { Code, ConnectError, createClient } from "@connectrpc/connect";
import { createConnectTransport, createGrpcWebTransport } from "@connectrpc/connect-node";
import { A2AService, SendMessageRequestSchema, SendMessageResponseSchema, TaskState } from "../../../gen/a2a/v1/a2a_pb.js";
import { textRequest } from "../../helpers/messages.js";
import { grpcFrame } from "../../helpers/raw-client.js";
import { startTestHub } from "../../helpers/test-hub.js";

/**
 * Connect unary (JSON, binary) and gRPC-Web unary over h2c on the direct
 * paths (bindings/rpc/direct/direct-handler.ts), which the other tests reach over
 * HTTP/1.1. Their OK answers go on the HTTP/2 stream itself, not through
 * Node's compatibility response (bindings/http/http2-answer.ts); refusals
 * keep that response. Real clients get completed tasks and refusals with
 * their codes, the raw answers carry what connect-node sends (type, length,
 * Date, the gRPC-Web trailer frame, no HTTP trailers) and end, and the
 * one-port server counts each exchange as finished: a graceful stop whose
 * grace is longer than the test's timeout returns at once only if no
 * request is left in flight.
 */

/** One raw h2c exchange: the response head, the body, and whether HTTP trailers came. */
async function exchange(url: string, headers: Record<string, string>, body: Uint8Array): Promise<{ head: http2.IncomingHttpHeaders; body: Buffer; trailers: boolean }> {
  const u = new URL(url);
  const session = http2.connect(u.origin);
  try {
    return await new Promise((resolve, reject) => {
      const req = session.request({ ":method": "POST", ":path": u.pathname, ...headers });
      let head: http2.IncomingHttpHeaders = {};
      let trailers = false;
      const chunks: Buffer[] = [];
      req.on("response", (h) => (head = h));
      req.on("trailers", () => (trailers = true));
      req.on("data", (c: Buffer) => chunks.push(c));
      req.on("end", () => resolve({ head, body: Buffer.concat(chunks), trailers }));
      req.on("error", reject);
      req.end(body);
    });
  } finally {
    session.close();
  }
}

describe("Connect and gRPC-Web unary over HTTP/2", () => {
  it("Connect JSON and binary and gRPC-Web over h2c: completed tasks, refusals as before, and a stop that finds nothing in flight", async () => {
    const h = await startTestHub({ shutdownGraceMs: 60_000 });
    try {
      const base = h.url.replace(/\/$/, "");
      const clients = {
        connectJson: createClient(A2AService, createConnectTransport({ baseUrl: base, httpVersion: "2" })),
        connectBinary: createClient(A2AService, createConnectTransport({ baseUrl: base, httpVersion: "2", useBinaryFormat: true })),
        grpcWeb: createClient(A2AService, createGrpcWebTransport({ baseUrl: base, httpVersion: "2" })),
      };
      for (const [name, client] of Object.entries(clients)) {
        const res = await client.sendMessage(textRequest(`over h2 ${name}`));
        expect(res.payload.case, name).toBe("task");
        const task = res.payload.case === "task" ? res.payload.value : undefined;
        expect(task?.status?.state, name).toBe(TaskState.COMPLETED);
        // The answer read back is the one stored.
        const again = await client.getTask({ id: task!.id });
        expect(again.id, name).toBe(task!.id);
        // A refusal: its code as over HTTP/1.1.
        const refused = await client.getTask({ id: "no-such-task" }).catch((e: unknown) => e);
        expect(refused instanceof ConnectError && refused.code, name).toBe(Code.NotFound);
      }

      // On the wire: a Connect answer's head carries its type, length and Date (RFC 9110 §6.6.1), and no trailers follow.
      const json = await exchange(`${h.url}lf.a2a.v1.A2AService/SendMessage`, { "content-type": "application/json", "a2a-version": "1.0" }, Buffer.from(JSON.stringify({ message: { messageId: "h2-raw-json", role: "ROLE_USER", parts: [{ text: "raw" }] } })));
      expect(json.head[":status"]).toBe(200);
      expect(json.head["content-type"]).toBe("application/json");
      expect(Number(json.head["content-length"])).toBe(json.body.length);
      expect(typeof json.head.date).toBe("string");
      expect(json.trailers).toBe(false);
      expect((JSON.parse(json.body.toString()) as { task?: { status?: { state?: string } } }).task?.status?.state).toBe("TASK_STATE_COMPLETED");

      // A gRPC-Web answer: one message frame, then the trailer frame with grpc-status 0, in the body.
      const request = toBinary(SendMessageRequestSchema, textRequest("raw web"));
      const web = await exchange(`${h.url}lf.a2a.v1.A2AService/SendMessage`, { "content-type": "application/grpc-web+proto", "x-grpc-web": "1", "a2a-version": "1.0" }, grpcFrame(request));
      expect([web.head[":status"], web.head["content-type"], web.trailers]).toEqual([200, "application/grpc-web+proto", false]);
      const n = web.body.readUInt32BE(1);
      expect(web.body[0]).toBe(0);
      const answer = fromBinary(SendMessageResponseSchema, web.body.subarray(5, 5 + n));
      expect(answer.payload.case === "task" && answer.payload.value.status?.state).toBe(TaskState.COMPLETED);
      const trailer = web.body.subarray(5 + n);
      expect(trailer[0]).toBe(0x80);
      expect(trailer.subarray(5).toString()).toBe("grpc-status: 0\r\n");

    } catch (e) {
      await h.stop();
      throw e;
    }
    // Nothing left in flight: with a 60 s grace, the stop returns within the test's timeout only if every exchange closed.
    await h.stop();
  });
});
