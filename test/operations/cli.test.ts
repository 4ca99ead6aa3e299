import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { CommandAgent, commandCard, EchoAgent, echoCard } from "../../src/agents/index.js";
import { startTestHub, type TestHub } from "../helpers/test-hub.js";
import { BIN, cli, runProcess } from "../helpers/cli-process.js";

/** The a2a-hub command, run as a child process: `serve`, and the client commands against a running server. */

describe("a2a-hub serve", { timeout: 60_000 }, () => {
  let server: ChildProcess | undefined;
  const data = mkdtempSync(join(tmpdir(), "a2a-hub-cli-serve-"));
  afterAll(() => {
    server?.kill("SIGKILL");
    rmSync(data, { recursive: true, force: true });
  });

  it("serves the hub, answers the client commands, and stops on SIGTERM", async () => {
    server = spawn(process.execPath, [BIN, "serve", "--port", "0", "--host", "127.0.0.1", "--data", data], { cwd: tmpdir(), stdio: ["ignore", "pipe", "pipe"] });
    const url = await new Promise<string>((ok, fail) => {
      let out = "";
      const timer = setTimeout(() => fail(new Error("serve printed no URL")), 20_000);
      server!.stdout!.setEncoding("utf8").on("data", (d: string) => {
        out += d;
        const m = /a2a-hub listening on (http:\/\/127\.0\.0\.1:\d+\/)/.exec(out);
        if (m) {
          clearTimeout(timer);
          ok(m[1]!);
        }
      });
    });
    const sent = await cli(["send", url, "hello", "serve"]);
    expect(sent).toMatchObject({ code: 0, stdout: "hello serve\n" });
    const exited = new Promise<number | null>((r) => server!.once("exit", (code) => r(code)));
    server.kill("SIGTERM");
    expect(await exited).toBe(0);
    server = undefined;
  });

  it("refuses a bad option with exit code 2", async () => {
    const run = await cli(["serve", "--port", "nope"]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("--port");
  });
});

describe("a2a-hub client commands", { timeout: 120_000 }, () => {
  let t: TestHub;
  let lines: TestHub;
  let url: string;
  beforeAll(async () => {
    t = await startTestHub({ agents: [{ id: "echo", executor: new EchoAgent(), card: echoCard() }] });
    // A command agent that writes a line every 150 ms, for watching a stream arrive.
    lines = await startTestHub({
      agents: [{ id: "lines", executor: new CommandAgent({ program: process.execPath, args: [resolve("test/fixtures/command-program.mjs"), "lines", "3"] }), card: commandCard() }],
    });
    url = t.url;
  });
  afterAll(async () => {
    await Promise.all([t?.stop(), lines?.stop()]);
  });

  it("card shows the agent and the interface it picks", async () => {
    const run = await cli(["card", url]);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain("a2a-hub echo");
    expect(run.stdout).toMatch(/GRPC 1\.0 {2}127\.0\.0\.1:\d+\n/);
    expect(run.stderr).toContain("using jsonrpc 1.0");
    const json = JSON.parse((await cli(["card", "--json", `${url}.well-known/agent-card.json`])).stdout);
    expect(json.name).toBe("a2a-hub echo");
  });

  it("send prints the artifacts and exits with the task's state, over each binding", async () => {
    for (const binding of ["jsonrpc", "rest", "grpc"]) {
      const run = await cli(["send", "--binding", binding, url, "hi", binding]);
      expect(run.code, run.stderr).toBe(0);
      expect(run.stdout).toBe(`hi ${binding}\n`);
      expect(run.stderr).toMatch(/^task [0-9a-f-]+ \[completed\]\n$/);
    }
    expect((await cli(["send", url, "fail"])).code).toBe(3);
    expect((await cli(["send", url, "reject"])).code).toBe(5);
    const asked = await cli(["send", url, "input-required"]);
    expect(asked.code).toBe(6);
    expect(asked.stderr).toContain("[input-required] Send any text to complete this task.");
  });

  it("send reads the text from stdin, and continues a task with --task", async () => {
    const parked = JSON.parse((await cli(["send", "--json", url, "input-required"])).stdout).task;
    const run = await cli(["send", url, "--task", parked.id], { stdin: "the answer\n" });
    expect(run.code).toBe(0);
    expect(run.stdout).toBe("the answer\n");
  });

  it("stream prints chunks as they arrive and status changes on stderr", async () => {
    const run = await cli(["stream", "--binding", "grpc", lines.url, "go"]);
    expect(run.code).toBe(0);
    expect(run.stdout).toBe("line 1: go\nline 2: go\nline 3: go\n");
    // The program writes a line every 150 ms: the first reached stdout well before the last.
    expect(run.chunks.length).toBeGreaterThanOrEqual(2);
    expect(run.chunks.at(-1)!.at - run.chunks[0]!.at).toBeGreaterThanOrEqual(150);
    expect(run.stderr).toMatch(/^task [0-9a-f-]+ \(context [0-9a-f-]+\) \[submitted\]\n\[working\]\n\[completed\]\n$/);
  });

  it("stream ends a chunk's line before a status line, so on one terminal the state never runs into the text", async () => {
    // stdout and stderr on one pipe, as on a terminal: the echo's artifact "hello" ends without a newline.
    const run = await runProcess("bash", ["-c", `"${process.execPath}" "${BIN}" stream --binding jsonrpc ${url} hello 2>&1`]);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/\nhello\n\[completed\]\n$/);
  });

  it("stream --json writes one StreamResponse per line", async () => {
    const run = await cli(["stream", "--json", "--binding", "rest", url, "stream", "2"]);
    expect(run.code).toBe(0);
    const events = run.stdout.trim().split("\n").map((l) => JSON.parse(l));
    expect(Object.keys(events[0])).toEqual(["task"]);
    expect(events.filter((e) => e.artifactUpdate)).toHaveLength(2);
    expect(events.at(-1).statusUpdate.status.state).toBe("TASK_STATE_COMPLETED");
  });

  it("get, list, cancel and subscribe", async () => {
    // Each CLI run starts a process (seconds on a loaded machine): the slow tasks outlast the runs that watch them.
    const sent = await cli(["send", "--json", "--no-wait", url, "slow", "60000"]);
    expect(sent.code, sent.stderr).toBe(8);
    const slow = JSON.parse(sent.stdout).task;
    expect(slow.status.state).toBe("TASK_STATE_WORKING");
    const got = await cli(["get", url, slow.id]);
    expect(got.code).toBe(8);
    expect(got.stdout).toContain(`task ${slow.id}\n`);
    const listed = JSON.parse((await cli(["list", "--json", "--binding", "grpc", url, "--status", "working"])).stdout);
    expect(listed.tasks.map((x: { id: string }) => x.id)).toContain(slow.id);
    const canceled = await cli(["cancel", url, slow.id]);
    expect(canceled, canceled.stderr).toMatchObject({ code: 0, stdout: `task ${slow.id} [canceled]\n` });
    expect((await cli(["get", url, slow.id])).code).toBe(4);
    const later = JSON.parse((await cli(["send", "--json", "--no-wait", url, "slow", "12000"])).stdout).task;
    const sub = await cli(["subscribe", "--binding", "jsonrpc", url, later.id]);
    expect(sub.code).toBe(0);
    expect(sub.stderr).toContain("[completed]");
    expect(sub.stdout).toBe("slow 12000\n");
  });

  it("a failed request exits 1 and says why (as JSON with --json); usage errors exit 2", async () => {
    const missing = await cli(["get", url, "no-such-task"]);
    expect(missing).toMatchObject({ code: 1, stdout: "" });
    expect(missing.stderr).toBe('a2a-hub: TaskNotFound: task "no-such-task" not found\n');
    const json = await cli(["get", "--json", "--binding", "grpc", url, "no-such-task"]);
    expect(JSON.parse(json.stderr)).toEqual({ error: { name: "TaskNotFound", reason: "TASK_NOT_FOUND", message: 'task "no-such-task" not found' } });
    const down = await cli(["card", "http://127.0.0.1:9/", "--timeout", "2000"]);
    expect(down.code).toBe(1);
    expect(down.stderr).toMatch(/cannot reach/);
    expect((await cli(["send", url])).code).toBe(2);
    expect((await cli(["get", url, "--bogus"])).code).toBe(2);
    expect((await cli(["frobnicate"])).code).toBe(2);
  });

  it("sends the token from --token or A2A_TOKEN", async () => {
    const seen: string[] = [];
    const hub = await startTestHub({
      routes: [
        (req) => {
          if (req.headers.authorization) seen.push(String(req.headers.authorization));
          return false;
        },
      ],
    });
    try {
      expect((await cli(["send", hub.url, "x", "--token", "flag-token"])).code).toBe(0);
      expect((await cli(["send", hub.url, "x"], { env: { A2A_TOKEN: "env-token" } })).code).toBe(0);
      expect(seen).toEqual(["Bearer flag-token", "Bearer flag-token", "Bearer env-token", "Bearer env-token"]);
    } finally {
      await hub.stop();
    }
  });
});
