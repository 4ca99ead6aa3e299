import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { resolve } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { ElicitRequestSchema, type CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { CommandAgent, commandCard, EchoAgent, echoCard, remoteHostedAgent } from "../../src/agents/index.js";
import { hashToken } from "../../src/auth/index.js";
import { BIN } from "../helpers/cli-process.js";
import { callAndCancel, structured, texts } from "../helpers/mcp-client.js";
import { startTestHub, type TestHub } from "../helpers/test-hub.js";
import { until } from "../helpers/until.js";

/** `a2a-hub mcp --url …`: the stdio bridge, launched as an MCP host launches it, driven by the official SDK client. */

const PROGRAM = resolve("test/fixtures/command-program.mjs");
const TOKENS = { alice: "alice-token-0123456789", bob: "bob-token-0123456789" };

let other: TestHub;
let t: TestHub;
const clients: Client[] = [];

beforeAll(async () => {
  other = await startTestHub();
  t = await startTestHub({
    agents: [
      { id: "echo", executor: new EchoAgent(), card: echoCard() },
      { id: "shell", executor: new CommandAgent({ program: process.execPath, args: [PROGRAM, "echo"] }), card: commandCard({ name: "shell" }) },
      remoteHostedAgent("remote", { url: other.url, binding: "grpc" }),
      { id: "private", executor: new EchoAgent(), card: echoCard() },
    ],
    access: {
      tenants: Object.entries(TOKENS).map(([id, token]) => ({ tenant: id, tokenHashes: [hashToken(token)] })),
      agentTenants: new Map([["private", ["bob"]]]),
    },
  });
});
afterAll(async () => {
  await Promise.all(clients.map((c) => c.close()));
  await Promise.all([t?.stop(), other?.stop()]);
});

/** Launches the bridge as a host does: a child process speaking MCP on stdin/stdout. */
async function bridge(url: string, token: string, extra: string[] = [], answer?: string): Promise<Client> {
  const client = new Client({ name: "a2a-hub-stdio-test", version: "1.0.0" }, { capabilities: answer === undefined ? {} : { elicitation: { form: {} } } });
  if (answer !== undefined) client.setRequestHandler(ElicitRequestSchema, () => ({ action: "accept", content: { answer } }));
  await client.connect(new StdioClientTransport({ command: process.execPath, args: [BIN, "mcp", "--url", url, ...extra], env: { ...process.env, A2A_TOKEN: token } as Record<string, string>, stderr: "pipe" }));
  clients.push(client);
  return client;
}

const call = (c: Client, name: string, args: Record<string, unknown>, options?: Parameters<Client["callTool"]>[2]) =>
  c.callTool({ name, arguments: args }, undefined, options) as Promise<CallToolResult>;

describe("MCP over stdio (a2a-hub mcp)", () => {
  let alice: Client;
  beforeAll(async () => {
    alice = await bridge(t.url, TOKENS.alice);
  });

  it("lists the hub's agents the token may use as tools, described from their cards", async () => {
    const { tools } = await alice.listTools();
    expect(tools.map((x) => x.name)).toEqual(["echo", "shell", "remote"]);
    expect(tools[0]!.description).toContain(echoCard().description);
    expect(tools[0]!.inputSchema.properties).toHaveProperty("taskId");
  });

  it("calls the echo agent with progress, and the result equals the task the hub stores", async () => {
    const progress: string[] = [];
    const r = await call(alice, "echo", { text: "stream 3" }, { onprogress: (p) => void progress.push(p.message ?? "") });
    const s = structured(r);
    expect(s.state).toBe("TASK_STATE_COMPLETED");
    expect(progress).toEqual(expect.arrayContaining(["chunk 1\n", "chunk 2\n", "chunk 3\n"]));
    const task = await (await bridgeTask(s.taskId!));
    expect(task).toMatchObject({ id: s.taskId, status: { state: "TASK_STATE_COMPLETED" } });
    expect(texts(r).slice(0, 3).join("")).toBe(task.artifacts[0].parts.map((p: { text: string }) => p.text).join(""));
  });

  async function bridgeTask(id: string) {
    return JSON.parse(((await alice.readResource({ uri: `a2a://tasks/${id}` })).contents[0] as { text: string }).text);
  }

  it("cancels the remote task when the client cancels the call", async () => {
    const taskId = await callAndCancel(alice, "echo", { text: "slow 60000" });
    await until("the task is canceled", async () => (await bridgeTask(taskId)).status.state === "TASK_STATE_CANCELED");
  });

  it("returns an input-required task's question with its taskId and continues it", async () => {
    const asked = structured(await call(alice, "echo", { text: "input-required" }));
    expect(asked).toMatchObject({ state: "TASK_STATE_INPUT_REQUIRED", question: "Send any text to complete this task." });
    const done = await call(alice, "echo", { text: "answered", taskId: asked.taskId });
    expect(structured(done).state).toBe("TASK_STATE_COMPLETED");
    expect(texts(done)[0]).toBe("answered");
  });

  it("calls a command agent and a remote agent of the hub", async () => {
    expect(texts(await call(alice, "shell", { text: "via stdio" }))[0]).toBe("via stdio");
    expect(texts(await call(alice, "remote", { text: "two hops" }))[0]).toBe("two hops");
  });

  it("answers the hub's A2A errors as tool errors with their reason", async () => {
    const r = await call(alice, "echo", { text: "x", taskId: "no-such-task" });
    expect(r.isError).toBe(true);
    expect(structured(r).error?.reason).toBe("TASK_NOT_FOUND");
  });

  it("gives each token its tenant's agents and tasks only", async () => {
    const bob = await bridge(t.url, TOKENS.bob);
    expect((await bob.listTools()).tools.map((x) => x.name)).toEqual(["echo", "shell", "remote", "private"]);
    const mine = structured(await call(alice, "echo", { text: "alice's" })).taskId!;
    await expect(bob.readResource({ uri: `a2a://tasks/${mine}` })).rejects.toThrow(/Resource not found/);
  });

  it("bridges a single agent named by its own URL, per-skill tools when asked, and asks an eliciting host the task's question", async () => {
    const one = await bridge(`${t.url}v1/a2a/agents/echo`, TOKENS.alice, ["--tools", "skill"], "elicited");
    const { tools } = await one.listTools();
    expect(tools.map((x) => x.name)).toEqual(["a2a-hub-echo__echo"]);
    expect(tools[0]!.description).toContain("Completes with one artifact holding the message");
    expect(texts(await call(one, "a2a-hub-echo__echo", { text: "one agent" }))[0]).toBe("one agent");
    const answered = await call(one, "a2a-hub-echo__echo", { text: "input-required" });
    expect(structured(answered).state).toBe("TASK_STATE_COMPLETED");
    expect(texts(answered)[0]).toBe("elicited");
  });
});


