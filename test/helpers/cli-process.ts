import { spawn } from "node:child_process";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { REPO_ROOT } from "./server-process.js";

/** The package's bin, as `a2a-hub` runs it. */
export const BIN = join(REPO_ROOT, "bin/a2a-hub.mjs");

/** A finished run of a command. */
export interface Run {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
  /** When each stdout chunk arrived, ms after the start. */
  readonly chunks: Array<{ at: number; text: string }>;
  readonly ms: number;
}

/** Runs a program with arguments (and stdin), bounded in time: a run that does not end (say, a silent start) fails. */
export function runProcess(
  command: string,
  args: readonly string[],
  options: { stdin?: string; env?: Record<string, string>; cwd?: string; timeoutMs?: number } = {},
): Promise<Run> {
  return new Promise((done, fail) => {
    const started = Date.now();
    const child = spawn(command, [...args], { cwd: options.cwd ?? tmpdir(), env: { ...process.env, A2A_TOKEN: "", ...options.env }, stdio: ["pipe", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    const chunks: Run["chunks"] = [];
    child.stdout.setEncoding("utf8").on("data", (d: string) => {
      stdout += d;
      chunks.push({ at: Date.now() - started, text: d });
    });
    child.stderr.setEncoding("utf8").on("data", (d: string) => (stderr += d));
    child.stdin.end(options.stdin ?? "");
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      fail(new Error(`${command} ${args.join(" ")} did not finish; stdout:\n${stdout}\nstderr:\n${stderr}`));
    }, options.timeoutMs ?? 20_000);
    child.once("exit", (code) => {
      clearTimeout(timer);
      // Let the pipes drain.
      setImmediate(() => done({ code, stdout, stderr, chunks, ms: Date.now() - started }));
    });
  });
}

/** Runs `a2a-hub <args>` from another directory. */
export function cli(args: readonly string[], options: { stdin?: string; env?: Record<string, string> } = {}): Promise<Run> {
  return runProcess(process.execPath, [BIN, ...args], options);
}

/** Runs `bin/start.mjs <args>` from the repository, as `npm start -- <args>` does (without npm's own start-up). */
export function npmStart(args: readonly string[], options: { env?: Record<string, string> } = {}): Promise<Run> {
  return runProcess(process.execPath, ["bin/start.mjs", ...args], { ...options, cwd: REPO_ROOT });
}

/** A serving process started by startServing. */
export interface Serving {
  readonly url: string;
  stderr(): string;
  /** SIGTERM, and the exit code once it is gone. */
  stop(): Promise<number | null>;
  /** Sends a signal to the process (SIGHUP: reload). */
  signal(sig: NodeJS.Signals): void;
}

/**
 * Starts a command that serves (`node <args>`) and resolves with the URL it
 * prints; rejects, after killing it, when it exits or stays silent.
 */
export async function startServing(args: readonly string[], options: { env?: Record<string, string>; cwd?: string } = {}): Promise<Serving> {
  const child = spawn(process.execPath, [...args], { cwd: options.cwd ?? REPO_ROOT, env: { ...process.env, ...options.env }, stdio: ["ignore", "pipe", "pipe"] });
  let err = "";
  child.stderr.setEncoding("utf8").on("data", (d: string) => (err += d));
  const exited = new Promise<number | null>((r) => child.once("exit", (code) => r(code)));
  try {
    const url = await new Promise<string>((ok, fail) => {
      let out = "";
      const timer = setTimeout(() => fail(new Error(`printed no URL; stderr:\n${err}`)), 20_000);
      child.stdout.setEncoding("utf8").on("data", (d: string) => {
        out += d;
        const m = /a2a-hub listening on (https?:\/\/127\.0\.0\.1:\d+\/)/.exec(out);
        if (m) {
          clearTimeout(timer);
          ok(m[1]!);
        }
      });
      void exited.then((code) => {
        clearTimeout(timer);
        fail(new Error(`exited (${code}) before listening; stderr:\n${err}`));
      });
    });
    return {
      url,
      stderr: () => err,
      signal: (sig) => void child.kill(sig),
      stop: () => {
        child.kill("SIGTERM");
        return exited;
      },
    };
  } catch (e) {
    child.kill("SIGKILL");
    await exited;
    throw e;
  }
}
