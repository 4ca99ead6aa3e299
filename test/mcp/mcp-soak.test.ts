import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { randomUUID } from "node:crypto";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { Role, TaskState, type Task } from "../../gen/a2a/v1/a2a_pb.js";
import { stateName } from "../../src/core/index.js";
import { connectMcp, structured, texts } from "../helpers/mcp-client.js";
import { startTestHub, type TestHub } from "../helpers/test-hub.js";
import { until } from "../helpers/until.js";

/*
 * Many MCP tool calls at once, over several sessions, mixed with A2A calls
 * (gRPC) on the same tasks: MCP opens a task and A2A answers it, A2A opens
 * one and MCP answers it, A2A cancels a task an MCP call is following.
 * Afterwards every task either side made is stored, and every MCP result
 * equals the task as the hub stores it.
 */

const ROUNDS = Number(process.env.MCP_SOAK_ROUNDS ?? 100);
const SESSIONS = 4;
const CONCURRENCY = 24;

let t: TestHub;
let sessions: Client[] = [];

beforeAll(async () => {
  t = await startTestHub();
  sessions = await Promise.all(Array.from({ length: SESSIONS }, () => connectMcp(t.url)));
});
afterAll(async () => {
  await Promise.all(sessions.map((s) => s.close()));
  await t?.stop();
});

const grpc = () => t.client("grpc");
const message = (text: string, taskId = "") => ({ messageId: randomUUID(), role: Role.USER, parts: [{ content: { case: "text" as const, value: text } }], taskId });
const textsOf = (task: Task): string[] => task.artifacts.flatMap((a) => a.parts.flatMap((p) => (p.content.case === "text" ? [p.content.value] : [])));

/** A tool result compared with the stored task: id, context, state and every artifact text, in order. */
async function matchesStored(r: CallToolResult): Promise<{ task: Task; problems: string[] }> {
  const s = structured(r);
  const task = await grpc().getTask({ id: s.taskId! });
  const problems: string[] = [];
  if (s.contextId !== task.contextId) problems.push(`context ${s.contextId} != ${task.contextId}`);
  if (s.state !== stateName(task.status!.state)) problems.push(`state ${s.state} != ${stateName(task.status!.state)}`);
  const artifactTexts = textsOf(task);
  if (JSON.stringify(texts(r).slice(0, artifactTexts.length)) !== JSON.stringify(artifactTexts)) problems.push(`artifacts ${JSON.stringify(texts(r))} != ${JSON.stringify(artifactTexts)}`);
  return { task, problems: problems.map((p) => `task ${s.taskId}: ${p}`) };
}

/** Runs the jobs with at most `n` at a time. */
async function pool<T>(jobs: Array<() => Promise<T>>, n: number): Promise<T[]> {
  const out: T[] = new Array(jobs.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: n }, async () => {
      while (next < jobs.length) {
        const i = next++;
        out[i] = await jobs[i]!();
      }
    }),
  );
  return out;
}

describe("MCP soak", () => {
  it("keeps every task of concurrent MCP and A2A calls on the same tasks, and every MCP result equals the stored task", async () => {
    const made = new Set<string>();
    const problems: string[] = [];
    const tool = (i: number, args: Record<string, unknown>, onprogress?: (p: { message?: string }) => void) =>
      sessions[i % SESSIONS]!.callTool({ name: "echo", arguments: args }, undefined, onprogress ? { onprogress } : undefined) as Promise<CallToolResult>;
    const check = async (r: CallToolResult, state: TaskState): Promise<void> => {
      const { task, problems: p } = await matchesStored(r);
      made.add(task.id);
      problems.push(...p);
      if (task.status?.state !== state) problems.push(`task ${task.id}: ${stateName(task.status!.state)}, expected ${stateName(state)}`);
    };
    const kinds: Array<(i: number) => Promise<void>> = [
      // A plain call, and a streaming one.
      async (i) => check(await tool(i, { text: `soak ${i}` }), TaskState.COMPLETED),
      async (i) => check(await tool(i, { text: "stream 12" }), TaskState.COMPLETED),
      // MCP opens an input-required task; A2A answers it; MCP reads it back as a resource.
      async (i) => {
        const asked = await tool(i, { text: "input-required" });
        await check(asked, TaskState.INPUT_REQUIRED);
        const id = structured(asked).taskId!;
        await grpc().sendMessage({ message: message(`a2a answer ${i}`, id) });
        const read = await sessions[(i + 1) % SESSIONS]!.readResource({ uri: `a2a://tasks/${id}` });
        const task = JSON.parse((read.contents[0] as { text: string }).text);
        if (task.status.state !== "TASK_STATE_COMPLETED" || task.artifacts[0].parts[0].text !== `a2a answer ${i}`) problems.push(`task ${id}: resource ${JSON.stringify(task.status)}`);
      },
      // A2A opens an input-required task; MCP answers it with its taskId.
      async (i) => {
        const opened = await grpc().sendMessage({ message: message("input-required") });
        const id = opened.payload.case === "task" ? opened.payload.value.id : "";
        made.add(id);
        const r = await tool(i, { text: `mcp answer ${i}`, taskId: id });
        await check(r, TaskState.COMPLETED);
        if (texts(r)[0] !== `mcp answer ${i}`) problems.push(`task ${id}: answered ${texts(r)[0]}`);
      },
      // An MCP call follows a slow task that A2A cancels.
      async (i) => {
        let id = "";
        const pending = tool(i, { text: "slow 30000" }, (p) => {
          id ||= /^task (\S+):/.exec(p.message ?? "")?.[1] ?? "";
        });
        await until("the slow task is named", async () => id !== "");
        await grpc().cancelTask({ id });
        const r = await pending;
        if (!r.isError) problems.push(`task ${id}: a canceled task is not a tool error`);
        await check(r, TaskState.CANCELED);
      },
    ];
    const jobs = Array.from({ length: ROUNDS * kinds.length }, (_, n) => () => kinds[n % kinds.length]!(n));
    await pool(jobs, CONCURRENCY);
    expect(problems).toEqual([]);
    expect(made.size).toBe(ROUNDS * kinds.length);
    // Nothing lost: every task either side made is listed by the hub.
    const listed = new Set<string>();
    let pageToken = "";
    do {
      const page = await grpc().listTasks({ pageSize: 100, pageToken });
      for (const task of page.tasks) listed.add(task.id);
      pageToken = page.nextPageToken;
    } while (pageToken);
    for (const id of made) expect(listed.has(id), `task ${id} is listed`).toBe(true);
  }, 180_000);
});
