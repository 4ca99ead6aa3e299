import { toJson } from "@bufbuild/protobuf";
import { ValueSchema } from "@bufbuild/protobuf/wkt";
import type { CallToolResult, ContentBlock } from "@modelcontextprotocol/sdk/types.js";
import { TaskState, type Message, type Part, type Task } from "../../gen/a2a/v1/a2a_pb.js";
import { stateName, type A2AError } from "../core/index.js";

/** The URI of a task as an MCP resource. */
export function taskUri(taskId: string): string {
  return `a2a://tasks/${encodeURIComponent(taskId)}`;
}

/** The text of a message's text parts (a status message: the agent's question or reason). */
export function messageText(m: Message | undefined): string {
  return (m?.parts ?? []).map((p) => (p.content.case === "text" ? p.content.value : "")).join("").trim();
}

/** One A2A part as MCP content; data part values are also collected for structured content. */
function partContent(p: Part, at: string, data: unknown[]): ContentBlock {
  const c = p.content;
  switch (c.case) {
    case "text":
      return { type: "text", text: c.value };
    case "data": {
      const value = toJson(ValueSchema, c.value);
      data.push(value);
      // MCP tools/call: structured content is also given as serialized JSON text for hosts that read only content.
      return { type: "text", text: JSON.stringify(value) };
    }
    case "raw": {
      const mimeType = p.mediaType || "application/octet-stream";
      const blob = Buffer.from(c.value).toString("base64");
      if (mimeType.startsWith("image/")) return { type: "image", data: blob, mimeType };
      if (mimeType.startsWith("audio/")) return { type: "audio", data: blob, mimeType };
      return { type: "resource", resource: { uri: at, mimeType, blob } };
    }
    case "url":
      return { type: "resource_link", uri: c.value, name: p.filename || c.value, ...(p.mediaType ? { mimeType: p.mediaType } : {}) };
    default:
      return { type: "text", text: "" };
  }
}

/** States in which the work the tool was asked for did not happen: a tool execution error for the host. */
const NOT_DONE = new Set<TaskState>([TaskState.FAILED, TaskState.REJECTED, TaskState.CANCELED]);

/** The plain-language line that closes every task result: its id, state, and what the agent says. */
function statusLine(task: Task): string {
  const state = task.status?.state ?? TaskState.UNSPECIFIED;
  const said = messageText(task.status?.message);
  if (state === TaskState.INPUT_REQUIRED || state === TaskState.AUTH_REQUIRED) {
    return `Task ${task.id} is ${stateName(state)}: ${said || "the agent needs more input"}. Call this tool again with taskId "${task.id}" and the answer to continue it.`;
  }
  return `Task ${task.id} is ${stateName(state)}${said ? `: ${said}` : "."}`;
}

/**
 * A task as a tool result: every artifact part as MCP content (text; image
 * and audio for raw media; embedded resources for other raw files; links
 * for URL files; data parts as JSON text and in structured content), then
 * a line with the task's id and state and a link to the task resource.
 */
export function taskResult(task: Task): CallToolResult {
  const data: unknown[] = [];
  const content: ContentBlock[] = [];
  for (const a of task.artifacts) {
    a.parts.forEach((p, i) => content.push(partContent(p, `${taskUri(task.id)}/artifacts/${encodeURIComponent(a.artifactId)}/${i}`, data)));
  }
  const state = task.status?.state ?? TaskState.UNSPECIFIED;
  content.push({ type: "text", text: statusLine(task) });
  content.push({ type: "resource_link", uri: taskUri(task.id), name: `task ${task.id}`, mimeType: "application/json" });
  const question = state === TaskState.INPUT_REQUIRED || state === TaskState.AUTH_REQUIRED ? messageText(task.status?.message) : undefined;
  return {
    content,
    structuredContent: { taskId: task.id, contextId: task.contextId, state: stateName(state), ...(question !== undefined ? { question } : {}), data },
    ...(NOT_DONE.has(state) ? { isError: true } : {}),
  };
}

/** A direct reply (§3.1.1: the agent answered with a Message, no task) as a tool result. */
export function messageResult(m: Message): CallToolResult {
  const data: unknown[] = [];
  const content = m.parts.map((p, i) => partContent(p, `a2a://messages/${encodeURIComponent(m.messageId)}/${i}`, data));
  return { content, structuredContent: { contextId: m.contextId, data } };
}

/** An A2A error as a tool execution error: the host (and the model) read its A2A reason and message. */
export function errorResult(e: A2AError): CallToolResult {
  const reason = e.row.reason;
  return {
    content: [{ type: "text", text: `A2A error ${reason}: ${e.message}` }],
    structuredContent: { error: { reason, message: e.message, ...(Object.keys(e.metadata).length > 0 ? { metadata: e.metadata } : {}) } },
    isError: true,
  };
}
