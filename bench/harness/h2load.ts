import { execFileSync, spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import type { CpuPinning } from "./cpu-pinning.js";
import { CpuMeter } from "./proc-stats.js";
import { quantile } from "./stats.js";

/**
 * h2load (Debian: nghttp2-client) drives HTTP/2 and gRPC: a C loader costs
 * far less CPU per call than a Node gRPC client, so the server, not the
 * loader, is what runs out of CPU.
 */
export function h2loadVersion(): string | undefined {
  try {
    return execFileSync("h2load", ["--version"], { encoding: "utf8" }).trim();
  } catch {
    return undefined;
  }
}

export const H2LOAD_INSTALL_HINT = "sudo apt-get install -y nghttp2-client   # Debian/Ubuntu; provides h2load";

/**
 * Finds h2load, installing nghttp2-client with apt-get when running as
 * root on a Debian-like system; otherwise throws with the command to run.
 */
export function ensureH2load(log: (line: string) => void): string {
  const found = h2loadVersion();
  if (found) return found;
  const isRoot = process.getuid?.() === 0;
  let hasApt = false;
  try {
    execFileSync("apt-get", ["--version"], { stdio: "ignore" });
    hasApt = true;
  } catch {
    // no apt-get: say what to install instead
  }
  if (isRoot && hasApt) {
    log("h2load not found: installing nghttp2-client with apt-get (root)…");
    execFileSync("apt-get", ["update", "-qq"], { stdio: "inherit" });
    execFileSync("apt-get", ["install", "-y", "-qq", "nghttp2-client"], { stdio: "inherit", env: { ...process.env, DEBIAN_FRONTEND: "noninteractive" } });
    const installed = h2loadVersion();
    if (installed) return installed;
  }
  throw new Error(`h2load not found. Install it:\n  ${H2LOAD_INSTALL_HINT}`);
}

/** One h2load invocation. */
export interface H2loadRequest {
  readonly url: string;
  readonly bodyFile: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly clients: number;
  readonly durationSec: number;
  /** Per-request log (µs), for p50/p99; h2load itself prints only mean and sd. */
  readonly logFile: string;
}

/** What one h2load run measured. */
export interface H2loadRun {
  readonly started: number;
  readonly done: number;
  readonly succeeded: number;
  readonly failed: number;
  readonly errored: number;
  readonly timeout: number;
  readonly seconds: number;
  readonly rps: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  /** Response DATA bytes per succeeded request: a gRPC error has none, so this catches 200s that are failures. */
  readonly dataBytesPerResponse: number;
  readonly loaderCpu: number;
}

function grab(text: string, re: RegExp): number {
  const m = re.exec(text);
  if (!m) throw new Error(`h2load output did not match ${re}:\n${text}`);
  return Number(m[1]);
}

/** Runs h2load pinned to the loader core, one stream per connection, for a fixed duration. */
export async function runH2load(req: H2loadRequest, pinning: CpuPinning): Promise<H2loadRun> {
  const args = [
    "h2load",
    "-c", String(req.clients),
    "-m", "1",
    "-t", "1",
    "-D", `${Math.round(req.durationSec * 1000)}ms`,
    "-d", req.bodyFile,
    "--log-file", req.logFile,
    ...Object.entries(req.headers).flatMap(([k, v]) => ["-H", `${k}: ${v}`]),
    req.url,
  ];
  const argv = [...pinning.loader, ...args];
  const child = spawn(argv[0]!, argv.slice(1), { stdio: ["ignore", "pipe", "pipe"] });
  const meter = new CpuMeter(child.pid!);
  let loaderCpu = NaN;
  // Sample the loader's CPU just before it exits; /proc is gone afterwards.
  const sampler = setInterval(() => {
    const s = meter.share();
    if (Number.isFinite(s)) loaderCpu = s;
  }, 200);
  let out = "";
  child.stdout.on("data", (d: Buffer) => (out += d.toString()));
  child.stderr.on("data", (d: Buffer) => (out += d.toString()));
  const code = await new Promise<number | null>((resolve) => child.once("exit", resolve));
  clearInterval(sampler);
  if (code !== 0) throw new Error(`h2load exited ${code}:\n${out.slice(-2000)}`);
  const finished = /finished in ([\d.]+)(ms|s),/.exec(out);
  if (!finished) throw new Error(`h2load printed no "finished in":\n${out.slice(-2000)}`);
  const seconds = Number(finished[1]) / (finished[2] === "ms" ? 1000 : 1);
  const succeeded = grab(out, /(\d+) succeeded/);
  const dataBytes = grab(out, /\((\d+)\) data/);
  const latenciesMs: number[] = [];
  for (const line of readFileSync(req.logFile, "utf8").split("\n")) {
    const [, status, us] = line.split("\t");
    if (status === "200") latenciesMs.push(Number(us) / 1000);
  }
  return {
    started: grab(out, /(\d+) started/),
    done: grab(out, /(\d+) done/),
    succeeded,
    failed: grab(out, /(\d+) failed/),
    errored: grab(out, /(\d+) errored/),
    timeout: grab(out, /(\d+) timeout/),
    seconds,
    rps: succeeded / seconds,
    p50Ms: quantile(latenciesMs, 0.5),
    p99Ms: quantile(latenciesMs, 0.99),
    dataBytesPerResponse: succeeded > 0 ? dataBytes / succeeded : 0,
    loaderCpu,
  };
}
