import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { context, propagation } from "@opentelemetry/api";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { create, toJson } from "@bufbuild/protobuf";
import { AgentCardSchema, MessageSchema, TaskState, type AgentCard, type Message } from "../../../gen/a2a/v1/a2a_pb.js";
import type { AgentExecutor, EventSink, ExecutionContext } from "../../execution/index.js";
import { OptionsReader } from "../agent-options.js";
import { InputRequestFilter } from "./input-request-filter.js";
import { runProgram, type ProgramResult } from "./program-run.js";
import { OUTPUT_ARTIFACT_ID, StdoutArtifact } from "./stdout-artifact.js";

/** How a command agent runs its program. */
export interface CommandAgentOptions {
  /** The program: a path, or a name looked up on PATH. Never run through a shell. */
  readonly program: string;
  /** Its arguments, passed as a list. */
  readonly args?: readonly string[];
  /** Working directory; default the hub's. */
  readonly cwd?: string;
  /** Names of the hub's environment variables the program may see; PATH always is. */
  readonly env?: readonly string[];
  /** A run longer than this fails (ms); default 60 s. */
  readonly timeoutMs?: number;
  /** A run that writes more stdout than this fails; default 1 MiB. */
  readonly maxOutputBytes?: number;
  /** Time between SIGTERM and SIGKILL when a run is stopped (ms); default 2 s. */
  readonly killGraceMs?: number;
  /** Opts in to the input-required protocol: `A2A-INPUT-REQUIRED: <question>` on stdout parks the task. */
  readonly inputRequired?: boolean;
}

/** CommandAgentOptions with every default filled in. */
export interface ResolvedCommandOptions extends CommandAgentOptions {
  readonly args: readonly string[];
  readonly env: readonly string[];
  readonly timeoutMs: number;
  readonly maxOutputBytes: number;
  readonly killGraceMs: number;
  readonly inputRequired: boolean;
}

/** Defaults of CommandAgentOptions. */
export const COMMAND_DEFAULTS = { timeoutMs: 60_000, maxOutputBytes: 1024 * 1024, killGraceMs: 2_000 } as const;

/** Environment variables the agent sets for the program. */
export const COMMAND_ENV = {
  taskId: "A2A_TASK_ID",
  contextId: "A2A_CONTEXT_ID",
  /** The whole message as ProtoJSON, for programs that want its parts. */
  message: "A2A_MESSAGE_JSON",
  /** On a follow-up run: the task's history (ProtoJSON array of messages), the new message last. */
  history: "A2A_HISTORY_JSON",
} as const;

/** A JSON value larger than this goes to a file named by `<NAME>_FILE` instead (exec limits one variable to 128 KiB). */
const MAX_ENV_JSON = 64 * 1024;
/** How many of the last stderr lines a failure reports. */
const STDERR_LINES = 20;
const STDERR_CHARS = 4_000;

const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * Runs a program once per message: the message text on stdin,
 * the message as JSON in A2A_MESSAGE_JSON, stdout streamed as append chunks
 * of the `output` artifact, exit 0 → COMPLETED, anything else → FAILED with
 * the end of stderr. CancelTask stops the program (SIGTERM, then SIGKILL).
 * With `inputRequired`, a stdout line `A2A-INPUT-REQUIRED: <question>`
 * parks the task in INPUT_REQUIRED when the program exits 0, and the
 * follow-up runs the program afresh with the history in A2A_HISTORY_JSON.
 */
export class CommandAgent implements AgentExecutor {
  private readonly options: ResolvedCommandOptions;

  constructor(
    options: CommandAgentOptions,
    /** Where allowed variables are read from; default the hub's environment. */
    private readonly hostEnv: NodeJS.ProcessEnv = process.env,
  ) {
    this.options = parseCommandAgentOptions(options);
  }

  async execute(ctx: ExecutionContext, events: EventSink): Promise<void> {
    events.status(TaskState.WORKING);
    const filter = this.options.inputRequired ? new InputRequestFilter() : undefined;
    const output = new StdoutArtifact(events, ctx.task?.artifacts.some((a) => a.artifactId === OUTPUT_ARTIFACT_ID) ?? false);
    let spill: string | undefined;
    try {
      const env = this.environment(ctx, () => (spill ??= mkdtempSync(join(tmpdir(), "a2a-hub-cmd-"))));
      const result = await runProgram({
        program: this.options.program,
        args: this.options.args,
        cwd: this.options.cwd,
        env,
        stdin: stdinText(ctx.message),
        timeoutMs: this.options.timeoutMs,
        maxOutputBytes: this.options.maxOutputBytes,
        killGraceMs: this.options.killGraceMs,
        signal: ctx.signal,
        onStdout: (text) => output.write(filter ? filter.push(text) : text),
      });
      if (filter) output.write(filter.flush());
      const outcome = result.outcome;
      if (outcome.kind === "aborted") {
        // Canceled (the core ends the task CANCELED) or the hub is stopping.
        output.flush();
        return;
      }
      if (outcome.kind === "exited" && outcome.code === 0) {
        if (filter?.question !== undefined) {
          output.flush();
          events.status(TaskState.INPUT_REQUIRED, filter.question || "The program asks for more input.");
          return;
        }
        output.end();
        events.status(TaskState.COMPLETED);
        return;
      }
      output.end();
      events.status(TaskState.FAILED, this.failureReason(result));
    } finally {
      if (spill) rmSync(spill, { recursive: true, force: true });
    }
  }

  /** The program's whole environment: PATH, the allowed variables, and the A2A ones. */
  private environment(ctx: ExecutionContext, spillDir: () => string): Record<string, string> {
    const env: Record<string, string> = {};
    for (const name of ["PATH", ...this.options.env]) {
      const value = this.hostEnv[name];
      if (value !== undefined) env[name] = value;
    }
    env[COMMAND_ENV.taskId] = ctx.taskId;
    // The W3C trace context of the agent run, as OTel SDKs read it from the environment.
    const trace: Record<string, string> = {};
    propagation.inject(ctx.traceContext ?? context.active(), trace);
    if (trace.traceparent) env.TRACEPARENT = trace.traceparent;
    if (trace.tracestate) env.TRACESTATE = trace.tracestate;
    env[COMMAND_ENV.contextId] = ctx.contextId;
    const putJson = (name: string, value: unknown): void => {
      const json = JSON.stringify(value);
      if (json.length <= MAX_ENV_JSON) {
        env[name] = json;
        return;
      }
      const file = join(spillDir(), `${name.toLowerCase()}.json`);
      writeFileSync(file, json, { mode: 0o600 });
      env[`${name}_FILE`] = file;
    };
    putJson(COMMAND_ENV.message, toJson(MessageSchema, ctx.message));
    if (ctx.task) putJson(COMMAND_ENV.history, ctx.task.history.map((m) => toJson(MessageSchema, m)));
    return env;
  }

  private failureReason(result: ProgramResult): string {
    const name = basename(this.options.program);
    const o = result.outcome;
    const head =
      o.kind === "exited"
        ? `${name} exited with code ${o.code}`
        : o.kind === "killed"
          ? `${name} was killed by ${o.signal}`
          : o.kind === "timeout"
            ? `${name} did not finish within ${this.options.timeoutMs} ms and was stopped`
            : o.kind === "output-limit"
              ? `${name} wrote more than ${this.options.maxOutputBytes} bytes to stdout and was stopped`
              : o.kind === "spawn-failed"
                ? `could not start ${name}: ${o.message}`
                : `${name} was stopped`;
    const tail = lastLines(result.stderrTail);
    return tail ? `${head}:\n${tail}` : head;
  }
}

/** The text a program reads on stdin: the message's text parts, one per line. */
function stdinText(message: Message): string {
  return message.parts.flatMap((p) => (p.content.case === "text" ? [p.content.value] : [])).join("\n");
}

function lastLines(text: string): string {
  const lines = text.replace(/\s+$/, "").split(/\r?\n/);
  const tail = lines.slice(-STDERR_LINES).join("\n");
  return tail.length > STDERR_CHARS ? `…${tail.slice(-STDERR_CHARS)}` : tail;
}

/**
 * Checks a command agent's options (from a config file's `options`),
 * naming the key of any problem in an AgentOptionsError.
 */
export function parseCommandAgentOptions(raw: unknown, prefix = ""): ResolvedCommandOptions {
  const r = new OptionsReader(raw, prefix, ["program", "args", "cwd", "env", "timeoutMs", "maxOutputBytes", "killGraceMs", "inputRequired"]);
  return {
    program: r.string("program"),
    args: r.strings("args") ?? [],
    cwd: r.optString("cwd"),
    env: r.strings("env", ENV_NAME, "must be an environment variable name") ?? [],
    timeoutMs: r.int("timeoutMs", 1, 24 * 3_600_000) ?? COMMAND_DEFAULTS.timeoutMs,
    maxOutputBytes: r.int("maxOutputBytes", 1, 1024 * 1024 * 1024) ?? COMMAND_DEFAULTS.maxOutputBytes,
    killGraceMs: r.int("killGraceMs", 0, 600_000) ?? COMMAND_DEFAULTS.killGraceMs,
    inputRequired: r.bool("inputRequired") ?? false,
  };
}

/** Card facts of a command agent; interfaces are added by the cards layer, and a config may override the rest. */
export function commandCard(options: { name?: string; description?: string; version?: string } = {}): AgentCard {
  return create(AgentCardSchema, {
    name: options.name ?? "a2a-hub command",
    description: options.description ?? "Runs a program for each message: the text on stdin, stdout streamed back as an artifact.",
    version: options.version ?? "0.1.0",
    capabilities: { streaming: true, pushNotifications: true, extendedAgentCard: false },
    defaultInputModes: ["text/plain", "application/json"],
    defaultOutputModes: ["text/plain"],
    skills: [{ id: "command", name: "Command", description: "Runs the configured program on the message.", tags: ["command"] }],
  });
}
