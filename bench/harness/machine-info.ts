import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import * as os from "node:os";

/** Where and with what a run happened: the header of every report. */
export interface MachineInfo {
  readonly date: string;
  readonly cpu: string;
  readonly cores: number;
  readonly memory: string;
  readonly os: string;
  /** 1-minute load average when the run started: other work on a shared host shows here. */
  readonly loadAtStart: number;
  readonly versions: ReadonlyArray<readonly [string, string]>;
  /** gitRevision() when the run started. */
  readonly revisionAtStart: string;
}

function packageVersion(name: string): string {
  try {
    return (JSON.parse(readFileSync(`node_modules/${name}/package.json`, "utf8")) as { version: string }).version;
  } catch {
    return "not installed";
  }
}

/**
 * The commit the hub was measured at, read-only; "+ local changes" when the
 * tree differs from it. Each server child loads the tree as it is when it
 * starts, so the report compares this at the start and at the end.
 */
export function gitRevision(): string {
  try {
    const rev = execFileSync("git", ["rev-parse", "--short", "HEAD"], { encoding: "utf8" }).trim();
    const dirty = execFileSync("git", ["status", "--porcelain", "--", "src", "gen"], { encoding: "utf8" }).trim() !== "";
    return dirty ? `${rev} + local changes in src/gen` : rev;
  } catch {
    return "unknown";
  }
}

function osName(): string {
  try {
    const m = /PRETTY_NAME="([^"]+)"/.exec(readFileSync("/etc/os-release", "utf8"));
    return `${m?.[1] ?? os.type()}, kernel ${os.release()}`;
  } catch {
    return `${os.type()} ${os.release()}`;
  }
}

export function machineInfo(): MachineInfo {
  const hub = JSON.parse(readFileSync("package.json", "utf8")) as { version: string };
  const revision = gitRevision();
  return {
    revisionAtStart: revision,
    date: new Date().toISOString().replace(/\.\d+Z$/, "Z"),
    cpu: os.cpus()[0]?.model ?? "unknown",
    cores: os.availableParallelism(),
    memory: `${(os.totalmem() / 2 ** 30).toFixed(1)} GiB`,
    os: osName(),
    loadAtStart: os.loadavg()[0]!,
    versions: [
      ["node", process.version],
      ["a2a-hub", `${hub.version} (git ${revision})`],
      ["@a2a-js/sdk", packageVersion("@a2a-js/sdk")],
      ["@connectrpc/connect-node", packageVersion("@connectrpc/connect-node")],
      ["better-sqlite3", packageVersion("better-sqlite3")],
      ["express (SDK JSON-RPC)", packageVersion("express")],
      ["@grpc/grpc-js (SDK gRPC)", packageVersion("@grpc/grpc-js")],
      ["kysely (SDK SQLite store)", packageVersion("kysely")],
      ["autocannon", packageVersion("autocannon")],
    ],
  };
}
