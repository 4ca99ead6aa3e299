import { randomUUID } from "node:crypto";
import { create, toBinary } from "@bufbuild/protobuf";
import { SendMessageRequestSchema } from "a2a-hub";
import { benchMessage } from "./a2a-clients.js";
import { grpcFrame } from "./grpc-frames.js";
import { ECHO_TEXT } from "./response-checks.js";

/**
 * Where autocannon puts a new id in each request's body (its idReplacement):
 * every benchmark call is a new message, since a resend of a messageId is
 * answered from the hub's record of the first (§3.3.1).
 */
export const PER_REQUEST_ID = "[<id>]";

/** The SendMessageRequest of every unary measure, as ProtoJSON (§5.5 camelCase, enum names); a new messageId unless given. */
export function sendMessageJson(text = ECHO_TEXT, messageId: string = randomUUID()): Record<string, unknown> {
  return { message: { messageId, role: "ROLE_USER", parts: [{ text }] } };
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

/** The gRPC wire form of a SendMessageRequest (a new messageId): one length-prefixed protobuf message. */
export function sendMessageGrpcFrame(text = ECHO_TEXT): Buffer {
  return grpcFrame(toBinary(SendMessageRequestSchema, create(SendMessageRequestSchema, { message: benchMessage(text) })));
}

/** Headers of a gRPC-Web call (binary, as @connectrpc/connect-web sends it). */
export const GRPC_WEB_HEADERS: Readonly<Record<string, string>> = { "content-type": "application/grpc-web+proto", "x-grpc-web": "1", "a2a-version": "1.0" };

/** The wire forms of a unary call over h2c. */
export type H2Kind = "grpc" | "grpc-web" | "connect-json";

/** One SendMessage body over h2c, with a new messageId (gRPC-Web frames a request exactly as gRPC does). */
export function h2Body(kind: H2Kind): Buffer {
  return kind === "connect-json" ? Buffer.from(JSON.stringify(sendMessageJson())) : sendMessageGrpcFrame();
}
