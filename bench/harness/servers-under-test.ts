import { execFileSync } from "node:child_process";
import { copyFileSync, mkdirSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { Child, nodeTs } from "./child-process.js";
import type { CpuPinning } from "./cpu-pinning.js";

/** A server child the bench measures, pinned to the server core. */
export interface ServerUnderTest {
  readonly child: Child;
  /** Base URL of its HTTP endpoint, ending in "/". */
  readonly url: string;
  /** Base URL of a separate gRPC port, when it has one (the SDK does). */
  readonly grpcUrl?: string;
}

const START_TIMEOUT_MS = 60_000;

/**
 * V8 flags of every server the bench measures. `--no-memory-reducer`: after
 * a few seconds without allocation V8 shrinks an idle heap, and the
 * server's next seconds under load run slower while it grows back. The
 * side-by-side sections load their servers in turn, so each idles between
 * its runs, some longer than others (the telemetry section's "off" runs
 * every other slot; the others wait out several): measured with four
 * identical hubs in that schedule (gRPC, 32 connections, 6 rounds), the
 * one that had idled longest read 14-28% more CPU per call than "off"
 * round after round, and with the flag none did (-5% to +5%). A server
 * under steady load never idles, so the flag removes an artifact of taking
 * turns, not a cost of the code; every server gets it alike.
 */
const SERVER_NODE_FLAGS: readonly string[] = ["--no-memory-reducer"];

/** Baseline (a): bare node:http answering a fixed small JSON. */
export async function startBareNode(pinning: CpuPinning): Promise<ServerUnderTest> {
  const child = new Child("bare-node-server", [...pinning.server, ...nodeTs("bench/servers/bare-node-server.ts", [], SERVER_NODE_FLAGS)]);
  const m = await child.waitForLine(/^READY (.*)$/, START_TIMEOUT_MS);
  const { port } = JSON.parse(m[1]!) as { port: number };
  return { child, url: `http://127.0.0.1:${port}/` };
}

/** The RPC stack's ceiling: connect-node on the hub's one-port host, a fixed Task (bench/servers/bare-connect-server.ts). */
export async function startBareConnect(pinning: CpuPinning): Promise<ServerUnderTest> {
  const child = new Child("bare-connect-server", [...pinning.server, ...nodeTs("bench/servers/bare-connect-server.ts", [], SERVER_NODE_FLAGS)]);
  const m = await child.waitForLine(/^READY (.*)$/, START_TIMEOUT_MS);
  const { port } = JSON.parse(m[1]!) as { port: number };
  return { child, url: `http://127.0.0.1:${port}/` };
}

/** Where the SDK's SQLite database lives, migrated with the SDK's own a2a-db tool. */
function migrateSdkDatabase(dir: string): string {
  mkdirSync(dir, { recursive: true });
  const file = join(dir, "sdk.db");
  execFileSync(process.execPath, ["node_modules/@a2a-js/sdk/dist/cli/a2a_db.js", "upgrade", "--url", `sqlite:${file}`], { stdio: "pipe" });
  return file;
}

/** Baselines (b) and (c): @a2a-js/sdk over JSON-RPC (express) and gRPC, in-memory or SQLite store. */
export async function startSdk(pinning: CpuPinning, store: "memory" | "sqlite", dir: string): Promise<ServerUnderTest & { dbFile?: string }> {
  const dbFile = store === "sqlite" ? migrateSdkDatabase(dir) : undefined;
  const args = ["--store", store, ...(dbFile ? ["--db", dbFile] : [])];
  const child = new Child(`sdk-server (${store})`, [...pinning.server, ...nodeTs("bench/servers/sdk-server.ts", args, SERVER_NODE_FLAGS)]);
  const m = await child.waitForLine(/^READY (.*)$/, START_TIMEOUT_MS);
  const { jsonrpcPort, grpcPort } = JSON.parse(m[1]!) as { jsonrpcPort: number; grpcPort: number };
  return { child, url: `http://127.0.0.1:${jsonrpcPort}/`, grpcUrl: `http://127.0.0.1:${grpcPort}/`, dbFile };
}

/** Options of a hub child. */
export interface HubChildOptions {
  /** Directory to write a V8 CPU profile to when the hub exits (node --cpu-prof). */
  readonly cpuProfDir?: string;
  /** Run under node --trace-gc: the collector prints a line per collection on stdout (gc-trace.ts reads them). */
  readonly traceGc?: boolean;
  /** Settings for this hub (A2A_HUB_*, OTEL_*), over the caller's environment stripped of both. */
  readonly env?: Readonly<Record<string, string>>;
}

/**
 * a2a-hub exactly as `npm start` runs it (bin/start.mjs: src/main.ts
 * compiled, durable SQLite, the echo agent, every binding the server
 * mounts), minus the npm wrapper, so the pid is the server's own and its
 * RSS is the server's.
 */
export async function startHubChild(pinning: CpuPinning, dataDir: string, options: HubChildOptions = {}): Promise<ServerUnderTest> {
  const flags = [...SERVER_NODE_FLAGS, ...(options.cpuProfDir ? ["--cpu-prof", "--cpu-prof-dir", options.cpuProfDir] : []), ...(options.traceGc ? ["--trace-gc"] : [])];
  // The hub's defaults are what is measured: no A2A_HUB_* settings (rate limits, tenants) leak in from the caller.
  const env = { ...Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith("A2A_HUB_") && !k.startsWith("OTEL_"))), ...options.env };
  const child = new Child("a2a-hub", [...pinning.server, process.execPath, ...flags, "bin/start.mjs", "--port", "0", "--data", dataDir], { env });
  const m = await child.waitForLine(/a2a-hub listening on (http:\/\/\S+\/)/, START_TIMEOUT_MS);
  if (options.cpuProfDir) keepSourceMap(child.pid, options.cpuProfDir);
  return { child, url: m[1]! };
}

/**
 * The source map of the compiled server, copied beside its CPU profile:
 * the profile names the compiled file (.build/, removed when the hub
 * exits), and cpu-profile.ts maps its frames back to src/ through the map.
 * A hub that fell back to tsx has no compiled file, and nothing is copied.
 */
function keepSourceMap(pid: number, profDir: string): void {
  const build = ".build";
  let names: string[];
  try {
    names = readdirSync(build);
  } catch {
    return;
  }
  for (const name of names) if (name.endsWith(`.${pid}.mjs.map`)) copyFileSync(join(build, name), join(profDir, name));
}
