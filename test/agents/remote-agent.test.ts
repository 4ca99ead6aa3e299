import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { create, toJsonString } from "@bufbuild/protobuf";
import { Role, SendMessageRequestSchema, StreamResponseSchema, TaskState, type StreamResponse, type Task } from "../../gen/a2a/v1/a2a_pb.js";
import { AgentOptionsError, loadRemoteRegistry, parseRemoteAgentOptions, remoteHostedAgent } from "../../src/agents/index.js";
import { startSdkAgent, type SdkAgent } from "../fixtures/sdk-agent.js";
import { startTestHub, type TestHub } from "../helpers/test-hub.js";

/** The remote agent: delegation to other A2A agents, and the protocol bridge it makes. */

const REMOTE_TOKEN = "remote-secret";
let sdk: SdkAgent;
let sdk03: SdkAgent;
let sdkNoStream: SdkAgent;
let other: TestHub;
let t: TestHub;
const scratch = mkdtempSync(join(tmpdir(), "a2a-hub-remote-test-"));

beforeAll(async () => {
  sdk = await startSdkAgent({ token: REMOTE_TOKEN, interfaces: [{ binding: "JSONRPC", version: "1.0" }] });
  sdk03 = await startSdkAgent({ interfaces: [{ binding: "JSONRPC", version: "0.3" }] });
  sdkNoStream = await startSdkAgent({ streaming: false });
  other = await startTestHub();
  t = await startTestHub({
    agents: [
      remoteHostedAgent("sdk", { url: sdk.url, token: REMOTE_TOKEN, binding: "jsonrpc" }),
      remoteHostedAgent("old", { url: sdk03.url }),
      remoteHostedAgent("poll", { url: sdkNoStream.cardUrl, binding: "rest" }),
      remoteHostedAgent("hub", { url: other.url, binding: "grpc" }),
      remoteHostedAgent("down", { url: "http://127.0.0.1:9/", timeoutMs: 2_000 }),
    ],
  });
});
afterAll(async () => {
  await Promise.all([t?.stop(), other?.stop(), sdk?.stop(), sdk03?.stop(), sdkNoStream?.stop()]);
  rmSync(scratch, { recursive: true, force: true });
});

const request = (tenant: string, text: string, extra: Record<string, unknown> = {}, returnImmediately = false) =>
  create(SendMessageRequestSchema, {
    tenant,
    configuration: returnImmediately ? { returnImmediately } : undefined,
    message: { messageId: crypto.randomUUID(), role: Role.USER, parts: [{ content: { case: "text", value: text } }], ...extra },
  });

async function send(tenant: string, text: string, extra: Record<string, unknown> = {}, transport: "grpc" | "connect-h1" = "grpc"): Promise<Task> {
  const res = await t.client(transport).sendMessage(request(tenant, text, extra));
  if (res.payload.case !== "task") throw new Error(`expected a task, got ${res.payload.case}`);
  return res.payload.value;
}

async function collect(stream: AsyncIterable<StreamResponse>): Promise<StreamResponse[]> {
  const out: StreamResponse[] = [];
  for await (const e of stream) out.push(e);
  return out;
}

const artifactText = (task: Task, id: string): string =>
  task.artifacts
    .filter((a) => a.artifactId === id)
    .flatMap((a) => a.parts.map((p) => (p.content.case === "text" ? p.content.value : "")))
    .join("");
const statusText = (task: Task): string => task.status?.message?.parts.map((p) => (p.content.case === "text" ? p.content.value : "")).join("") ?? "";

async function until<T>(fn: () => T | undefined, ms = 5_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = fn();
    if (v !== undefined) return v;
    if (Date.now() > end) throw new Error("condition not met in time");
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe("remote agent: a JSON-RPC-only @a2a-js/sdk agent, called over gRPC through the hub", () => {
  it("answers a message with the remote's result under local ids", async () => {
    const task = await send("sdk", "hello bridge");
    expect(task.status?.state).toBe(TaskState.COMPLETED);
    expect(artifactText(task, "echo")).toBe("hello bridge");
    const remote = sdk.received.at(-1)!;
    expect(remote.text).toBe("hello bridge");
    expect(remote.taskId).not.toBe(task.id);
    expect(remote.contextId).not.toBe(task.contextId);
    expect(task.history[0]?.taskId).toBe(task.id);
  });

  it("streams the remote's events as its own, chunk by chunk", async () => {
    const events = await collect(t.client("grpc").sendStreamingMessage(request("sdk", "stream 3")));
    const local = (events[0]!.payload.value as Task).id;
    expect(events[0]!.payload.case).toBe("task");
    const chunks = events.flatMap((e) => (e.payload.case === "artifactUpdate" ? [e.payload.value] : []));
    expect(chunks.map((c) => c.artifact?.parts[0]?.content.value)).toEqual(["chunk 1\n", "chunk 2\n", "chunk 3\n"]);
    expect(chunks.map((c) => [c.append, c.lastChunk])).toEqual([
      [false, false],
      [true, false],
      [true, true],
    ]);
    const remoteId = sdk.received.at(-1)!.taskId;
    for (const e of events.slice(1)) expect((e.payload.value as { taskId: string }).taskId).toBe(local);
    for (const e of events) expect(toJsonString(StreamResponseSchema, e)).not.toContain(remoteId);
    const last = events.at(-1)!;
    expect(last.payload.case === "statusUpdate" && last.payload.value.status?.state).toBe(TaskState.COMPLETED);
  });

  it("lets only the message parts cross: not the caller's token, tenant, metadata, extensions or task references", async () => {
    const res = await t.client("connect-h1").sendMessage(
      request("sdk", "just the parts", { metadata: { secret: "caller-only" }, extensions: ["https://example.com/ext"], referenceTaskIds: ["local-task-1"] }),
      { headers: { authorization: "Bearer caller-token" } },
    );
    expect((res.payload.value as Task).status?.state).toBe(TaskState.COMPLETED);
    const remote = sdk.received.at(-1)!;
    expect(remote.headers.authorization).toBe(`Bearer ${REMOTE_TOKEN}`);
    expect(remote.tenant).toBe("");
    expect(remote.message.metadata ?? {}).toEqual({});
    expect(remote.message.extensions).toEqual([]);
    expect(remote.message.referenceTaskIds).toEqual([]);
    expect(remote.message.parts.map((p: any) => p.content)).toEqual([{ $case: "text", value: "just the parts" }]);
  });

  it("sends a follow-up on an input-required task to the same remote task", async () => {
    const parked = await send("sdk", "input-required");
    expect(parked.status?.state).toBe(TaskState.INPUT_REQUIRED);
    expect(statusText(parked)).toBe("What is your name?");
    const remoteTask = sdk.received.at(-1)!.taskId;
    const done = await send("sdk", "Ada", { taskId: parked.id, contextId: parked.contextId });
    expect(done.status?.state).toBe(TaskState.COMPLETED);
    expect(artifactText(done, "answer")).toBe("answer: Ada");
    expect(sdk.received.at(-1)!.taskId).toBe(remoteTask);
  });

  it("keeps a local context on one remote context", async () => {
    const first = await send("sdk", "one");
    const remoteContext = sdk.received.at(-1)!.contextId;
    await send("sdk", "two", { contextId: first.contextId });
    expect(sdk.received.at(-1)!.contextId).toBe(remoteContext);
  });

  it("propagates cancel to the remote task", async () => {
    const res = await t.client("grpc").sendMessage(request("sdk", "slow 10000", {}, true));
    const id = (res.payload.value as Task).id;
    const remote = await until(() => sdk.received.find((r) => r.text === "slow 10000"));
    const canceled = await t.client("grpc").cancelTask({ tenant: "sdk", id });
    expect(canceled.status?.state).toBe(TaskState.CANCELED);
    await until(() => (sdk.canceled.includes(remote.taskId) ? true : undefined));
  });

  it("fails the local task with the remote's reason", async () => {
    const task = await send("sdk", "fail");
    expect(task.status?.state).toBe(TaskState.FAILED);
    expect(statusText(task)).toBe("Failed, as asked.");
  });

  it("passes a direct Message reply through as one", async () => {
    const res = await t.client("grpc").sendMessage(request("sdk", "message"));
    expect(res.payload.case).toBe("message");
    expect(res.payload.case === "message" && res.payload.value.parts[0]?.content.value).toBe("reply: message");
  });
});

describe("remote agent as a bridge between versions and bindings", () => {
  it("makes a v0.3 JSON-RPC remote callable by v1.0 clients over gRPC and Connect", async () => {
    const viaGrpc = await send("old", "from grpc");
    expect(viaGrpc.status?.state).toBe(TaskState.COMPLETED);
    expect(artifactText(viaGrpc, "echo")).toBe("from grpc");
    expect(sdk03.received.at(-1)!.headers["a2a-version"]).toBe("0.3");
    const events = await collect(t.client("connect-h2").sendStreamingMessage(request("old", "stream 2")));
    const last = events.at(-1)!;
    expect(last.payload.case === "statusUpdate" && last.payload.value.status?.state).toBe(TaskState.COMPLETED);
    expect(events.filter((e) => e.payload.case === "artifactUpdate")).toHaveLength(2);
  });

  it("follows a remote that cannot stream by polling, and still streams to the caller", async () => {
    const events = await collect(t.client("grpc").sendStreamingMessage(request("poll", "slow 600")));
    const last = events.at(-1)!;
    expect(last.payload.case === "statusUpdate" && last.payload.value.status?.state).toBe(TaskState.COMPLETED);
    const task = await t.client("connect-h1").getTask({ tenant: "poll", id: (events[0]!.payload.value as Task).id });
    expect(artifactText(task, "echo")).toBe("slow 600");
  });

  it("delegates to another hub over the binding it prefers", async () => {
    const events = await collect(t.client("grpc-web").sendStreamingMessage(request("hub", "stream 2")));
    expect(events.filter((e) => e.payload.case === "artifactUpdate")).toHaveLength(2);
    const last = events.at(-1)!;
    expect(last.payload.case === "statusUpdate" && last.payload.value.status?.state).toBe(TaskState.COMPLETED);
  });

  it("fails the task, saying so, when the remote cannot be reached", async () => {
    const task = await send("down", "anyone?");
    expect(task.status?.state).toBe(TaskState.FAILED);
    expect(statusText(task)).toMatch(/^The remote agent failed: .*cannot reach http:\/\/127\.0\.0\.1:9\//);
  });
});

describe("a remote agent's card", () => {
  const cardOf = async (id: string) => (await (await fetch(new URL(`v1/a2a/agents/${id}/agent-card.json`, t.url))).json()) as any;

  it("shows the remote agent's own name, description and skills once its card is read, with the hub's interfaces", async () => {
    // The remote's card is read in the background from the hub's start.
    let card = await cardOf("sdk");
    for (let i = 0; i < 250 && card.name !== "sdk test agent"; i++) {
      await new Promise((r) => setTimeout(r, 20));
      card = await cardOf("sdk");
    }
    expect(card.name).toBe("sdk test agent");
    expect(card.skills.map((s: any) => s.id)).toEqual(["echo"]);
    expect(card.skills.map((s: any) => s.id)).not.toContain("delegate");
    expect(card.supportedInterfaces.every((i: any) => !String(i.url).startsWith(sdk.url.replace(/\/$/, "")))).toBe(true);
    // The hub streams and pushes for any remote, whatever the remote's own card says.
    expect(card.capabilities).toMatchObject({ streaming: true, pushNotifications: true });
  });

  it("keeps the generic delegate card for a remote that cannot be reached, naming where it forwards", async () => {
    const card = await cardOf("down");
    expect(card.name).toBe("down");
    expect(card.skills.map((s: any) => s.id)).toEqual(["delegate"]);
    expect(card.skills[0].description).toContain("http://127.0.0.1:9/");
  });
});

describe("remote agent registry", () => {
  const file = (name: string, doc: unknown): string => {
    const path = join(scratch, name);
    writeFileSync(path, JSON.stringify(doc));
    return path;
  };

  it("loads many remote agents from one file, tokens from the environment", async () => {
    const path = file("a2a_agents.json", {
      agents: [
        { name: "weather", url: sdk.url, tokenEnv: "WEATHER_TOKEN", binding: "jsonrpc", description: "The weather" },
        { name: "legacy", card_url: sdk03.cardUrl, timeoutMs: 5_000 },
      ],
    });
    const agents = loadRemoteRegistry(path, { WEATHER_TOKEN: REMOTE_TOKEN });
    expect(agents.map((a) => [a.id, a.card.name, a.card.description])).toEqual([
      ["weather", "weather", "The weather"],
      ["legacy", "legacy", `Delegates to the A2A agent at ${sdk03.cardUrl}.`],
    ]);
    const hub = await startTestHub({ agents });
    try {
      const res = await hub.client("grpc").sendMessage(request("weather", "from the registry"));
      expect((res.payload.value as Task).status?.state).toBe(TaskState.COMPLETED);
      expect(sdk.received.at(-1)!.headers.authorization).toBe(`Bearer ${REMOTE_TOKEN}`);
    } finally {
      await hub.stop();
    }
  });

  it("refuses tokens in the file, unset token variables and bad entries, naming the file and key", () => {
    const withToken = file("token.json", [{ name: "a", url: "http://x/", token: "s3cret" }]);
    expect(() => loadRemoteRegistry(withToken, {})).toThrow(`${withToken}: [0].token: tokens never go in a file`);
    const unset = file("unset.json", { agents: [{ name: "a", url: "http://x/", tokenEnv: "NOPE" }] });
    expect(() => loadRemoteRegistry(unset, {})).toThrow("agents[0].tokenEnv: the environment variable NOPE is not set");
    const twice = file("twice.json", { agents: [{ name: "a", url: "http://x/" }, { name: "a", url: "http://y/" }] });
    expect(() => loadRemoteRegistry(twice, {})).toThrow("agents[1].name: a is declared twice");
    const badBinding = file("binding.json", { agents: [{ name: "a", url: "http://x/", binding: "soap" }] });
    expect(() => loadRemoteRegistry(badBinding, {})).toThrow(AgentOptionsError);
    expect(() => loadRemoteRegistry(join(scratch, "missing.json"), {})).toThrow(/missing\.json/);
  });

  it("reads a config's remote agent options the same way", () => {
    expect(parseRemoteAgentOptions({ url: "https://a.example/", tokenEnv: "T", binding: "grpc" }, "agents[2].options", { T: "tok" })).toEqual({
      url: "https://a.example/",
      token: "tok",
      binding: "grpc",
      timeoutMs: undefined,
    });
    expect(() => parseRemoteAgentOptions({ url: "ftp://a/" }, "agents[2].options")).toThrow("agents[2].options.url: must be an http(s) URL");
  });
});
