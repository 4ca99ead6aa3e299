import { execFile } from "node:child_process";
import { createHash } from "node:crypto";
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { homedir, tmpdir } from "node:os";
import { delimiter, dirname, join } from "node:path";
import { REPO_ROOT } from "./server-process.js";

/** A finished podman (or mmdebstrap) command. */
export interface Ran {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs a command to its end, bounded in time; never throws for a non-zero exit. */
export function exec(command: string, args: readonly string[], timeoutMs = 120_000): Promise<Ran> {
  return new Promise((done) => {
    execFile(command, [...args], { timeout: timeoutMs, maxBuffer: 64 * 1024 * 1024, encoding: "utf8" }, (error, stdout, stderr) => {
      const code = error ? (typeof error.code === "number" ? error.code : 1) : 0;
      done({ code, stdout, stderr: error && code === 1 && !stderr ? String(error.message) : stderr });
    });
  });
}

/** Throws with podman's output unless the command succeeded. */
export function ok(ran: Ran, what: string): Ran {
  if (ran.code !== 0) throw new Error(`${what} exited ${ran.code}:\n${ran.stdout}\n${ran.stderr}`);
  return ran;
}

/**
 * podman as this machine lets it run containers. Some hosts need more than
 * the defaults: crun refuses cgroups in hybrid mode (runc accepts them), and
 * podman raises the open-files and process limits past the hard limits a
 * sandbox may hold it to. The first flag set that runs a container is kept.
 */
export class Podman {
  private constructor(
    /** Flags before the subcommand (`--runtime runc`). */
    readonly global: readonly string[],
    /** Flags for `podman run` and `podman create`. */
    readonly runFlags: readonly string[],
  ) {}

  /** Finds the flags that run `image` here; throws with every attempt's error when none does. */
  static async probe(image: string): Promise<Podman> {
    const hard = /^Max open files\s+\d+\s+(\d+)/m.exec(readFileSync("/proc/self/limits", "utf8"))?.[1];
    const limits = hard ? ["--ulimit", `nofile=${hard}:${hard}`, "--ulimit", "nproc=4096:4096"] : [];
    const attempts: Array<[string[], string[]]> = [[[], []], [[], limits], [["--runtime", "runc"], limits]];
    const errors: string[] = [];
    for (const [global, runFlags] of attempts) {
      const ran = await exec("podman", [...global, "run", "--rm", ...runFlags, image, "true"], 60_000);
      if (ran.code === 0) return new Podman(global, runFlags);
      errors.push(`podman ${[...global, "run", ...runFlags].join(" ")}: ${ran.stderr.trim().split("\n").at(-1)}`);
    }
    throw new Error(`podman cannot run a container on this machine:\n${errors.join("\n")}`);
  }

  /** `podman <args>` with this machine's global flags. */
  cmd(args: readonly string[], timeoutMs?: number): Promise<Ran> {
    return exec("podman", [...this.global, ...args], timeoutMs);
  }

  /**
   * `podman build <args>`, niced: it shares two cores with the rest of the
   * suite, whose abuse tests bound their clients' latency.
   */
  build(args: readonly string[], timeoutMs?: number): Promise<Ran> {
    return exec("nice", ["-n", "10", "podman", ...this.global, "build", ...BUILD_FLAGS, ...args], timeoutMs);
  }

  /** `podman run <flags> <args>`. */
  run(args: readonly string[], timeoutMs?: number): Promise<Ran> {
    return this.cmd(["run", ...this.runFlags, ...args], timeoutMs);
  }
}

/** Where built base layers are kept between runs (an mmdebstrap tarball takes minutes to make). */
const CACHE = process.env.A2A_HUB_CONTAINER_CACHE ?? join(homedir(), ".cache", "a2a-hub", "container");
const SUITE = "bookworm";
const MIRROR = process.env.A2A_HUB_DEBIAN_MIRROR ?? "http://deb.debian.org/debian";
/** The machine's trust store: where a TLS-inspecting proxy's CA lives, which npm inside the build needs too. */
const TRUST_STORE = "/etc/ssl/certs/ca-certificates.crt";

/** Debian's root file system as an image: a minbase tarball by mmdebstrap (cached), imported once. */
export async function debianImage(): Promise<string> {
  const tag = `localhost/a2a-hub-test-debian:${SUITE}`;
  if ((await exec("podman", ["image", "exists", tag])).code === 0) return tag;
  const tar = join(CACHE, `debian-${SUITE}-minbase.tar`);
  if (!existsSync(tar)) {
    mkdirSync(CACHE, { recursive: true });
    const partial = `${tar}.${process.pid}.partial`;
    try {
      ok(await exec("nice", ["-n", "10", "mmdebstrap", "--variant=minbase", "--format=tar", "--include=ca-certificates", "--quiet", SUITE, partial, MIRROR], 900_000), "mmdebstrap");
      renameSync(partial, tar);
    } finally {
      rmSync(partial, { force: true });
    }
  }
  ok(await exec("podman", ["import", "--change", "ENV=PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin", tar, tag], 300_000), "podman import");
  return tag;
}

/** The npm running this test (npm sets npm_execpath for its scripts), else the one on PATH. */
function npmPackageDir(): string {
  const onPath = (process.env.PATH ?? "").split(delimiter).map((d) => join(d, "npm")).find((f) => existsSync(f));
  const cli = process.env.npm_execpath && existsSync(process.env.npm_execpath) ? process.env.npm_execpath : onPath;
  if (!cli) throw new Error("no npm on PATH to put in the test base image");
  return dirname(dirname(realpathSync(cli)));
}

/**
 * A stand-in for the official Node image, made of Debian packages and npm
 * registry packages only (no image registry is reachable): Debian's minbase,
 * this project's Node 24 (the node-linux-* package in node_modules) and the
 * machine's npm, laid out as the official image lays them out
 * (/usr/local/bin/node, /usr/local/lib/node_modules/npm). Tagged by a hash
 * of what went in, so a run reuses the image an earlier run built.
 */
export async function nodeBaseImage(podman: Podman, debian: string): Promise<string> {
  const arch = process.arch === "arm64" ? "arm64" : "x64";
  const node = join(REPO_ROOT, "node_modules", `node-linux-${arch}`, "bin", "node");
  const npm = npmPackageDir();
  const version = (file: string): string => (JSON.parse(readFileSync(file, "utf8")) as { version: string }).version;
  const trust = existsSync(TRUST_STORE) ? readFileSync(TRUST_STORE) : Buffer.alloc(0);
  const key = createHash("sha256")
    .update([debian, version(join(dirname(dirname(node)), "package.json")), version(join(npm, "package.json"))].join("\n"))
    .update(trust)
    .digest("hex")
    .slice(0, 12);
  const tag = `localhost/a2a-hub-test-base:${key}`;
  if ((await podman.cmd(["image", "exists", tag])).code === 0) return tag;
  const ctx = mkdtempSync(join(tmpdir(), "a2a-hub-base-"));
  try {
    cpSync(node, join(ctx, "node"));
    cpSync(npm, join(ctx, "npm"), { recursive: true });
    writeFileSync(join(ctx, "ca-certificates.crt"), trust);
    writeFileSync(
      join(ctx, "Containerfile"),
      [
        `FROM ${debian}`,
        trust.length ? "COPY ca-certificates.crt /etc/ssl/certs/ca-certificates.crt" : "",
        trust.length ? "ENV NODE_EXTRA_CA_CERTS=/etc/ssl/certs/ca-certificates.crt" : "",
        "COPY node /usr/local/bin/node",
        "COPY npm /usr/local/lib/node_modules/npm",
        "RUN ln -s ../lib/node_modules/npm/bin/npm-cli.js /usr/local/bin/npm && ln -s ../lib/node_modules/npm/bin/npx-cli.js /usr/local/bin/npx && node --version && npm --version",
        "",
      ].join("\n"),
    );
    ok(await podman.build(["-t", tag, ctx], 600_000), "podman build (the test base)");
  } finally {
    rmSync(ctx, { recursive: true, force: true });
  }
  return tag;
}

/**
 * Flags for `podman build` here: chroot isolation runs the RUN steps without
 * an OCI runtime (as root; fine rootless too), and the docker format keeps
 * the HEALTHCHECK, which OCI image configs have no field for.
 */
export const BUILD_FLAGS = ["--isolation=chroot", "--format", "docker"];
