import { afterEach, describe, expect, it } from "vitest";
import { connect, type Socket } from "node:net";
import { TaskState, type StreamResponse } from "../../gen/a2a/v1/a2a_pb.js";
import { userMessage } from "../helpers/json-messages.js";
import { openRpcStream, rpc } from "../helpers/jsonrpc-requests.js";
import { collect, taskOf, textRequest } from "../helpers/messages.js";
import { pausedPost, rawConnection, readUntilClosed } from "../helpers/raw-client.js";
import { dataEvents, sseMessages } from "../helpers/sse.js";
import { killAllServers, removeDir, sleep, spawnServer, tempDataDir, within, type Launcher, type ServerProcess } from "../helpers/server-process.js";

let dataDir: string | undefined;
let sockets: Socket[] = [];
afterEach(async () => {
  for (const s of sockets) s.destroy();
  sockets = [];
  await killAllServers();
  removeDir(dataDir);
  dataDir = undefined;
});

/** The hub's default grace period (HubOptions.shutdownGraceMs). */
const GRACE_MS = 5_000;
/** How long the tasks in flight at the signal run: well within the grace period. */
const TASK_MS = 1_500;
/** Chunks of the stream that has much to write when the signal comes (about 230 bytes of SSE each). */
const BURST = 20_000;

/** The id of the task of `contextId` once it is in `state` (ListTasks without artifacts: the burst task is large). */
async function waitState(server: ServerProcess, contextId: string, state: TaskState): Promise<string> {
  const client = server.client("grpc");
  for (let i = 0; i < 400; i++) {
    const { tasks } = await client.listTasks({ contextId, includeArtifacts: false, historyLength: 0 });
    if (tasks[0]?.status?.state === state) return tasks[0].id;
    await sleep(25);
  }
  throw new Error(`the task of ${contextId} did not reach ${TaskState[state]}`);
}

/** How a consumed stream ended. */
type StreamEnd = { kind: "end"; events: number } | { kind: "error"; events: number; error: unknown };

/**
 * Starts a `slow 60000` task, opens SubscribeToTask on it over gRPC and
 * waits for the first event, so the stream is open on the server. Returns
 * the task id and a promise of how the stream ends.
 */
async function openSlowStream(server: ServerProcess): Promise<{ taskId: string; ended: Promise<StreamEnd> }> {
  const client = server.client("grpc");
  const task = taskOf(await client.sendMessage(textRequest("slow 60000", { configuration: { returnImmediately: true } })));
  const it = client.subscribeToTask({ id: task.id })[Symbol.asyncIterator]();
  const first = await within(5_000, it.next(), "SubscribeToTask sent nothing within 5 s");
  expect(first.done).toBe(false);
  expect((first.value as StreamResponse).payload.case).toBe("task");
  const ended = (async (): Promise<StreamEnd> => {
    let events = 1;
    try {
      for (;;) {
        const r = await it.next();
        if (r.done) return { kind: "end", events };
        events++;
      }
    } catch (error) {
      return { kind: "error", events, error };
    }
  })();
  return { taskId: task.id, ended };
}

/** A TCP connection that connects and says nothing: a slow client a graceful stop has to wait for. */
async function idleConnection(url: string): Promise<Socket> {
  const { hostname, port } = new URL(url);
  const socket = connect({ host: hostname, port: Number(port) });
  sockets.push(socket);
  socket.on("error", () => {});
  await new Promise<void>((resolve, reject) => {
    socket.once("connect", resolve);
    socket.once("error", reject);
  });
  return socket;
}

/**
 * Whether connections to `url` are refused (ECONNREFUSED) within `ms`. The
 * listener closes in the turn that logs the signal; a connection the kernel
 * completed before that is reset unanswered, which a loaded machine can let
 * a client see as a connect, so such a connection must end without a byte.
 */
async function refusedWithin(url: string, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    let socket: Awaited<ReturnType<typeof rawConnection>> | undefined;
    try {
      socket = await rawConnection(url);
      const { text } = await readUntilClosed(socket, 500);
      if (text !== "") return false;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === "ECONNREFUSED") return true;
    } finally {
      socket?.destroy();
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  return false;
}

describe.each<Launcher>(["node", "start", "tsx-cli"])("graceful stop (launched via %s)", (launcher) => {
  it("SIGTERM refuses new connections, lets the unary call and the streams in flight finish with their last events, flushes what they wrote, and exits 0", async () => {
    dataDir = tempDataDir();
    // A buffer that holds the whole burst below: its reader is paused on purpose.
    const server = await spawnServer(dataDir, { launcher, env: { A2A_HUB_LIMIT_STREAM_BUFFER_EVENTS: String(2 * BURST) } });
    const client = server.client("grpc");
    // A stream whose reader reads nothing until after the signal: the task
    // completes, and its events wait in the hub's buffers (megabytes, more
    // than the sockets hold) to be written.
    const burst = await pausedPost(server.url, JSON.stringify(rpc("SendStreamingMessage", { message: userMessage(`stream ${BURST}`, { contextId: "burst" }) })), {
      "content-type": "application/json",
      accept: "text/event-stream",
    });
    await waitState(server, "burst", TaskState.COMPLETED);
    // A blocking call of a task that ends well within the grace period.
    const unary = client.sendMessage(textRequest(`slow ${TASK_MS}`, { contextId: "unary" }));
    const unaryTaskId = await waitState(server, "unary", TaskState.WORKING);
    // A gRPC stream following that task, and a JSON-RPC SSE stream of a task of its own.
    const grpcEvents = collect(client.subscribeToTask({ id: unaryTaskId }));
    const sse = await openRpcStream(server.url, "SendStreamingMessage", { message: userMessage(`slow ${TASK_MS}`) });
    const sseEvents = dataEvents(sse.events!);

    server.signal("SIGTERM");
    await waitFor(() => /SIGTERM, stopping/.test(server.stderr()), 5_000, "the server did not report the SIGTERM");
    // New requests are refused at the connection level: nothing can be half-processed.
    expect(await refusedWithin(server.url, 2_000)).toBe(true);

    const answer = taskOf(await within(GRACE_MS, unary, "the blocking SendMessage got no answer within the grace period"));
    expect(answer.id).toBe(unaryTaskId);
    expect(answer.status?.state).toBe(TaskState.COMPLETED);
    const followed = await within(GRACE_MS, grpcEvents, "the gRPC stream did not end within the grace period");
    expect(followed.at(-1)?.payload.value).toMatchObject({ status: { state: TaskState.COMPLETED } });
    const streamed = await within(GRACE_MS, sseEvents, "the SSE stream did not end within the grace period");
    expect(streamed.at(-1)?.data.result.statusUpdate.status.state).toBe("TASK_STATE_COMPLETED");
    // The paused reader reads now: every event was kept for it (Task, WORKING, BURST chunks, COMPLETED).
    const flushed = await within(GRACE_MS, dataEvents(sseMessages(burst as unknown as ReadableStream<Uint8Array>)), "the burst stream did not end");
    expect(flushed).toHaveLength(BURST + 3);
    expect(flushed.at(-1)?.data.result.statusUpdate.status.state).toBe("TASK_STATE_COMPLETED");
    // With nothing left in flight the process exits without waiting out the grace period.
    expect(await server.waitExit(GRACE_MS)).toEqual({ code: 0, signal: null });
    await server.kill(); // no-op unless something of it outlived the exit
  }, 60_000);

  it("a stream whose task outlives the grace period is ended cleanly at its end, exit is 0, and the restart fails the task left in flight", async () => {
    dataDir = tempDataDir();
    const server = await spawnServer(dataDir, { launcher });
    const { taskId, ended } = await openSlowStream(server);

    const t0 = Date.now();
    server.signal("SIGTERM");
    const end = await within(GRACE_MS + 5_000, ended, "the SubscribeToTask stream was still open well after the grace period");
    expect(end).toMatchObject({ kind: "end" });
    expect(end.events).toBeGreaterThanOrEqual(1);
    expect(await server.waitExit(10_000)).toEqual({ code: 0, signal: null });
    expect(Date.now() - t0).toBeLessThan(GRACE_MS + 5_000);
    await server.kill(); // no-op unless something of it outlived the exit

    const restarted = await spawnServer(dataDir);
    const task = await restarted.client("grpc").getTask({ id: taskId });
    expect(task.status?.state).toBe(TaskState.FAILED);
    const text = task.status?.message?.parts.map((p) => (p.content.case === "text" ? p.content.value : "")).join("");
    expect(text).toMatch(/server restarted/i);
    await restarted.kill();
  }, 60_000);
});

describe("forced stop", () => {
  it("a second SIGTERM during a graceful stop exits at once, without waiting for the grace period", async () => {
    dataDir = tempDataDir();
    const server = await spawnServer(dataDir);
    const { ended } = await openSlowStream(server);
    // The open stream holds the graceful stop for its whole grace period; so would a request in flight.
    await idleConnection(server.url);

    server.signal("SIGTERM");
    await waitFor(() => /SIGTERM, stopping/.test(server.stderr()), 5_000, "the server did not report the first SIGTERM");
    const t0 = Date.now();
    server.signal("SIGTERM");
    const exit = await server.waitExit(5_000);
    expect(Date.now() - t0).toBeLessThan(2_000);
    expect(exit).toEqual({ code: 1, signal: null });
    expect(server.stderr()).toMatch(/second SIGTERM/);
    await within(5_000, ended, "the SubscribeToTask stream did not end after the forced exit");
  }, 30_000);

  it("two SIGTERMs sent back to back while a stream is open end the process", async () => {
    dataDir = tempDataDir();
    const server = await spawnServer(dataDir);
    const { ended } = await openSlowStream(server);
    server.signal("SIGTERM");
    server.signal("SIGTERM");
    const exit = await server.waitExit(10_000);
    // Back-to-back signals may merge into one (graceful, 0) or arrive as two (forced, 1).
    expect(exit.signal).toBeNull();
    expect([0, 1]).toContain(exit.code);
    await within(5_000, ended, "the SubscribeToTask stream did not end after the exit");
  }, 30_000);
});

async function waitFor(cond: () => boolean, ms: number, message: string): Promise<void> {
  const deadline = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > deadline) throw new Error(message);
    await sleep(10);
  }
}
