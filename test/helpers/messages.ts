import { randomUUID } from "node:crypto";
import { create, type MessageInitShape } from "@bufbuild/protobuf";
import { Role, SendMessageRequestSchema, type SendMessageRequest, type SendMessageResponse, type StreamResponse, type Task } from "../../gen/a2a/v1/a2a_pb.js";

/** A SendMessageRequest with one user text part, and any overrides. */
export function textRequest(
  text: string,
  extra: { taskId?: string; contextId?: string; configuration?: MessageInitShape<typeof SendMessageRequestSchema>["configuration"]; messageId?: string } = {},
): SendMessageRequest {
  return create(SendMessageRequestSchema, {
    message: {
      messageId: extra.messageId ?? randomUUID(),
      role: Role.USER,
      taskId: extra.taskId ?? "",
      contextId: extra.contextId ?? "",
      parts: [{ content: { case: "text", value: text } }],
    },
    configuration: extra.configuration,
  });
}

/** A send of one text part as a client call takes it: messageId and role left for the client to fill (§3.2.1); `extra` joins the message. */
export function clientText(value: string, extra: Record<string, unknown> = {}) {
  return { message: { ...extra, parts: [{ content: { case: "text" as const, value } }] } };
}

/** Collects a stream into an array. */
export async function collect(stream: AsyncIterable<StreamResponse>): Promise<StreamResponse[]> {
  const out: StreamResponse[] = [];
  for await (const e of stream) out.push(e);
  return out;
}

/** The payload kinds of a stream, e.g. ["task", "statusUpdate", ...]. */
export function kinds(events: readonly StreamResponse[]): string[] {
  return events.map((e) => e.payload.case ?? "none");
}

/** The Task of a SendMessageResponse; fails the test when the agent answered with a Message. */
export function taskOf(res: SendMessageResponse): Task {
  if (res.payload.case !== "task") throw new Error(`expected a task, got ${res.payload.case}`);
  return res.payload.value;
}

/** The Task that begins a stream; fails the test when the first event is something else. */
export function firstTask(events: readonly StreamResponse[]): Task {
  const first = events[0]?.payload;
  if (first?.case !== "task") throw new Error(`expected the stream to begin with a task, got ${first?.case}`);
  return first.value;
}
