import { randomUUID } from "node:crypto";
import { createClient, type Client, type Interceptor } from "@connectrpc/connect";
import { createConnectTransport, createGrpcTransport } from "@connectrpc/connect-node";
import { A2AService, Role, TaskState, type Task } from "a2a-hub";
import { ECHO_TEXT } from "./response-checks.js";

export type A2AClient = Client<typeof A2AService>;

/** §3.2.6 A2A-Version service parameter: the SDK reads a missing one as 0.3 and refuses it. */
const v1: Interceptor = (next) => (req) => {
  req.header.set("a2a-version", "1.0");
  return next(req);
};

/** A real A2A client for sampling answers and counting tasks: gRPC, or Connect over h2. */
export function a2aClient(baseUrl: string, protocol: "grpc" | "connect-h2" = "grpc"): A2AClient {
  const interceptors = [v1];
  const transport = protocol === "grpc" ? createGrpcTransport({ baseUrl, interceptors }) : createConnectTransport({ baseUrl, httpVersion: "2", interceptors });
  return createClient(A2AService, transport);
}

/** The benchmark message, as the client libraries take it: a new messageId each time (§3.3.1). */
export function benchMessage(text = ECHO_TEXT) {
  return { messageId: randomUUID(), role: Role.USER, parts: [{ content: { case: "text" as const, value: text } }] };
}

/** Why a task is not the completed echo of ECHO_TEXT, or undefined when it is. */
export function echoProblem(task: Task | undefined): string | undefined {
  if (!task) return "no task in the answer";
  if (task.status?.state !== TaskState.COMPLETED) return `task state ${TaskState[task.status?.state ?? 0]}`;
  const part = task.artifacts[0]?.parts[0]?.content;
  if (part?.case !== "text" || part.value !== ECHO_TEXT) return "artifact does not echo the message";
  return undefined;
}

/** Sends `n` messages with a real client and throws unless every answer is a completed echo task. */
export async function sampleSendMessage(client: A2AClient, n: number): Promise<void> {
  for (let i = 0; i < n; i++) {
    const res = await client.sendMessage({ message: benchMessage() });
    const problem = echoProblem(res.payload.case === "task" ? res.payload.value : undefined);
    if (problem) throw new Error(`sampled SendMessage: ${problem}`);
  }
}

/** How many tasks the server holds, and how many of them are completed (ListTasks totalSize). */
export async function countTasks(client: A2AClient): Promise<{ total: number; completed: number }> {
  const all = await client.listTasks({ pageSize: 1 });
  const completed = await client.listTasks({ pageSize: 1, status: TaskState.COMPLETED });
  return { total: all.totalSize, completed: completed.totalSize };
}
