import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { create, toBinary } from "@bufbuild/protobuf";
import { SendMessageRequestSchema } from "../../gen/a2a/v1/a2a_pb.js";
import { benchMessage } from "./a2a-clients.js";
import { grpcFrame } from "./grpc-frames.js";
import { ECHO_TEXT } from "./response-checks.js";

/** The SendMessageRequest of every unary measure, as ProtoJSON (§5.5 camelCase, enum names). */
export function sendMessageJson(text = ECHO_TEXT): Record<string, unknown> {
  return { message: { messageId: "bench-1", role: "ROLE_USER", parts: [{ text }] } };
}

/** JSON-RPC 2.0 envelope of a v1.0 method (§9). */
export function jsonRpcBody(method: string, params: unknown): string {
  return JSON.stringify({ jsonrpc: "2.0", id: 1, method, params });
}

/** Headers of a v1.0 JSON request over HTTP (the SDK refuses a missing A2A-Version as 0.3). */
export const JSON_HEADERS: Readonly<Record<string, string>> = { "content-type": "application/json", "a2a-version": "1.0" };

/** Headers of a Connect unary JSON call. */
export const CONNECT_JSON_HEADERS: Readonly<Record<string, string>> = { "content-type": "application/json", "connect-protocol-version": "1", "a2a-version": "1.0" };

/** Headers of a gRPC call over h2c. */
export const GRPC_HEADERS: Readonly<Record<string, string>> = { "content-type": "application/grpc", te: "trailers", "a2a-version": "1.0" };

/** The gRPC wire form of a SendMessageRequest: one length-prefixed protobuf message. */
export function sendMessageGrpcFrame(text = ECHO_TEXT): Buffer {
  return grpcFrame(toBinary(SendMessageRequestSchema, create(SendMessageRequestSchema, { message: benchMessage(text) })));
}

/** Writes the bodies h2load reads from files; returns their paths. */
export function writeBodyFiles(dir: string): { grpcSendMessage: string; connectSendMessage: string } {
  mkdirSync(dir, { recursive: true });
  const grpcSendMessage = join(dir, "send-message.grpc");
  const connectSendMessage = join(dir, "send-message.json");
  writeFileSync(grpcSendMessage, sendMessageGrpcFrame());
  writeFileSync(connectSendMessage, JSON.stringify(sendMessageJson()));
  return { grpcSendMessage, connectSendMessage };
}
