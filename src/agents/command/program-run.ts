import { spawn } from "node:child_process";
import { StringDecoder } from "node:string_decoder";

/** One run of a program, as the command agent asks for it. */
export interface ProgramSpec {
  readonly program: string;
  /** Passed as a list: no shell ever sees them. */
  readonly args: readonly string[];
  readonly cwd?: string;
  /** The whole environment of the program (nothing else is inherited). */
  readonly env: Readonly<Record<string, string>>;
  /** Written to stdin, which is then closed. */
  readonly stdin: string;
  readonly timeoutMs: number;
  /** More stdout than this ends the run. */
  readonly maxOutputBytes: number;
  /** Time between SIGTERM and SIGKILL. */
  readonly killGraceMs: number;
  /** Aborting it stops the program (SIGTERM, then SIGKILL). */
  readonly signal: AbortSignal;
  /** Receives stdout as UTF-8 text, as it arrives. */
  onStdout(text: string): void;
}

/** How a run ended. */
export type ProgramOutcome =
  | { readonly kind: "exited"; readonly code: number }
  | { readonly kind: "killed"; readonly signal: string }
  | { readonly kind: "timeout" }
  | { readonly kind: "output-limit" }
  | { readonly kind: "aborted" }
  | { readonly kind: "spawn-failed"; readonly message: string };

/** A run's outcome and the end of what it wrote to stderr. */
export interface ProgramResult {
  readonly outcome: ProgramOutcome;
  readonly stderrTail: string;
}

/** How much of stderr is kept for the failure reason. */
const STDERR_KEEP_BYTES = 16 * 1024;
/** After the program exits, how long descendants may keep its pipes open. */
const DRAIN_AFTER_EXIT_MS = 1_000;

/**
 * Runs a program once, without a shell, in its own process group so that
 * a stop reaches whatever it started: SIGTERM to the group, SIGKILL after
 * the grace period. Stops it on timeout, on abort and when stdout exceeds
 * its limit; resolves once it is gone and its pipes are closed.
 */
export function runProgram(spec: ProgramSpec): Promise<ProgramResult> {
  return new Promise((resolve) => {
    let stopReason: "timeout" | "output-limit" | "aborted" | undefined;
    let stderr = Buffer.alloc(0);
    let outBytes = 0;
    let settled = false;
    const decoder = new StringDecoder("utf8");
    const finish = (outcome: ProgramOutcome): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timeout);
      spec.signal.removeEventListener("abort", onAbort);
      const tail = decoder.end();
      if (tail && outcome.kind !== "output-limit") spec.onStdout(tail);
      resolve({ outcome, stderrTail: stderr.toString("utf8") });
    };

    let child: ReturnType<typeof spawn>;
    try {
      child = spawn(spec.program, [...spec.args], {
        cwd: spec.cwd,
        env: { ...spec.env },
        stdio: ["pipe", "pipe", "pipe"],
        shell: false,
        detached: true,
        windowsHide: true,
      });
    } catch (e) {
      resolve({ outcome: { kind: "spawn-failed", message: e instanceof Error ? e.message : String(e) }, stderrTail: "" });
      return;
    }

    let escalation: NodeJS.Timeout | undefined;
    const signalGroup = (sig: NodeJS.Signals): void => {
      const pid = child.pid;
      if (pid === undefined) return;
      try {
        process.kill(-pid, sig);
      } catch {
        child.kill(sig);
      }
    };
    const stop = (reason: "timeout" | "output-limit" | "aborted"): void => {
      if (stopReason || settled) return;
      stopReason = reason;
      signalGroup("SIGTERM");
      escalation = setTimeout(() => signalGroup("SIGKILL"), spec.killGraceMs);
      escalation.unref();
    };
    const onAbort = (): void => stop("aborted");
    const timeout = setTimeout(() => stop("timeout"), spec.timeoutMs);
    if (spec.signal.aborted) stop("aborted");
    else spec.signal.addEventListener("abort", onAbort, { once: true });

    child.stdin!.on("error", () => {}); // EPIPE: the program did not read its input
    child.stdin!.end(spec.stdin);
    child.stdout!.on("data", (chunk: Buffer) => {
      if (stopReason === "output-limit") return;
      const room = spec.maxOutputBytes - outBytes;
      outBytes += chunk.length;
      if (chunk.length > room) {
        const text = decoder.write(chunk.subarray(0, Math.max(room, 0)));
        if (text) spec.onStdout(text);
        stop("output-limit");
        return;
      }
      const text = decoder.write(chunk);
      if (text) spec.onStdout(text);
    });
    child.stderr!.on("data", (chunk: Buffer) => {
      stderr = Buffer.concat([stderr, chunk]);
      if (stderr.length > STDERR_KEEP_BYTES) stderr = stderr.subarray(stderr.length - STDERR_KEEP_BYTES);
    });

    let exit: { code: number | null; signal: NodeJS.Signals | null } | undefined;
    child.once("error", (e) => {
      // spawn failures (ENOENT, EACCES) arrive here, without an exit.
      if (exit === undefined) finish({ kind: "spawn-failed", message: e.message });
    });
    child.once("exit", (code, signal) => {
      exit = { code, signal };
      // A descendant that keeps our pipes open must not keep the task open.
      setTimeout(() => {
        child.stdout?.destroy();
        child.stderr?.destroy();
      }, DRAIN_AFTER_EXIT_MS).unref();
    });
    child.once("close", (code, signal) => {
      const e = exit ?? { code, signal };
      if (escalation && !groupAlive(child.pid)) clearTimeout(escalation);
      if (stopReason) finish({ kind: stopReason });
      else if (e.signal) finish({ kind: "killed", signal: e.signal });
      else finish({ kind: "exited", code: e.code ?? 0 });
    });
  });
}

function groupAlive(pid: number | undefined): boolean {
  if (pid === undefined) return false;
  try {
    process.kill(-pid, 0);
    return true;
  } catch {
    return false;
  }
}
