import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import * as http2 from "node:http2";
import type { IncomingMessage } from "node:http";
import { toBinary } from "@bufbuild/protobuf";
import { SendMessageRequestSchema, TaskState } from "../../gen/a2a/v1/a2a_pb.js";
import { userMessage } from "../helpers/json-messages.js";
import { rpc, openRpcStream } from "../helpers/jsonrpc-requests.js";
import { collect, textRequest } from "../helpers/messages.js";
import { rssMiB, sampleRss } from "../helpers/process-memory.js";
import { H2_JSONRPC_POST, h2Request } from "../helpers/h2c.js";
import { parseRawReply, pausedPost, postHead, rawConnection, rawGrpcCall, readUntilClosed } from "../helpers/raw-client.js";
import { killAllServers, removeDir, sleep, spawnServer, tempDataDir, within, type ServerProcess } from "../helpers/server-process.js";
import { dataEvents, sseMessages, type SseMessage } from "../helpers/sse.js";
import { startTestHub, type TestHub } from "../helpers/test-hub.js";

let dataDir: string | undefined;
afterEach(async () => {
  await killAllServers();
  removeDir(dataDir);
  dataDir = undefined;
});

/** Chunks the echo agent streams for `stream N` at most: the largest stream a test can ask for. */
const CHUNKS = 100_000;
/** limits.streamBufferEvents of the hub under test: far below CHUNKS, so a reader that stops is dropped early. */
const BUFFER_EVENTS = 2_000;
/** limits.streamStallMs of the hub under test: how long a reader past the buffer may read nothing. */
const STALL_MS = 300;
/**
 * How much the hub's RSS may grow while two streams of CHUNKS events go
 * to readers that read nothing. Measured: about 45 MiB with the buffer
 * limit (heap churn of 200,000 events), about 145 MiB without it (every
 * event queued for the reader).
 */
const RSS_GROWTH_BOUND_MIB = 100;

/** Waits until every task of `contextId` is COMPLETED (ListTasks without artifacts: the tasks are large). */
async function waitCompleted(server: ServerProcess, contextId: string, ms: number): Promise<string> {
  const client = server.client("grpc");
  const deadline = Date.now() + ms;
  for (;;) {
    const { tasks } = await client.listTasks({ contextId, includeArtifacts: false, historyLength: 0 });
    const task = tasks[0];
    if (task?.status?.state === TaskState.COMPLETED) return task.id;
    if (Date.now() > deadline) throw new Error(`task of ${contextId} not completed within ${ms} ms: ${task?.status?.state}`);
    await sleep(200);
  }
}

/** Reads a paused SSE answer to its end, keeping the events that arrived whole before the server cut it. */
async function readWhatArrived(res: IncomingMessage): Promise<{ events: SseMessage[]; cut: boolean }> {
  const events: SseMessage[] = [];
  try {
    for await (const e of sseMessages(res as unknown as ReadableStream<Uint8Array>)) if (e.data !== undefined) events.push(e);
    return { events, cut: false };
  } catch {
    return { events, cut: true };
  }
}

/** The text of the `stream` artifact chunks among JSON-RPC SSE events, in order. */
function chunkTexts(events: readonly SseMessage[]): string[] {
  return events.flatMap((e) => {
    const update = e.data?.result?.artifactUpdate;
    return update ? update.artifact.parts.map((p: { text: string }) => p.text) : [];
  });
}

describe("a reader that stops reading", () => {
  it("is dropped once it is limits.streamBufferEvents behind and has read nothing for limits.streamStallMs (JSON-RPC SSE and gRPC), the hub's memory stays bounded, and Last-Event-ID resumes after the last event it got", async () => {
    dataDir = tempDataDir();
    const server = await spawnServer(dataDir, {
      // Two open streams per tenant: resuming after the drops proves both were released.
      env: { A2A_HUB_LIMIT_STREAM_BUFFER_EVENTS: String(BUFFER_EVENTS), A2A_HUB_LIMIT_STREAM_STALL_MS: String(STALL_MS), A2A_HUB_LIMIT_MAX_STREAMS_PER_TENANT: "2" },
    });
    // Warm up both paths, so the baseline includes the code and the caches they load.
    expect((await collect(server.client("grpc").sendStreamingMessage(textRequest("stream 50")))).length).toBe(53);
    const warm = await openRpcStream(server.url, "SendStreamingMessage", { message: userMessage("stream 50") });
    expect((await dataEvents(warm.events!)).length).toBe(53);

    const baseline = rssMiB(server.pid);
    const rss = sampleRss(server.pid);
    const sse = await pausedPost(server.url, JSON.stringify(rpc("SendStreamingMessage", { message: userMessage(`stream ${CHUNKS}`, { contextId: "sse" }) })), {
      "content-type": "application/json",
      accept: "text/event-stream",
    });
    expect(sse.statusCode).toBe(200);
    const session = http2.connect(server.url);
    session.on("error", () => {});
    // Never read: no data listener, so the HTTP/2 flow-control window is never reopened.
    const grpc = rawGrpcCall(session, "SendStreamingMessage", toBinary(SendMessageRequestSchema, textRequest(`stream ${CHUNKS}`, { contextId: "grpc" })));
    const grpcReset = new Promise<number | undefined>((resolve) => grpc.once("close", () => resolve(grpc.rstCode)));

    // The producers run to the end whatever the readers do.
    const taskId = await waitCompleted(server, "sse", 45_000);
    await waitCompleted(server, "grpc", 15_000);
    const peak = rss.stop();
    console.log(`slow reader: ${CHUNKS} events unread on SSE and on gRPC; hub RSS ${baseline.toFixed(0)} MiB before, peak ${peak.toFixed(0)} MiB`);
    expect(peak - baseline, `RSS ${baseline.toFixed(0)} → peak ${peak.toFixed(0)} MiB`).toBeLessThan(RSS_GROWTH_BOUND_MIB);

    // gRPC: the stream was reset with ENHANCE_YOUR_CALM (connect clients read it as RESOURCE_EXHAUSTED).
    expect(await within(5_000, grpcReset, "the unread gRPC stream was not reset")).toBe(http2.constants.NGHTTP2_ENHANCE_YOUR_CALM);
    session.close();
    expect(server.stderr().match(/stream dropped/g)).toHaveLength(2);

    // SSE: what reached the client's socket before the drop, then the end; not the whole stream.
    const first = await within(10_000, readWhatArrived(sse), "the unread SSE stream was not closed");
    expect(first.events.length).toBeGreaterThan(0);
    expect(first.events.length).toBeLessThan(CHUNKS);
    const lastId = Number(first.events.at(-1)!.id);
    expect(first.events.map((e) => Number(e.id))).toEqual(first.events.map((_, i) => i + 1));

    // Resume from the last event received, with a gRPC stream open beside it: both stream slots were freed.
    const [resumed, other] = await Promise.all([
      openRpcStream(server.url, "SubscribeToTask", { id: taskId }, { headers: { "last-event-id": String(lastId) } }).then((s) => dataEvents(s.events!)),
      collect(server.client("grpc").sendStreamingMessage(textRequest("stream 3"))),
    ]);
    expect(other).toHaveLength(6);
    expect(Number(resumed[0]!.id)).toBe(lastId + 1);
    expect(resumed.at(-1)!.data.result.statusUpdate.status.state).toBe("TASK_STATE_COMPLETED");
    // Nothing lost, nothing repeated: every chunk once, in order.
    const texts = [...chunkTexts(first.events), ...chunkTexts(resumed)];
    expect(texts).toHaveLength(CHUNKS);
    expect(texts.every((t, i) => t === `chunk ${i + 1}\n`)).toBe(true);
  }, 90_000);
});

/** The chunks of `stream N` as a reader got them, from JSON-RPC SSE results or gRPC StreamResponses. */
function chunkOf(update: { artifact?: { parts: Array<{ text?: string; content?: { case?: string; value?: unknown } }> } } | undefined): string[] {
  return (update?.artifact?.parts ?? []).map((p) => (p.text ?? (p.content?.case === "text" ? String(p.content.value) : "")));
}

describe("a reader that reads slowly", () => {
  /** Far more chunks than the buffer holds, read with pauses: the reader falls behind again and again. */
  const SLOW_CHUNKS = 30_000;
  const SMALL_BUFFER = 50;
  /**
   * The hub runs in its own process, as in production: its agent produces
   * at full speed on the other core while this process reads. (The file's
   * afterEach stops it.)
   */
  const startHub = (): Promise<ServerProcess> => {
    dataDir = tempDataDir();
    return spawnServer(dataDir, { env: { A2A_HUB_LIMIT_STREAM_BUFFER_EVENTS: String(SMALL_BUFFER), A2A_HUB_LIMIT_STREAM_STALL_MS: "5000" } });
  };
  const pause = (n: number) => (n % 200 === 0 ? sleep(40) : undefined);

  it("over gRPC gets every event in order, fed from the event log once it is limits.streamBufferEvents behind, and is not dropped", async () => {
    const server = await startHub();
    const texts: string[] = [];
    let last: TaskState | undefined;
    let n = 0;
    for await (const e of server.client("grpc").sendStreamingMessage(textRequest(`stream ${SLOW_CHUNKS}`))) {
      if (e.payload.case === "artifactUpdate") texts.push(...chunkOf(e.payload.value as never));
      if (e.payload.case === "statusUpdate") last = e.payload.value.status?.state;
      await pause(++n);
    }
    expect(last).toBe(TaskState.COMPLETED);
    expect(texts).toHaveLength(SLOW_CHUNKS);
    expect(texts.every((text, i) => text === `chunk ${i + 1}\n`)).toBe(true);
    expect(server.stderr()).not.toMatch(/stream dropped/);
  }, 60_000);

  it("over JSON-RPC SSE gets every event once, with SSE ids 1..n, and is not dropped", async () => {
    const server = await startHub();
    const stream = await openRpcStream(server.url, "SendStreamingMessage", { message: userMessage(`stream ${SLOW_CHUNKS}`) });
    const ids: number[] = [];
    const texts: string[] = [];
    let last: string | undefined;
    for await (const e of stream.events!) {
      if (e.data === undefined) continue;
      ids.push(Number(e.id));
      texts.push(...chunkOf(e.data.result?.artifactUpdate));
      last = e.data.result?.statusUpdate?.status?.state ?? last;
      await pause(ids.length);
    }
    expect(last).toBe("TASK_STATE_COMPLETED");
    expect(ids).toEqual(ids.map((_, i) => i + 1));
    expect(texts).toHaveLength(SLOW_CHUNKS);
    expect(texts.every((text, i) => text === `chunk ${i + 1}\n`)).toBe(true);
    expect(server.stderr()).not.toMatch(/stream dropped/);
  }, 60_000);
});

/** The timeouts of the hub below: small, so a slow sender is cut off quickly. */
const TIMEOUT_MS = 300;
/** How long a test waits for a cut that should come after TIMEOUT_MS: generous, the machine is shared. */
const CUT_WITHIN_MS = 5_000;

describe(`slow senders are cut off (headersTimeoutMs and bodyTimeoutMs of ${TIMEOUT_MS} ms)`, () => {
  let t: TestHub;
  beforeAll(async () => {
    t = await startTestHub({ headersTimeoutMs: TIMEOUT_MS, bodyTimeoutMs: TIMEOUT_MS });
  });
  afterAll(async () => {
    await t.stop();
  });

  const JSON_RPC_BODY = JSON.stringify(rpc("SendMessage", { message: userMessage("hello") }));
  const REST_BODY = JSON.stringify({ message: userMessage("hello") });

  it("a connection that sends nothing is closed after the headers timeout", async () => {
    const socket = await rawConnection(t.url);
    const end = await readUntilClosed(socket, CUT_WITHIN_MS);
    expect(end.text).toBe("");
    expect(end.afterMs).toBeGreaterThanOrEqual(TIMEOUT_MS - 50);
  });

  it("half a request line, then silence: the connection is closed (with at most a bare 408)", async () => {
    const socket = await rawConnection(t.url);
    socket.write("POST / HT");
    const end = await readUntilClosed(socket, CUT_WITHIN_MS);
    expect(end.text === "" || end.text.startsWith("HTTP/1.1 408 "), end.text).toBe(true);
  });

  it("headers sent a byte at a time (slowloris) are cut off although bytes keep coming", async () => {
    const socket = await rawConnection(t.url);
    const head = postHead(t.url, "/", { "content-type": "application/json", "content-length": String(Buffer.byteLength(JSON_RPC_BODY)), "x-padding": "p".repeat(200) });
    let sent = 0;
    const closed = readUntilClosed(socket, CUT_WITHIN_MS);
    const drip = setInterval(() => {
      if (!socket.destroyed && sent < head.length) socket.write(head[sent++]!);
    }, 10);
    try {
      const end = await closed;
      expect(sent).toBeLessThan(head.length);
      expect(end.text === "" || end.text.startsWith("HTTP/1.1 408 "), end.text).toBe(true);
    } finally {
      clearInterval(drip);
    }
  });

  it.each([
    { facade: "JSON-RPC", path: "/", body: JSON_RPC_BODY, answer: { jsonrpc: "2.0", id: null, error: { code: -32600, message: expect.stringContaining("limits.bodyTimeoutMs") } } },
    { facade: "REST", path: "/message:send", body: REST_BODY, answer: { error: { code: 408, message: expect.stringContaining("limits.bodyTimeoutMs") } } },
  ])("$facade: a body that stops halfway is answered 408 with the binding's error naming the limit, and the connection closes", async ({ path, body, answer }) => {
    const socket = await rawConnection(t.url);
    socket.write(postHead(t.url, path, { "content-type": "application/json", "content-length": String(Buffer.byteLength(body)) }));
    socket.write(body.slice(0, 10));
    const reply = parseRawReply((await readUntilClosed(socket, CUT_WITHIN_MS)).text);
    expect(reply.status).toBe(408);
    expect(reply.headers.connection).toBe("close");
    expect(JSON.parse(reply.body)).toMatchObject(answer);
  });

  it("a chunked body dripped a byte at a time is cut off at the body timeout, not extended by each byte", async () => {
    const socket = await rawConnection(t.url);
    socket.write(postHead(t.url, "/", { "content-type": "application/json", "transfer-encoding": "chunked" }));
    let sent = 0;
    const closed = readUntilClosed(socket, CUT_WITHIN_MS);
    const drip = setInterval(() => {
      if (!socket.destroyed && sent < JSON_RPC_BODY.length) socket.write(`1\r\n${JSON_RPC_BODY[sent++]}\r\n`);
    }, 10);
    try {
      const reply = parseRawReply((await closed).text);
      expect(sent).toBeLessThan(JSON_RPC_BODY.length);
      expect(reply.status).toBe(408);
    } finally {
      clearInterval(drip);
    }
  });

  it("Connect: a unary call whose body stops halfway has its connection closed", async () => {
    const socket = await rawConnection(t.url);
    socket.write(postHead(t.url, "/lf.a2a.v1.A2AService/GetTask", { "content-type": "application/json", "content-length": "100" }));
    socket.write('{"id":');
    const end = await readUntilClosed(socket, CUT_WITHIN_MS);
    expect(end.afterMs).toBeGreaterThanOrEqual(TIMEOUT_MS - 50);
  });

  it("a body sent in two halves within the timeout is served as usual", async () => {
    const socket = await rawConnection(t.url);
    socket.write(postHead(t.url, "/", { "content-type": "application/json", "content-length": String(Buffer.byteLength(JSON_RPC_BODY)), connection: "close" }));
    socket.write(JSON_RPC_BODY.slice(0, 10));
    await sleep(TIMEOUT_MS / 3);
    socket.write(JSON_RPC_BODY.slice(10));
    const reply = parseRawReply((await readUntilClosed(socket, CUT_WITHIN_MS)).text);
    expect(reply.status).toBe(200);
    expect(JSON.parse(reply.body).result.task.status.state).toBe("TASK_STATE_COMPLETED");
  });

  it("HTTP/2: a session that sends the preface and nothing else is closed after the headers timeout", async () => {
    const socket = await rawConnection(t.url);
    socket.write(H2_PREFACE);
    const end = await readUntilClosed(socket, CUT_WITHIN_MS);
    expect(end.afterMs).toBeGreaterThanOrEqual(TIMEOUT_MS - 50);
  });

  it("HTTP/2: a JSON-RPC body that stops halfway is answered 408, a gRPC one is reset, and the session goes on serving", async () => {
    const session = http2.connect(t.url);
    session.on("error", () => {});
    try {
      const rpcStream = session.request({ ":method": "POST", ":path": "/", "content-type": "application/json" });
      rpcStream.write(JSON_RPC_BODY.slice(0, 10));
      const grpc = session.request({ ":method": "POST", ":path": "/lf.a2a.v1.A2AService/GetTask", "content-type": "application/grpc", te: "trailers" });
      grpc.on("error", () => {});
      grpc.write(Buffer.from([0, 0, 0, 0, 100, 10]));
      const [reply, reset] = await Promise.all([
        within(CUT_WITHIN_MS, h2Reply(rpcStream), "no answer to the stalled JSON-RPC body"),
        within(CUT_WITHIN_MS, new Promise<number | undefined>((resolve) => grpc.once("close", () => resolve(grpc.rstCode))), "the stalled gRPC call was not reset"),
      ]);
      expect(reply.status).toBe(408);
      expect(JSON.parse(reply.text)).toMatchObject({ id: null, error: { code: -32600, message: expect.stringContaining("limits.bodyTimeoutMs") } });
      expect(reset).toBe(http2.constants.NGHTTP2_CANCEL);
      const served = await h2Request(session, H2_JSONRPC_POST, JSON_RPC_BODY);
      expect(JSON.parse(served.text).result.task.status.state).toBe("TASK_STATE_COMPLETED");
    } finally {
      session.destroy();
    }
  });
});

/** The HTTP/2 client connection preface (RFC 9113 §3.4). */
const H2_PREFACE = "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n";

/** Reads an HTTP/2 answer whose request body the client never finished. */
function h2Reply(stream: http2.ClientHttp2Stream): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    let status = 0;
    let text = "";
    stream.on("response", (h) => (status = Number(h[":status"])));
    stream.setEncoding("utf8");
    stream.on("data", (d: string) => (text += d));
    stream.on("end", () => resolve({ status, text }));
    stream.on("error", reject);
  });
}
