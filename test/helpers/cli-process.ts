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

/** Runs `src/main.ts <args>` from the repository, as `npm start -- <args>` does (without npm's own start-up). */
export function npmStart(args: readonly string[], options: { env?: Record<string, string> } = {}): Promise<Run> {
  return runProcess(process.execPath, ["--import", "tsx", "src/main.ts", ...args], { ...options, cwd: REPO_ROOT });
}
