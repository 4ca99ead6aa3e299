import { afterEach, describe, expect, it } from "vitest";
import { connect, type Socket } from "node:net";
import { TaskState, type StreamResponse } from "../gen/a2a/v1/a2a_pb.js";
import { taskOf, textRequest } from "./helpers/messages.js";
import { killAllServers, removeDir, sleep, spawnServer, tempDataDir, within, type Launcher, type ServerProcess } from "./helpers/server-process.js";

let dataDir: string | undefined;
let sockets: Socket[] = [];
afterEach(async () => {
  for (const s of sockets) s.destroy();
  sockets = [];
  await killAllServers();
  removeDir(dataDir);
  dataDir = undefined;
});

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

describe.each<Launcher>(["node", "tsx-cli"])("graceful stop (launched via %s)", (launcher) => {
  it("SIGTERM ends open streams, exits 0, and the restart fails the task left in flight", async () => {
    dataDir = tempDataDir();
    const server = await spawnServer(dataDir, { launcher });
    const { taskId, ended } = await openSlowStream(server);

    const t0 = Date.now();
    server.signal("SIGTERM");
    const end = await within(5_000, ended, "the SubscribeToTask stream was still open 5 s after SIGTERM");
    expect(end.events).toBeGreaterThanOrEqual(1);
    expect(await server.waitExit(10_000)).toEqual({ code: 0, signal: null });
    expect(Date.now() - t0).toBeLessThan(10_000);
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
    // A client that connected and sent nothing holds the graceful stop for its whole grace period.
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
