import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as http2 from "node:http2";
import type { Socket } from "node:net";
import { create, toBinary } from "@bufbuild/protobuf";
import { SubscribeToTaskRequestSchema, TaskState } from "../../gen/a2a/v1/a2a_pb.js";
import { rpc } from "../helpers/jsonrpc-requests.js";
import { taskOf, textRequest } from "../helpers/messages.js";
import { postHead, rawConnection, rawGrpcCall } from "../helpers/raw-client.js";
import { sleep } from "../helpers/server-process.js";
import { startTestHub, type TestHub } from "../helpers/test-hub.js";

/** How many connections are opened and abandoned. */
const CONNECTIONS = 1_000;
/** Opened this many at a time, so the listen backlog never overflows into SYN retries. */
const BATCH = 100;

/** What one abandoned connection did before it was destroyed. */
type Kind = "silent" | "half request line" | "headers, no body" | "h2 preface" | "SSE stream" | "gRPC stream";
const KINDS: readonly Kind[] = ["silent", "half request line", "headers, no body", "h2 preface", "SSE stream", "gRPC stream"];

/** Counts of process.getActiveResourcesInfo() by type. */
function activeResources(): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const r of process.getActiveResourcesInfo()) counts[r] = (counts[r] ?? 0) + 1;
  return counts;
}

let t: TestHub;
let taskId: string;
const warnings: string[] = [];
const onWarning = (w: Error): void => void warnings.push(`${w.name}: ${w.message}`);
beforeAll(async () => {
  // All of them come from one address: the per-address limit (its own test: door-limits) is raised past them.
  t = await startTestHub({ connectionLimits: { maxConnectionsPerAddress: 2 * CONNECTIONS } });
  // The task every stream subscribes to: it runs for the whole test.
  taskId = taskOf(await t.client("grpc").sendMessage(textRequest("slow 120000", { configuration: { returnImmediately: true } }))).id;
  process.on("warning", onWarning);
});
afterAll(async () => {
  process.off("warning", onWarning);
  await t.client("grpc").cancelTask({ id: taskId });
  await t.stop();
});

/** Opens one connection of `kind` and resolves once the server has what it was sent (a stream: once it is open). */
async function abandonable(kind: Kind): Promise<{ destroy(): void }> {
  if (kind === "h2 preface" || kind === "gRPC stream") {
    const session = http2.connect(t.url);
    session.on("error", () => {});
    if (kind === "h2 preface") {
      await new Promise<void>((resolve) => session.once("connect", () => resolve()));
    } else {
      const stream = rawGrpcCall(session, "SubscribeToTask", toBinary(SubscribeToTaskRequestSchema, create(SubscribeToTaskRequestSchema, { id: taskId })));
      // The first message (the Task) has arrived: the subscription is live on the server.
      await new Promise<void>((resolve) => stream.once("data", () => resolve()));
    }
    return { destroy: () => session.destroy() };
  }
  const socket: Socket = await rawConnection(t.url);
  if (kind === "half request line") socket.write("POST / HT");
  if (kind === "headers, no body") socket.write(postHead(t.url, "/", { "content-type": "application/json", "content-length": "100" }));
  if (kind === "SSE stream") {
    const body = JSON.stringify(rpc("SubscribeToTask", { id: taskId }));
    socket.write(postHead(t.url, "/", { "content-type": "application/json", accept: "text/event-stream", "content-length": String(Buffer.byteLength(body)) }) + body);
    // The first event (the Task) has arrived: the subscription is live on the server.
    await new Promise<void>((resolve) => {
      let seen = "";
      const onData = (d: Buffer): void => {
        seen += d.toString("latin1");
        if (!seen.includes("\n\n", seen.indexOf("\r\n\r\n") + 4)) return;
        socket.off("data", onData);
        resolve();
      };
      socket.on("data", onData);
    });
  }
  return { destroy: () => socket.destroy() };
}

describe(`${CONNECTIONS} connections opened and abandoned`, () => {
  it("leave no socket, stream, bus listener or timer behind, and no MaxListenersExceededWarning", async () => {
    const engine = t.hub.core.engine;
    // Settle what the setup opened (the client's own keep-alive connections stay in the baseline).
    await expect.poll(() => t.hub.openConnections, { timeout: 10_000 }).toBeLessThanOrEqual(2);
    const baseline = activeResources();
    const baseConnections = t.hub.openConnections;
    expect(engine.bus.listenerCount()).toBe(0);

    const open: Array<{ destroy(): void }> = [];
    for (let i = 0; i < CONNECTIONS; i += BATCH) {
      open.push(...(await Promise.all(Array.from({ length: BATCH }, (_, j) => abandonable(KINDS[(i + j) % KINDS.length]!)))));
    }
    // All of them are held by the server now, the streams subscribed.
    await expect.poll(() => t.hub.openConnections, { timeout: 10_000 }).toBeGreaterThanOrEqual(CONNECTIONS);
    const streams = KINDS.filter((k) => k.endsWith("stream")).length * Math.floor(CONNECTIONS / KINDS.length);
    expect(engine.openStreams).toBeGreaterThanOrEqual(streams);
    expect(engine.bus.listenerCount()).toBeGreaterThanOrEqual(streams);

    for (const c of open) c.destroy();
    await expect.poll(() => t.hub.openConnections, { timeout: 15_000 }).toBe(baseConnections);
    await expect.poll(() => engine.openStreams, { timeout: 5_000 }).toBe(0);
    expect(engine.bus.listenerCount()).toBe(0);
    // Timers and sockets settle a moment after the close events.
    await sleep(200);
    const after = activeResources();
    for (const type of ["Timeout", "TCPSocketWrap", "TCPServerWrap"]) {
      expect(after[type] ?? 0, `${type}: ${JSON.stringify(baseline)} → ${JSON.stringify(after)}`).toBeLessThanOrEqual((baseline[type] ?? 0) + 3);
    }
    expect(warnings.filter((w) => w.includes("MaxListenersExceeded"))).toEqual([]);

    // The hub still serves, and the task the streams followed still runs.
    const task = await t.client("grpc").getTask({ id: taskId });
    expect(task.status?.state).toBe(TaskState.WORKING);
  }, 60_000);
});
