import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { existsSync, mkdtempSync, readFileSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { create, fromJson } from "@bufbuild/protobuf";
import { ValueSchema } from "@bufbuild/protobuf/wkt";
import { Role, SendMessageRequestSchema, TaskState, type Part, type StreamResponse, type Task } from "../../gen/a2a/v1/a2a_pb.js";
import { CommandAgent, commandCard, InputRequestFilter, parseCommandAgentOptions, type CommandAgentOptions } from "../../src/agents/index.js";
import type { HostedAgent } from "../../src/core/index.js";
import { startTestHub, type TestHub } from "../helpers/test-hub.js";

/** The command agent, hosted in a hub and driven over gRPC and Connect. */

const PROGRAM = resolve("test/fixtures/command-program.mjs");
const scratch = mkdtempSync(join(tmpdir(), "a2a-hub-cmd-test-"));
const termFile = join(scratch, "term.log");

const agent = (id: string, mode: string[], extra: Partial<CommandAgentOptions> = {}, env?: NodeJS.ProcessEnv): HostedAgent => ({
  id,
  executor: new CommandAgent({ program: process.execPath, args: [PROGRAM, ...mode], ...extra }, env),
  card: commandCard({ name: id }),
});

let t: TestHub;
beforeAll(async () => {
  t = await startTestHub({
    agents: [
      agent("echo", ["echo"]),
      agent("lines", ["lines", "3"]),
      agent("env", ["env"], { env: ["ALLOWED_VAR"] }, { PATH: process.env.PATH, ALLOWED_VAR: "visible", SECRET_VAR: "hidden" }),
      agent("fail", ["fail"]),
      agent("slow", ["lines", "50"], { timeoutMs: 400 }),
      agent("stubborn", ["stubborn", termFile], { killGraceMs: 300 }),
      agent("spam", ["spam"], { maxOutputBytes: 10_000 }),
      agent("ask", ["ask"], { inputRequired: true }),
      agent("ask-off", ["ask"]),
      agent("missing", [], { program: join(scratch, "no-such-program") }),
      agent("cwd", ["cwd"], { cwd: scratch }),
    ],
  });
});
afterAll(async () => {
  await t?.stop();
  rmSync(scratch, { recursive: true, force: true });
});

const request = (tenant: string, parts: Array<Part["content"]> | string, extra: { taskId?: string; contextId?: string } = {}, returnImmediately = false) =>
  create(SendMessageRequestSchema, {
    tenant,
    configuration: returnImmediately ? { returnImmediately } : undefined,
    message: {
      messageId: crypto.randomUUID(),
      role: Role.USER,
      ...extra,
      parts: (typeof parts === "string" ? [{ case: "text" as const, value: parts }] : parts).map((content) => ({ content })),
    },
  });

async function send(tenant: string, text: string, extra: { taskId?: string; contextId?: string } = {}): Promise<Task> {
  const res = await t.client("grpc").sendMessage(request(tenant, text, extra));
  if (res.payload.case !== "task") throw new Error(`expected a task, got ${res.payload.case}`);
  return res.payload.value;
}

const outputText = (task: Task): string =>
  task.artifacts
    .filter((a) => a.artifactId === "output")
    .flatMap((a) => a.parts.map((p) => (p.content.case === "text" ? p.content.value : "")))
    .join("");
const statusText = (task: Task): string => task.status?.message?.parts.map((p) => (p.content.case === "text" ? p.content.value : "")).join("") ?? "";

describe("command agent", () => {
  it("runs the program with the message text on stdin and completes with its stdout", async () => {
    const task = await send("echo", "hello command");
    expect(task.status?.state).toBe(TaskState.COMPLETED);
    expect(outputText(task)).toBe("hello command");
  });

  it("streams stdout as append chunks as it arrives, the last one lastChunk", async () => {
    const events: Array<{ at: number; e: StreamResponse }> = [];
    const started = Date.now();
    for await (const e of t.client("connect-h2").sendStreamingMessage(request("lines", "hi"))) events.push({ at: Date.now() - started, e });
    const chunks = events.filter((x) => x.e.payload.case === "artifactUpdate").map((x) => ({ at: x.at, u: x.e.payload.value as import("../../gen/a2a/v1/a2a_pb.js").TaskArtifactUpdateEvent }));
    expect(chunks.map((c) => c.u.artifact?.parts.map((p) => p.content.value).join("")).join("")).toBe("line 1: hi\nline 2: hi\nline 3: hi\n");
    expect(chunks.length).toBeGreaterThanOrEqual(3);
    expect(chunks[0]!.u.append).toBe(false);
    expect(chunks.slice(1).every((c) => c.u.append)).toBe(true);
    expect(chunks.map((c) => c.u.lastChunk)).toEqual([...chunks.slice(1).map(() => false), true]);
    // The first line arrived well before the program ended (3 lines, 150 ms apart).
    expect(chunks.at(-1)!.at - chunks[0]!.at).toBeGreaterThanOrEqual(200);
    const last = events.at(-1)!.e;
    expect(last.payload.case === "statusUpdate" && last.payload.value.status?.state).toBe(TaskState.COMPLETED);
  });

  it("passes only allowed variables and PATH, the task ids, and the whole message as JSON", async () => {
    const data = { city: "Oslo", days: 3 };
    const res = await t.client("grpc").sendMessage(request("env", [{ case: "text", value: "first" }, { case: "data", value: fromJson(ValueSchema, data) }, { case: "text", value: "second" }]));
    const task = res.payload.value as Task;
    expect(statusText(task)).toBe("");
    const out = JSON.parse(outputText(task)) as { env: Record<string, string>; stdin: string };
    expect(out.stdin).toBe("first\nsecond");
    expect(Object.keys(out.env).sort()).toEqual(["A2A_CONTEXT_ID", "A2A_MESSAGE_JSON", "A2A_TASK_ID", "ALLOWED_VAR", "PATH"]);
    expect(out.env.ALLOWED_VAR).toBe("visible");
    expect(out.env.A2A_TASK_ID).toBe(task.id);
    expect(out.env.A2A_CONTEXT_ID).toBe(task.contextId);
    const message = JSON.parse(out.env.A2A_MESSAGE_JSON!);
    expect(message.parts).toEqual([{ text: "first" }, { data }, { text: "second" }]);
    expect(message.taskId).toBe(task.id);
  });

  it("puts a message too large for the environment in a file named by A2A_MESSAGE_JSON_FILE, removed after the run", async () => {
    const big = "x".repeat(100_000);
    const task = await send("env", big);
    const out = JSON.parse(outputText(task)) as { env: Record<string, string>; stdin: string; file: number };
    expect(out.stdin).toBe("100000 chars");
    expect(out.env.A2A_MESSAGE_JSON).toBeUndefined();
    expect(out.file).toBe(100_000);
    expect(existsSync(out.env.A2A_MESSAGE_JSON_FILE!)).toBe(false);
  });

  it("runs the program in its working directory", async () => {
    const task = await send("cwd", "where");
    expect(realpathSync(outputText(task))).toBe(realpathSync(scratch));
  });

  it("never involves a shell: message text reaches stdin as it is and runs nothing", async () => {
    const marker = join(scratch, "injected");
    const text = `$(touch ${marker}); touch ${marker} && \`touch ${marker}\` | touch ${marker}`;
    const task = await send("echo", text);
    expect(outputText(task)).toBe(text);
    expect(existsSync(marker)).toBe(false);
  });

  it("a non-zero exit fails the task with the last stderr lines", async () => {
    const task = await send("fail", "go");
    expect(task.status?.state).toBe(TaskState.FAILED);
    const reason = statusText(task);
    expect(reason).toMatch(/^node exited with code 3:\n/);
    expect(reason).toContain("problem 30");
    expect(reason).toContain("problem 11");
    expect(reason).not.toContain("problem 10\n");
    expect(outputText(task)).toBe("partial output\n");
  });

  it("a run past its timeout is stopped and fails", async () => {
    const started = Date.now();
    const task = await send("slow", "x");
    expect(task.status?.state).toBe(TaskState.FAILED);
    expect(statusText(task)).toContain("did not finish within 400 ms");
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it("stdout beyond maxOutputBytes stops the program and fails the task", async () => {
    const task = await send("spam", "x");
    expect(task.status?.state).toBe(TaskState.FAILED);
    expect(statusText(task)).toContain("more than 10000 bytes");
    expect(outputText(task).length).toBe(10_000);
  });

  it("a program that cannot start fails the task saying why", async () => {
    const task = await send("missing", "x");
    expect(task.status?.state).toBe(TaskState.FAILED);
    expect(statusText(task)).toMatch(/could not start no-such-program: .*ENOENT/);
  });

  it("cancel sends SIGTERM, then SIGKILL after the grace period", async () => {
    const client = t.client("grpc");
    const res = await client.sendMessage(request("stubborn", "x", {}, true));
    const id = (res.payload.value as Task).id;
    // Wait for the program to say it runs.
    let pid = 0;
    for (let i = 0; i < 100 && !pid; i++) {
      const task = await client.getTask({ tenant: "stubborn", id });
      const m = /pid (\d+)/.exec(outputText(task));
      if (m) pid = Number(m[1]);
      else await new Promise((r) => setTimeout(r, 50));
    }
    expect(pid).toBeGreaterThan(0);
    const canceled = await client.cancelTask({ tenant: "stubborn", id });
    expect(canceled.status?.state).toBe(TaskState.CANCELED);
    let alive = true;
    for (let i = 0; i < 60 && alive; i++) {
      await new Promise((r) => setTimeout(r, 50));
      try {
        process.kill(pid, 0);
      } catch {
        alive = false;
      }
    }
    expect(alive).toBe(false);
    expect(readFileSync(termFile, "utf8")).toBe("SIGTERM\n");
  });

  it("an opted-in program parks the task with A2A-INPUT-REQUIRED and answers the follow-up in a fresh run", async () => {
    const parked = await send("ask", "a question");
    expect(parked.status?.state).toBe(TaskState.INPUT_REQUIRED);
    expect(statusText(parked)).toBe("What is your name?");
    expect(outputText(parked)).toBe('Thinking about "a question"...\n');
    const done = await send("ask", "Ada", { taskId: parked.id, contextId: parked.contextId });
    expect(done.status?.state).toBe(TaskState.COMPLETED);
    expect(outputText(done)).toBe('Thinking about "a question"...\nHello, Ada! (history: ROLE_USER:a question | ROLE_AGENT:What is your name? | ROLE_USER:Ada)\n');
  });

  it("without the opt-in, the marker line is ordinary output", async () => {
    const task = await send("ask-off", "q");
    expect(task.status?.state).toBe(TaskState.COMPLETED);
    expect(outputText(task)).toContain("A2A-INPUT-REQUIRED: What is your name?\n");
  });
});

describe("the input-required marker", () => {
  it("is recognised as a whole line, across chunk boundaries, and nowhere else", () => {
    const f = new InputRequestFilter();
    let out = "";
    for (const chunk of ["thinking\nA2A-INP", "UT-REQUIRED: Who", " are you?\r\nmore ", "A2A-INPUT-REQUIRED: not at a line start\n", "A2A-"]) out += f.push(chunk);
    out += f.flush();
    expect(out).toBe("thinking\nmore A2A-INPUT-REQUIRED: not at a line start\nA2A-");
    expect(f.question).toBe("Who are you?");
  });

  it("passes other text on at once, holding back only what could still be the marker", () => {
    const f = new InputRequestFilter();
    expect(f.push("hello")).toBe("hello");
    expect(f.push(" world\nA2A")).toBe(" world\n");
    expect(f.push("x and more")).toBe("A2Ax and more");
    expect(f.flush()).toBe("");
  });
});

describe("command agent options", () => {
  it("are checked key by key", () => {
    expect(parseCommandAgentOptions({ program: "/bin/cat" })).toMatchObject({ program: "/bin/cat", args: [], env: [], timeoutMs: 60_000, maxOutputBytes: 1_048_576, killGraceMs: 2_000, inputRequired: false });
    expect(() => parseCommandAgentOptions({})).toThrow("program: must be a non-empty string");
    expect(() => parseCommandAgentOptions({ program: "x", args: ["a", 2] }, "agents[1].options")).toThrow("agents[1].options.args[1]: must be a string");
    expect(() => parseCommandAgentOptions({ program: "x", env: ["OK", "NOT OK"] })).toThrow("env[1]: must be an environment variable name");
    expect(() => parseCommandAgentOptions({ program: "x", timeoutMs: 0 })).toThrow("timeoutMs: must be a whole number");
    expect(() => parseCommandAgentOptions({ program: "x", shell: true })).toThrow("shell: unknown key");
  });
});
