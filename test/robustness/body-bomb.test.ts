import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as http2 from "node:http2";
import { rssMiB, sampleRss, type RssSampler } from "../helpers/process-memory.js";
import { parseRawReply, postHead, uploadChunked, uploadH2 } from "../helpers/raw-client.js";
import { killAllServers, removeDir, spawnServer, tempDataDir, type ServerProcess } from "../helpers/server-process.js";

/** What each client tries to send: 1 GiB, made on the fly from one reused 64 KiB chunk. */
const GIB = 2 ** 30;
const CHUNK = 64 * 1024;
/** The hub's default limits.maxBodyBytes. */
const LIMIT = 10 * 1024 * 1024;
/** Body bytes a client may get out before the refusal stops it: the limit, plus what the socket buffers hold. */
const SENT_BOUND = 64 * 1024 * 1024;
/** How much the hub's RSS may grow over all the uploads (connect-node alone would buffer the whole GiB). */
const RSS_GROWTH_BOUND_MIB = 100;

/** A body that starts as JSON and goes on with spaces: the server cannot tell it from a real one until the limit. */
function jsonChunk(first: boolean): Buffer {
  const chunk = Buffer.alloc(CHUNK, " ");
  if (first) chunk.write('{"jsonrpc":"2.0","id":1,"method":"SendMessage","params":{"message":{"messageId":"m","role":"ROLE_USER","parts":[{"text":"');
  return chunk;
}

/** A gRPC message header announcing a message of almost 1 GiB, then the start of its bytes. */
function grpcChunk(): Buffer {
  const chunk = Buffer.alloc(CHUNK, 0x20);
  chunk[0] = 0;
  chunk.writeUInt32BE(GIB - 5, 1);
  return chunk;
}

let server: ServerProcess;
let dataDir: string;
let baseline: number;
let rss: RssSampler;
beforeAll(async () => {
  dataDir = tempDataDir();
  server = await spawnServer(dataDir);
  baseline = rssMiB(server.pid);
  rss = sampleRss(server.pid);
});
afterAll(async () => {
  const peak = rss.stop();
  console.log(`body-bomb: hub RSS ${baseline.toFixed(0)} MiB before the uploads, peak ${peak.toFixed(0)} MiB during them`);
  const alive = server.child.exitCode === null && server.child.signalCode === null;
  await killAllServers();
  removeDir(dataDir);
  // Checked after every upload of the file has run against the same hub, which is still up.
  expect(alive, server.stderr()).toBe(true);
  expect(peak - baseline, `RSS ${baseline.toFixed(0)} → peak ${peak.toFixed(0)} MiB`).toBeLessThan(RSS_GROWTH_BOUND_MIB);
});

/** The message of an answer, whichever binding wrote it. */
function messageOf(binding: string, body: string, headers: Record<string, string | string[] | undefined> = {}): string {
  if (binding === "grpc") return decodeURIComponent(String(headers["grpc-message"]));
  const json = JSON.parse(body);
  return binding === "jsonrpc" ? json.error.message : binding === "rest" ? json.error.message : json.message;
}

interface Case {
  readonly binding: "jsonrpc" | "rest" | "connect" | "grpc";
  readonly path: string;
  readonly contentType: string;
  /** The HTTP status of the refusal; the binding's error sits in its body (gRPC: trailers). */
  readonly status: number;
  /** What the refusal must say. */
  readonly says: RegExp;
  readonly chunk: () => Buffer;
}

const JSONRPC: Case = { binding: "jsonrpc", path: "/", contentType: "application/json", status: 200, says: new RegExp(`${LIMIT}.*limits\\.maxBodyBytes`), chunk: () => jsonChunk(true) };
const REST: Case = { binding: "rest", path: "/message:send", contentType: "application/json", status: 413, says: new RegExp(`${LIMIT}.*limits\\.maxBodyBytes`), chunk: () => jsonChunk(false) };
const CONNECT: Case = { binding: "connect", path: "/lf.a2a.v1.A2AService/SendMessage", contentType: "application/json", status: 429, says: new RegExp(`readMaxBytes ${LIMIT}`), chunk: () => jsonChunk(false) };
const GRPC: Case = { binding: "grpc", path: "/lf.a2a.v1.A2AService/SendMessage", contentType: "application/grpc", status: 200, says: new RegExp(`readMaxBytes ${LIMIT}`), chunk: grpcChunk };

describe("a 1 GiB request body is refused once it passes limits.maxBodyBytes, without the hub reading on", () => {
  it.each([JSONRPC, REST, CONNECT])("HTTP/1.1 chunked, $binding: the refusal names the limit and the connection closes", async (c) => {
    // The first chunk says what the body is; the rest repeat one buffer.
    const first = c.chunk();
    const upload = await uploadChunked(server.url, postHead(server.url, c.path, { "content-type": c.contentType, "transfer-encoding": "chunked" }), GIB, first);
    expect(upload.ended).toBe("closed");
    expect(upload.sent).toBeLessThan(SENT_BOUND);
    const reply = parseRawReply(upload.text);
    expect(reply.status, upload.text.slice(0, 300)).toBe(c.status);
    if (c.binding === "jsonrpc") expect(JSON.parse(reply.body)).toMatchObject({ id: null, error: { code: -32600 } });
    expect(messageOf(c.binding, reply.body)).toMatch(c.says);
  });

  it.each([JSONRPC, REST, CONNECT, GRPC])("HTTP/2, $binding: the refusal names the limit and the stream is reset", async (c) => {
    const session = http2.connect(server.url);
    session.on("error", () => {});
    try {
      const headers = { ":method": "POST", ":path": c.path, "content-type": c.contentType, ...(c.binding === "grpc" ? { te: "trailers" } : {}) };
      const upload = await uploadH2(session, headers, GIB, c.chunk());
      expect(upload.sent).toBeLessThan(SENT_BOUND);
      expect(upload.status).toBe(c.status);
      if (c.binding === "jsonrpc") expect(JSON.parse(upload.text)).toMatchObject({ id: null, error: { code: -32600 } });
      // gRPC RESOURCE_EXHAUSTED is status 8.
      if (c.binding === "grpc") expect(upload.headers["grpc-status"]).toBe("8");
      expect(messageOf(c.binding, upload.text, upload.headers)).toMatch(c.says);
      // The session is fine: the refusal ended one stream, not the connection.
      expect(session.closed || session.destroyed).toBe(false);
    } finally {
      session.destroy();
    }
  });
});
