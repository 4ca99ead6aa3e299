import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { resolve } from "node:path";
import { create } from "@bufbuild/protobuf";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { McpError, type CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { AgentCardSchema, TaskState, type Task } from "../../gen/a2a/v1/a2a_pb.js";
import { CommandAgent, commandCard, EchoAgent, echoCard, remoteHostedAgent } from "../../src/agents/index.js";
import { startTestHub, type TestHub } from "../helpers/test-hub.js";
import { callAndCancel, connectMcp, structured, texts } from "../helpers/mcp-client.js";
import { until } from "../helpers/until.js";

/** The hub's MCP endpoint, driven by the official MCP SDK client over Streamable HTTP. */

const PROGRAM = resolve("test/fixtures/command-program.mjs");
const PNG = Buffer.from("89504e470d0a1a0a0000000d49484452", "hex");

let other: TestHub;
let t: TestHub;
let mcp: Client;

beforeAll(async () => {
  other = await startTestHub();
  t = await startTestHub({
    agents: [
      { id: "echo", executor: new EchoAgent(), card: echoCard() },
      { id: "media", executor: new EchoAgent(), card: create(AgentCardSchema, { ...echoCard(), name: "media echo", description: "Echoes files of any type.", defaultInputModes: ["*/*"] }) },
      { id: "shell", executor: new CommandAgent({ program: process.execPath, args: [PROGRAM, "echo"] }), card: commandCard({ name: "shell" }) },
      remoteHostedAgent("remote", { url: other.url, binding: "grpc" }),
    ],
  });
  mcp = await connectMcp(t.url);
});
afterAll(async () => {
  await mcp?.close();
  await Promise.all([t?.stop(), other?.stop()]);
});

const call = (name: string, args: Record<string, unknown>, options?: Parameters<Client["callTool"]>[2]) =>
  mcp.callTool({ name, arguments: args }, undefined, options) as Promise<CallToolResult>;
const stored = (agent: string, id: string): Promise<Task> => t.client("grpc").getTask({ tenant: agent, id });

describe("MCP tools over Streamable HTTP", () => {
  it("lists one tool per hosted agent, titled and described from its card, with the message input schema", async () => {
    const { tools } = await mcp.listTools();
    expect(tools.map((x) => x.name)).toEqual(["echo", "media", "shell", "remote"]);
    const echo = tools.find((x) => x.name === "echo")!;
    expect(echo.title).toBe("a2a-hub echo");
    expect(echo.description).toContain(echoCard().description);
    // Skill description, examples and input modes come from the card.
    expect(echo.description).toContain("Completes with one artifact holding the message");
    expect(echo.description).toContain('"stream 5"');
    expect(echo.description).toContain("text/plain, application/json");
    expect(Object.keys(echo.inputSchema.properties ?? {})).toEqual(["text", "files", "data", "taskId", "contextId"]);
    expect(echo.outputSchema?.properties).toHaveProperty("state");
    expect(tools.find((x) => x.name === "shell")!.title).toBe("shell");
  });

  it("calls the echo agent and answers with its artifact, the task id and state, equal to the stored task", async () => {
    const r = await call("echo", { text: "hello mcp" });
    expect(r.isError).toBeFalsy();
    const s = structured(r);
    expect(s.state).toBe("TASK_STATE_COMPLETED");
    expect(texts(r)[0]).toBe("hello mcp");
    expect(r.content.at(-1)).toMatchObject({ type: "resource_link", uri: `a2a://tasks/${s.taskId}` });
    const task = await stored("echo", s.taskId!);
    expect(task.status?.state).toBe(TaskState.COMPLETED);
    expect(task.contextId).toBe(s.contextId);
  });

  it("gives image files as image content, other files as embedded resources or links, and data parts as structured content", async () => {
    const r = await call("media", {
      text: "files",
      files: [
        { name: "dot.png", mimeType: "image/png", data: PNG.toString("base64") },
        { name: "doc.pdf", mimeType: "application/pdf", data: Buffer.from("%PDF-1.4").toString("base64") },
        { name: "far.txt", mimeType: "text/plain", uri: "https://example.com/far.txt" },
      ],
      data: { answer: 42, list: [1, "two"] },
    });
    expect(r.isError).toBeFalsy();
    const [text, image, pdf, link, data] = r.content;
    expect(text).toEqual({ type: "text", text: "files" });
    expect(image).toEqual({ type: "image", mimeType: "image/png", data: PNG.toString("base64") });
    expect(pdf).toMatchObject({ type: "resource", resource: { mimeType: "application/pdf", blob: Buffer.from("%PDF-1.4").toString("base64") } });
    expect(link).toMatchObject({ type: "resource_link", uri: "https://example.com/far.txt", name: "far.txt", mimeType: "text/plain" });
    expect(data).toEqual({ type: "text", text: JSON.stringify({ answer: 42, list: [1, "two"] }) });
    expect(structured(r).data).toEqual([{ answer: 42, list: [1, "two"] }]);
  });

  it("answers a direct reply (a Message, no task) with its parts", async () => {
    const r = await call("echo", { text: "message" });
    expect(r.isError).toBeFalsy();
    expect(texts(r)).toEqual(["message"]);
    expect(structured(r).taskId).toBeUndefined();
  });

  it("sends progress notifications with the status and each artifact chunk while a streaming task runs", async () => {
    const seen: Array<{ progress: number; message?: string }> = [];
    const r = await call("echo", { text: "stream 5" }, { onprogress: (p) => void seen.push(p) });
    expect(structured(r).state).toBe("TASK_STATE_COMPLETED");
    // The appended chunks are the parts of one artifact, each a text block.
    expect(texts(r).slice(0, 5).join("")).toBe("chunk 1\nchunk 2\nchunk 3\nchunk 4\nchunk 5\n");
    const messages = seen.map((p) => p.message);
    for (let i = 1; i <= 5; i++) expect(messages).toContain(`chunk ${i}\n`);
    expect(messages).toContain("TASK_STATE_COMPLETED");
    expect(seen.map((p) => p.progress)).toEqual(seen.map((_, i) => i + 1));
  });

  it("cancels the task when the MCP client cancels the call", async () => {
    const taskId = await callAndCancel(mcp, "echo", { text: "slow 60000" });
    await until("the task is canceled", async () => (await stored("echo", taskId)).status?.state === TaskState.CANCELED);
  });

  it("returns the question and the taskId of an input-required task to a client without elicitation, and continues it with taskId", async () => {
    const asked = await call("echo", { text: "input-required" });
    const s = structured(asked);
    expect(asked.isError).toBeFalsy();
    expect(s.state).toBe("TASK_STATE_INPUT_REQUIRED");
    expect(s.question).toBe("Send any text to complete this task.");
    expect(texts(asked).join("\n")).toContain(`taskId "${s.taskId}"`);
    const done = await call("echo", { text: "the answer", taskId: s.taskId });
    expect(structured(done)).toMatchObject({ taskId: s.taskId, state: "TASK_STATE_COMPLETED" });
    expect(texts(done)[0]).toBe("the answer");
  });

  it("asks a client that supports elicitation the task's question and continues the task with its answer", async () => {
    const questions: string[] = [];
    const eliciting = await connectMcp(t.url, {
      elicit: (q) => {
        questions.push(q);
        return { action: "accept", content: { answer: "forty-two" } };
      },
    });
    try {
      const r = (await eliciting.callTool({ name: "echo", arguments: { text: "input-required" } })) as CallToolResult;
      expect(questions).toEqual(["Send any text to complete this task."]);
      expect(structured(r).state).toBe("TASK_STATE_COMPLETED");
      expect(texts(r)[0]).toBe("forty-two");
      expect((await stored("echo", structured(r).taskId!)).history.length).toBeGreaterThanOrEqual(2);
    } finally {
      await eliciting.close();
    }
  });

  it("calls a command agent", async () => {
    const r = await call("shell", { text: "from mcp" });
    expect(structured(r).state).toBe("TASK_STATE_COMPLETED");
    expect(texts(r)[0]).toBe("from mcp");
  });

  it("calls a remote agent through the hub", async () => {
    const r = await call("remote", { text: "over there" });
    expect(structured(r).state).toBe("TASK_STATE_COMPLETED");
    expect(texts(r)[0]).toBe("over there");
  });

  it("answers A2A errors as tool errors carrying the A2A reason", async () => {
    const missing = await call("echo", { text: "x", taskId: "no-such-task" });
    expect(missing.isError).toBe(true);
    expect(structured(missing).error?.reason).toBe("TASK_NOT_FOUND");
    expect(texts(missing)[0]).toMatch(/^A2A error TASK_NOT_FOUND: /);
    const png = await call("echo", { files: [{ mimeType: "image/png", data: PNG.toString("base64") }] });
    expect(structured(png).error?.reason).toBe("CONTENT_TYPE_NOT_SUPPORTED");
    const empty = await call("echo", {});
    expect(structured(empty).error?.reason).toBe("INVALID_PARAMS");
    const badFile = await call("echo", { files: [{ data: "***" }] });
    expect(structured(badFile).error).toMatchObject({ reason: "INVALID_PARAMS", message: expect.stringContaining("files[0]") });
  });

  it("answers a task that failed as a tool error with its state and reason", async () => {
    const r = await call("echo", { text: "fail" });
    expect(r.isError).toBe(true);
    expect(structured(r).state).toBe("TASK_STATE_FAILED");
    expect(texts(r).join("\n")).toContain("Failed, as asked.");
  });

  it("refuses a call of an unknown tool as a protocol error", async () => {
    await expect(call("nobody", { text: "x" })).rejects.toBeInstanceOf(McpError);
  });

  it("serves tasks as a2a://tasks/{id} resources: the template, the list, and the task as stored", async () => {
    const r = await call("echo", { text: "keep me" });
    const id = structured(r).taskId!;
    const { resourceTemplates } = await mcp.listResourceTemplates();
    expect(resourceTemplates.map((x) => x.uriTemplate)).toEqual(["a2a://tasks/{id}"]);
    const { resources } = await mcp.listResources();
    expect(resources.map((x) => x.uri)).toContain(`a2a://tasks/${id}`);
    const read = await mcp.readResource({ uri: `a2a://tasks/${id}` });
    const task = JSON.parse((read.contents[0] as { text: string }).text);
    expect(task.id).toBe(id);
    expect(task.status.state).toBe("TASK_STATE_COMPLETED");
    expect(task.artifacts[0].parts[0].text).toBe("keep me");
    await expect(mcp.readResource({ uri: "a2a://tasks/no-such-task" })).rejects.toThrow(/Resource not found/);
  });
});
