import { setTimeout as sleep } from "node:timers/promises";
import { create } from "@bufbuild/protobuf";
import type { CallToolResult, ElicitResult } from "@modelcontextprotocol/sdk/types.js";
import { SendMessageConfigurationSchema, SendMessageRequestSchema, TaskState, type Message, type StreamResponse } from "../../gen/a2a/v1/a2a_pb.js";
import { A2AError, isA2AError, isSettled, stateName } from "../core/index.js";
import type { AgentBackend, BackendAgent } from "./agent-backend.js";
import type { AgentTool } from "./tool-catalog.js";
import { answerMessage, toolMessage } from "./tool-input.js";
import { errorResult, messageResult, messageText, taskResult } from "./tool-result.js";

/** What a tool call can do towards its MCP client while it runs. */
export interface ToolCallPeer {
  /** Aborted when the client cancels the request (MCP notifications/cancelled). */
  readonly signal: AbortSignal;
  /** Sends a progress notification, when the client asked for them (a progress token). */
  readonly progress?: (progress: number, message: string) => Promise<void>;
  /** Asks the client a question (MCP elicitation), when it supports it; undefined otherwise. */
  readonly elicit?: (question: string) => Promise<ElicitResult>;
  /** Told of a failure that is not an A2A error (a bug): the client hears only "internal error". */
  readonly report?: (error: unknown) => void;
}

/** How many questions of one task a call puts to the client before it hands the task back. */
const MAX_QUESTIONS = 8;
/** How often a task of an agent without streaming is read while it runs: doubling from the first wait to the longest. */
const POLL_FIRST_MS = 100;
const POLL_MAX_MS = 2_000;
/** Longest artifact chunk text a progress message carries. */
const PROGRESS_TEXT = 2_000;

/** What one send came to: a task (its id) or a direct reply. */
type Outcome = { readonly taskId: string } | { readonly message: Message };

/**
 * Runs one tool call: sends the message through the backend, streams the
 * task's events as progress, cancels the task when the client cancels the
 * call, asks the client through elicitation when the task stops
 * input-required (else hands back the question and the taskId), and
 * answers with the task as stored when it settles. A2A errors become tool
 * errors carrying their reason.
 */
export async function callAgentTool(backend: AgentBackend, agent: BackendAgent, tool: AgentTool, args: Record<string, unknown> | undefined, peer: ToolCallPeer): Promise<CallToolResult> {
  try {
    let message = toolMessage(args, tool.skillId);
    for (let asked = 0; ; asked++) {
      const outcome = await sendOnce(backend, agent, message, peer);
      if ("message" in outcome) return messageResult(outcome.message);
      // The answer is the task as the store holds it, whatever the stream showed on the way.
      const task = await backend.get(agent.id, outcome.taskId);
      const state = task.status?.state;
      if (state !== TaskState.INPUT_REQUIRED || !peer.elicit || asked >= MAX_QUESTIONS || peer.signal.aborted) return taskResult(task);
      let answer: ElicitResult;
      try {
        answer = await peer.elicit(messageText(task.status?.message) || "The agent needs more input.");
      } catch {
        // Canceled while the question was open: the task goes too. Otherwise (no answer in time, the
        // client gone) the task stays input-required, and the result says how to continue it.
        if (!peer.signal.aborted) return taskResult(task);
        return taskResult(await backend.cancel(agent.id, task.id).catch(() => task));
      }
      const text = answer.action === "accept" ? answerText(answer.content) : undefined;
      if (text === undefined) return taskResult(task);
      message = answerMessage(task.id, task.contextId, text);
    }
  } catch (e) {
    if (isA2AError(e)) return errorResult(e);
    // §3.3.2 "System Errors": anything else is Internal, its details logged, not told to the client.
    peer.report?.(e);
    return errorResult(new A2AError("Internal", "internal error", { cause: e }));
  }
}

/** The text of an accepted elicitation: its `answer` field (or its only field). */
function answerText(content: ElicitResult["content"]): string | undefined {
  if (!content) return undefined;
  const v = content.answer ?? Object.values(content)[0];
  return v === undefined ? undefined : Array.isArray(v) ? v.join(", ") : String(v);
}

/**
 * One SendStreamingMessage (SendMessage for an agent without streaming),
 * followed until its stream ends. A cancellation from the client cancels
 * the task (§3.1.5) as soon as its id is known, then stops reading.
 */
async function sendOnce(backend: AgentBackend, agent: BackendAgent, message: Message, peer: ToolCallPeer): Promise<Outcome> {
  const req = create(SendMessageRequestSchema, { message });
  const stop = new AbortController();
  let taskId = "";
  let canceling: Promise<unknown> | undefined;
  const cancel = (): void => {
    if (canceling || taskId === "") return;
    canceling = backend.cancel(agent.id, taskId).catch(() => undefined);
    canceling.finally(() => stop.abort());
  };
  const onAbort = (): void => cancel();
  peer.signal.addEventListener("abort", onAbort, { once: true });
  try {
    let step = 0;
    const progress = (text: string): Promise<void> | undefined => peer.progress?.(++step, text).catch(() => undefined);
    if (agent.card.capabilities?.streaming !== true) {
      // §3.2.2: accepted at once, then followed by GetTask, so that a cancellation has a task id to cancel.
      req.configuration = create(SendMessageConfigurationSchema, { returnImmediately: true });
      const r = await backend.send(agent.id, req, stop.signal);
      if (r.payload.case === "message") return { message: r.payload.value };
      let task = r.payload.value;
      if (!task) throw new A2AError("InvalidAgentResponse", "the agent answered with neither a task nor a message");
      taskId = task.id;
      if (peer.signal.aborted) cancel();
      for (let wait = POLL_FIRST_MS, last = -1; !isSettled(task.status?.state ?? TaskState.UNSPECIFIED); wait = Math.min(wait * 2, POLL_MAX_MS)) {
        const state = task.status?.state ?? TaskState.UNSPECIFIED;
        if (state !== last) await progress(`task ${task.id}: ${stateName(state)}`);
        last = state;
        await sleep(wait, undefined, { signal: stop.signal }).catch(() => undefined);
        await canceling;
        task = await backend.get(agent.id, task.id);
      }
      return { taskId };
    }
    try {
      for await (const ev of backend.stream(agent.id, req, stop.signal)) {
        const p = ev.payload;
        if (p.case === "message") return { message: p.value };
        if (p.case === "task" || p.case === "statusUpdate") {
          if (taskId === "") {
            taskId = p.case === "task" ? p.value.id : p.value.taskId;
            if (peer.signal.aborted) cancel();
          }
        }
        await progress(progressText(ev));
      }
    } catch (e) {
      // The stream stopped because the call was canceled: the task is (being) canceled.
      if (!stop.signal.aborted) throw e;
    }
    await canceling;
    if (taskId === "") throw new A2AError("InvalidAgentResponse", "the stream ended before the task was named");
    return { taskId };
  } finally {
    peer.signal.removeEventListener("abort", onAbort);
  }
}

/** What a progress notification says about one stream event: the state and status message, or the artifact chunk. */
function progressText(ev: StreamResponse): string {
  const p = ev.payload;
  switch (p.case) {
    case "task":
      return `task ${p.value.id}: ${stateName(p.value.status?.state ?? TaskState.UNSPECIFIED)}`;
    case "statusUpdate": {
      const said = messageText(p.value.status?.message);
      return `${stateName(p.value.status?.state ?? TaskState.UNSPECIFIED)}${said ? `: ${said}` : ""}`;
    }
    case "artifactUpdate": {
      const a = p.value.artifact;
      const text = (a?.parts ?? []).map((x) => (x.content.case === "text" ? x.content.value : `[${x.content.case ?? "part"}]`)).join("");
      return text.length > PROGRESS_TEXT ? `${text.slice(0, PROGRESS_TEXT)}…` : text;
    }
    default:
      return "";
  }
}
