import { describe, expect, it } from "vitest";
import { create, fromBinary, toBinary } from "@bufbuild/protobuf";
import { GetTaskRequestSchema, SendMessageRequestSchema, SendMessageResponseSchema, StreamResponseSchema, TaskState } from "../../../gen/a2a/v1/a2a_pb.js";
import { envelopeFaults } from "../../helpers/grpc-answer.js";
import { textRequest } from "../../helpers/messages.js";
import { grpcFrame } from "../../helpers/raw-client.js";
import { withTestHub } from "../../helpers/test-hub.js";

/**
 * gRPC-Web with the protobuf codec (over HTTP/1.1 here, as browsers send
 * it) is answered by the hub's direct path (bindings/rpc/direct/protocol-grpc/grpc-call.ts),
 * its status in a last body frame flagged 0x80. A request that declares
 * `grpc-encoding: gzip` still goes to connect-node (its message, flagged
 * uncompressed, is read as is), so each answer is compared with
 * connect-node's for the same bytes: HTTP status, content type, messages
 * and the trailer frame's lines.
 */

const MAX_BODY_BYTES = 64 * 1024;
const h = withTestHub({ maxBodyBytes: MAX_BODY_BYTES });

interface WebAnswer {
  status: number;
  type: string | null;
  messages: Buffer[];
  trailer: string;
}

async function call(method: string, body: Buffer, extra: Record<string, string> = {}): Promise<WebAnswer> {
  const res = await fetch(`${h.hub.url}lf.a2a.v1.A2AService/${method}`, { method: "POST", headers: { "content-type": "application/grpc-web+proto", "x-grpc-web": "1", ...extra }, body: new Uint8Array(body) });
  let bytes = Buffer.from(await res.arrayBuffer());
  const messages: Buffer[] = [];
  let trailer = "";
  while (bytes.length >= 5) {
    const n = bytes.readUInt32BE(1);
    const data = bytes.subarray(5, 5 + n);
    if (bytes[0]! & 0x80) trailer = data.toString();
    else messages.push(data);
    bytes = bytes.subarray(5 + n);
  }
  return { status: res.status, type: res.headers.get("content-type"), messages, trailer };
}

const both = async (method: string, body: Buffer, extra: Record<string, string> = {}) => ({
  hub: await call(method, body, extra),
  connect: await call(method, body, { ...extra, "grpc-encoding": "gzip" }),
});
const send = (text: string): Buffer => grpcFrame(toBinary(SendMessageRequestSchema, textRequest(text)));

describe("gRPC-Web on the direct path", () => {
  it("SendMessage: one completed echo task and a trailer frame with grpc-status 0, as connect-node sends them", async () => {
    const { hub, connect } = await both("SendMessage", send("hello web"));
    for (const answer of [hub, connect]) {
      expect([answer.status, answer.type, answer.trailer]).toEqual([200, "application/grpc-web+proto", "grpc-status: 0\r\n"]);
      expect(answer.messages).toHaveLength(1);
      const result = fromBinary(SendMessageResponseSchema, answer.messages[0]!).payload;
      expect(result.case === "task" && result.value.status?.state).toBe(TaskState.COMPLETED);
    }
  });

  it("SendStreamingMessage: the same events and trailer on both paths", async () => {
    const { hub, connect } = await both("SendStreamingMessage", send("stream 3"));
    const kinds = (a: WebAnswer) => a.messages.map((m) => fromBinary(StreamResponseSchema, m).payload.case);
    expect(kinds(hub)).toEqual(["task", "statusUpdate", "artifactUpdate", "artifactUpdate", "artifactUpdate", "statusUpdate"]);
    expect(kinds(connect)).toEqual(kinds(hub));
    expect([hub.status, hub.type, hub.trailer]).toEqual([connect.status, connect.type, connect.trailer]);
  });

  it("a refusal carries connect-node's status, message and details in the trailer frame", async () => {
    const unknown = grpcFrame(toBinary(GetTaskRequestSchema, create(GetTaskRequestSchema, { id: "no-such-task" })));
    for (const [method, body, extra] of [
      ["GetTask", unknown, {}],
      ["SendMessage", send("x"), { "a2a-version": "9.9" }],
      ["SendStreamingMessage", send("x"), { "a2a-version": "9.9" }],
    ] as const) {
      const { hub, connect } = await both(method, body, extra);
      expect(hub.trailer, method).toMatch(/^grpc-message: .+\r\ngrpc-status: \d+\r\ngrpc-status-details-bin: \S+\r\n$/);
      expect(hub, method).toEqual(connect);
    }
  });

  it("a body with no message or with two, one over maxBodyBytes, or cut short is refused with connect-node's status", async () => {
    for (const [what, body, code] of envelopeFaults(send("x"), MAX_BODY_BYTES)) {
      const { hub, connect } = await both("SendMessage", body);
      expect(hub.trailer, what).toContain(`grpc-status: ${code}\r\n`);
      expect(hub.trailer, what).toEqual(connect.trailer);
    }
  });
});
