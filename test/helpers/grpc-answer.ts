import * as http2 from "node:http2";
import { afterAll, beforeAll } from "vitest";
import type { HubOptions } from "../../src/server/index.js";
import { startTestHub, type TestHub } from "./test-hub.js";

/** A gRPC call's answer as it came over the wire: the head, every message, the status. */
export interface GrpcAnswer {
  headers: http2.IncomingHttpHeaders;
  messages: Buffer[];
  trailers: Record<string, string>;
}

/** One gRPC call over raw h2c with `body` as the request bytes: the head, every message, the trailers. */
export function grpcAnswer(session: http2.ClientHttp2Session, method: string, body: Buffer, extra: Record<string, string> = {}): Promise<GrpcAnswer> {
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

/**
 * Calls the method on both gRPC paths with the same bytes: the hub's direct
 * path (identity) and connect-node's (a request declaring `grpc-encoding:
 * gzip` goes there; a message flagged uncompressed is read as is).
 */
export async function bothGrpcPaths(session: http2.ClientHttp2Session, method: string, body: Buffer, extra: Record<string, string> = {}): Promise<{ hub: GrpcAnswer; connect: GrpcAnswer }> {
  const hub = await grpcAnswer(session, method, body, extra);
  const connect = await grpcAnswer(session, method, body, { ...extra, "grpc-encoding": "gzip" });
  return { hub, connect };
}

/** A test hub with one h2c session to it, started before the file's tests and stopped after them. */
export function withH2Hub(options: HubOptions): { readonly hub: TestHub; readonly session: http2.ClientHttp2Session } {
  const state = {} as { hub: TestHub; session: http2.ClientHttp2Session };
  beforeAll(async () => {
    state.hub = await startTestHub(options);
    state.session = http2.connect(state.hub.url);
  });
  afterAll(async () => {
    state.session.close();
    await state.hub.stop();
  });
  return state;
}

/**
 * Request bodies that break the gRPC envelope of a one-message call, each
 * with the status connect-node answers it with: no message or two
 * (UNIMPLEMENTED), a declared length over the body limit
 * (RESOURCE_EXHAUSTED), a message cut short (INVALID_ARGUMENT).
 */
export function envelopeFaults(one: Buffer, maxBodyBytes: number): Array<[string, Buffer, string]> {
  const oversized = Buffer.alloc(5);
  oversized.writeUInt32BE(maxBodyBytes + 1, 1);
  return [
    ["no message", Buffer.alloc(0), "12"],
    ["two messages", Buffer.concat([one, one]), "12"],
    ["over maxBodyBytes", oversized, "8"],
    ["cut short", one.subarray(0, one.length - 1), "3"],
  ];
}
