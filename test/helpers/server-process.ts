import { createServer as createNetServer } from "node:net";
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { createClient, type Client } from "@connectrpc/connect";
import { createConnectTransport, createGrpcTransport } from "@connectrpc/connect-node";
import { A2AService } from "../../gen/a2a/v1/a2a_pb.js";

/** The repository root: where `npm start` runs. */
export const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../..");

/** How a server process ended. */
export interface Exit {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
}

/**
 * How the server is launched.
 * - "node": `node --import tsx src/main.ts`, one process, so a signal sent to
 *   the pid reaches the server itself (SIGKILL is a real crash).
 * - "start": `node bin/start.mjs`, what `npm start` runs: the server compiled
 *   at start, in one process.
 * - "tsx-cli": `node_modules/.bin/tsx src/main.ts`. The tsx CLI runs the
 *   server in a child process and relays signals to it; the pair gets its
 *   own process group so that a crash or a cleanup kills both.
 */
export type Launcher = "node" | "start" | "tsx-cli";

/** A hub running as a child process, as `npm start -- --port 0 --data <dir>` starts it. */
export interface ServerProcess {
  readonly child: ChildProcess;
  readonly pid: number;
  /** e.g. http://127.0.0.1:41241/ */
  readonly url: string;
  readonly dataDir: string;
  /** Resolves when the process has exited. */
  readonly exited: Promise<Exit>;
  /** Everything the process wrote to stderr so far. */
  stderr(): string;
  /** A client over Connect (HTTP/1.1) or gRPC (h2c). */
  client(transport: "connect" | "grpc"): Client<typeof A2AService>;
  /** Sends a signal to the server (to the whole process group for SIGKILL under "tsx-cli"). */
  signal(sig: NodeJS.Signals): void;
  /** Resolves with the exit, or rejects when the process outlives `ms`. */
  waitExit(ms: number): Promise<Exit>;
  /** SIGKILLs whatever of it is still running and waits for it to be gone. Safe to call twice. */
  kill(): Promise<void>;
}

/** A fresh temp directory for a server's data. */
export function tempDataDir(): string {
  return mkdtempSync(join(tmpdir(), "a2a-hub-proc-"));
}

/** Removes a temp data directory. */
export function removeDir(dir: string | undefined): void {
  if (dir) rmSync(dir, { recursive: true, force: true });
}

const LISTENING = /a2a-hub listening on (http:\/\/127\.0\.0\.1:\d+\/)/;

/** Every process this module started and has not yet seen gone: killed by killAllServers(). */
const running = new Set<ServerProcess>();

/**
 * Starts the server on 127.0.0.1, port 0, with the given data directory and
 * resolves once it printed its URL; rejects (and kills it) when it exits or
 * stays silent for `startTimeoutMs`.
 */
export async function spawnServer(
  dataDir: string,
  options: { launcher?: Launcher; startTimeoutMs?: number; env?: Record<string, string> } = {},
): Promise<ServerProcess> {
  const env = { ...process.env, ...options.env };
  const launcher = options.launcher ?? "node";
  const args = ["--port", "0", "--host", "127.0.0.1", "--data", dataDir];
  const child =
    launcher === "node"
      ? spawn(process.execPath, ["--import", "tsx", "src/main.ts", ...args], { cwd: REPO_ROOT, env, stdio: ["ignore", "pipe", "pipe"] })
      : launcher === "start"
        ? spawn(process.execPath, ["bin/start.mjs", ...args], { cwd: REPO_ROOT, env, stdio: ["ignore", "pipe", "pipe"] })
        : spawn(join(REPO_ROOT, "node_modules/.bin/tsx"), ["src/main.ts", ...args], { cwd: REPO_ROOT, env, stdio: ["ignore", "pipe", "pipe"], detached: true });
  const pid = child.pid;
  if (pid === undefined) throw new Error("the server process did not start");
  const group = launcher === "tsx-cli";

  let err = "";
  let out = "";
  child.stderr!.setEncoding("utf8").on("data", (d: string) => (err += d));
  const exited = new Promise<Exit>((resolveExit) => child.once("exit", (code, signal) => resolveExit({ code, signal })));

  const send = (sig: NodeJS.Signals, wholeGroup: boolean): void => {
    try {
      process.kill(wholeGroup ? -pid : pid, sig);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== "ESRCH") throw e;
    }
  };
  const groupGone = async (): Promise<void> => {
    if (!group) return;
    for (let i = 0; i < 200; i++) {
      try {
        process.kill(-pid, 0);
      } catch {
        return;
      }
      await sleep(25);
    }
    throw new Error(`process group ${pid} still alive`);
  };
  const waitExit = async (ms: number): Promise<Exit> => {
    let timer: NodeJS.Timeout | undefined;
    try {
      return await Promise.race([
        exited,
        new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`server did not exit within ${ms} ms; stderr:\n${err}`)), ms))),
      ]);
    } finally {
      clearTimeout(timer);
    }
  };

  const url = await new Promise<string>((resolveUrl, reject) => {
    const timer = setTimeout(() => reject(new Error(`server printed no URL within ${options.startTimeoutMs ?? 20_000} ms; stderr:\n${err}`)), options.startTimeoutMs ?? 20_000);
    child.stdout!.setEncoding("utf8").on("data", (d: string) => {
      out += d;
      const m = LISTENING.exec(out);
      if (m) {
        clearTimeout(timer);
        resolveUrl(m[1]!);
      }
    });
    void exited.then((e) => {
      clearTimeout(timer);
      reject(new Error(`server exited (${e.code ?? e.signal}) before listening; stderr:\n${err}`));
    });
  }).catch(async (e: unknown) => {
    send("SIGKILL", group);
    await exited;
    throw e;
  });

  const baseUrl = url.replace(/\/$/, "");
  // One client per transport, kept: a transport made per call opens an HTTP/2 connection per call that stays open
  // (connect-node closes an idle session only after minutes), and a test calling in a loop reaches limits.maxConnectionsPerAddress.
  const clients = new Map<"connect" | "grpc", Client<typeof A2AService>>();
  const server: ServerProcess = {
    child,
    pid,
    url,
    dataDir,
    exited,
    stderr: () => err,
    client: (transport) => {
      let c = clients.get(transport);
      if (!c) {
        c = createClient(A2AService, transport === "grpc" ? createGrpcTransport({ baseUrl }) : createConnectTransport({ baseUrl, httpVersion: "1.1" }));
        clients.set(transport, c);
      }
      return c;
    },
    signal: (sig) => send(sig, group && sig === "SIGKILL"),
    waitExit,
    kill: async () => {
      send("SIGKILL", group);
      await exited;
      await groupGone();
      running.delete(server);
    },
  };
  running.add(server);
  void exited.then(async () => {
    if (!group) running.delete(server);
  });
  return server;
}

/** Kills every server this module started that may still run: for afterEach. */
export async function killAllServers(): Promise<void> {
  await Promise.all([...running].map((s) => s.kill()));
}

export function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

/** Resolves with `p`, or rejects with `message` (read when the time is up) after `ms`. */
export async function within<T>(ms: number, p: Promise<T>, message: string | (() => string)): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const overrun = (): Error => new Error(typeof message === "string" ? message : message());
  try {
    return await Promise.race([p, new Promise<never>((_, reject) => (timer = setTimeout(() => reject(overrun()), ms)))]);
  } finally {
    clearTimeout(timer);
  }
}

/** A loopback port nothing listens on now (the server binds it a moment later). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createNetServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}
