import { clone, equals, fromJson, toJson, type JsonValue } from "@bufbuild/protobuf";
import { ArtifactSchema, StreamResponseSchema, TaskSchema, TaskState, type StreamResponse, type Task } from "../../gen/a2a/v1/a2a_pb.js";
import type { SeenEvent } from "./hub-clients.js";
import { openRpcStream } from "./jsonrpc-requests.js";
import { within } from "./server-process.js";

/** One entry of a task's event log: its sequence number and the event. */
export interface LoggedEvent {
  readonly seq: number;
  readonly event: StreamResponse;
}

const SETTLED = new Set([TaskState.COMPLETED, TaskState.FAILED, TaskState.CANCELED, TaskState.REJECTED, TaskState.INPUT_REQUIRED, TaskState.AUTH_REQUIRED]);

const TERMINAL = new Set([TaskState.COMPLETED, TaskState.FAILED, TaskState.CANCELED, TaskState.REJECTED]);

function isTerminalTask(task: Task): boolean {
  return TERMINAL.has(task.status?.state ?? TaskState.UNSPECIFIED);
}

/** Whether an event leaves its task terminal or interrupted: where a stream ends (§3.1.2, §3.1.6). */
export function isSettling(event: StreamResponse): boolean {
  return event.payload.case === "statusUpdate" && SETTLED.has(event.payload.value.status?.state ?? TaskState.UNSPECIFIED);
}

/**
 * A settled task's whole event log, read through the server: JSON-RPC
 * SubscribeToTask with Last-Event-ID replays the logged events after that
 * sequence number with the SSE id = seq (§3.1.6), stopping at the next
 * settling event, so it is asked again from there until nothing is left.
 * Only for tasks that will not move again: on a live one it would wait.
 */
export async function storedLog(url: string, taskId: string, timeoutMs = 15_000): Promise<LoggedEvent[]> {
  const log: LoggedEvent[] = [];
  for (;;) {
    const after = log.at(-1)?.seq ?? 0;
    const batch = await within(timeoutMs, readLogAfter(url, taskId, after), `replaying the log of ${taskId} after ${after} took over ${timeoutMs} ms`);
    if (batch.length === 0) return log;
    log.push(...batch);
  }
}

async function readLogAfter(url: string, taskId: string, after: number): Promise<LoggedEvent[]> {
  const s = await openRpcStream(url, "SubscribeToTask", { id: taskId }, { headers: { "Last-Event-ID": String(after) } });
  if (!s.events) throw new Error(`log replay of ${taskId} refused: ${JSON.stringify(s.json)}`);
  const out: LoggedEvent[] = [];
  for await (const m of s.events) {
    if (m.data === undefined) continue;
    if (m.data.error) throw new Error(`log replay of ${taskId} failed: ${JSON.stringify(m.data.error)}`);
    out.push({ seq: Number(m.id), event: fromJson(StreamResponseSchema, m.data.result as JsonValue) });
  }
  return out;
}

/** Problems with a log's numbering: it must run 1..n, the first entry being the Task (§3.1.6). */
export function logProblems(log: readonly LoggedEvent[]): string[] {
  const problems: string[] = [];
  log.forEach((e, i) => {
    if (e.seq !== i + 1) problems.push(`entry ${i} has seq ${e.seq}`);
  });
  if (log[0]?.event.payload.case !== "task") problems.push(`the log begins with ${log[0]?.event.payload.case ?? "nothing"}, not the Task`);
  return problems;
}

/**
 * What a streaming sender must have seen (§3.1.2): the log from its first
 * entry (the Task) to the first settling event, nothing more or less, with
 * the log's seqs as SSE ids where the binding carries them.
 */
export function senderStreamProblems(seen: readonly SeenEvent[], log: readonly LoggedEvent[]): string[] {
  const end = log.findIndex((e) => isSettling(e.event));
  const expected = end < 0 ? log : log.slice(0, end + 1);
  return sliceProblems(seen, expected, "sender");
}

/**
 * What a subscriber must have seen (§3.1.6): a Task snapshot equal to the
 * log folded up to its join point k (status and artifacts), then exactly
 * log[k..] up to the first settling event after it. k is the snapshot's
 * SSE id where the binding carries one, otherwise where the first tail
 * event sits in the log.
 */
export function subscriberStreamProblems(seen: readonly SeenEvent[], log: readonly LoggedEvent[]): string[] {
  const head = seen[0];
  if (head?.event.payload.case !== "task") return [`the subscription began with ${head?.event.payload.case ?? "nothing"}, not the Task`];
  const tail = seen.slice(1);
  let k: number;
  if (head.seq !== undefined) {
    k = log.findIndex((e) => e.seq === head.seq) + 1;
    if (k === 0) return [`the snapshot's SSE id ${head.seq} is not in the log (1..${log.length})`];
  } else {
    if (tail.length === 0) {
      // A terminal snapshot is a whole answer: the task ended as the subscription began.
      if (!isTerminalTask(head.event.payload.value)) return ["the subscription ended after its snapshot with no event"];
      return foldProblems(log, head.event.payload.value, "terminal snapshot");
    }
    k = log.findIndex((e) => equals(StreamResponseSchema, e.event, tail[0]!.event));
    if (k < 0) return [`the first event after the snapshot (${describe(tail[0]!.event)}) is not in the log`];
  }
  const problems = foldProblems(log.slice(0, k), head.event.payload.value, "snapshot");
  const rest = log.slice(k);
  const end = rest.findIndex((e) => isSettling(e.event));
  return problems.concat(sliceProblems(tail, end < 0 ? rest : rest.slice(0, end + 1), "subscriber tail"));
}

function sliceProblems(seen: readonly SeenEvent[], expected: readonly LoggedEvent[], who: string): string[] {
  const problems: string[] = [];
  if (seen.length !== expected.length) problems.push(`${who} saw ${seen.length} events where the log has ${expected.length} (seqs ${expected[0]?.seq ?? "-"}..${expected.at(-1)?.seq ?? "-"})`);
  const n = Math.min(seen.length, expected.length);
  for (let i = 0; i < n; i++) {
    const s = seen[i]!;
    const e = expected[i]!;
    if (s.seq !== undefined && s.seq !== e.seq) problems.push(`${who} event ${i} has SSE id ${s.seq}, the log seq ${e.seq}`);
    if (!equals(StreamResponseSchema, s.event, e.event)) problems.push(`${who} event ${i} is ${describe(s.event)}, the log's seq ${e.seq} is ${describe(e.event)}`);
  }
  return problems;
}

/** The task as a log prefix leaves it: the Task entry, then its status and artifact updates applied (§4.2.2 append). */
export function foldLog(log: readonly LoggedEvent[]): Task {
  const first = log[0]?.event.payload;
  if (first?.case !== "task") throw new Error("a log begins with its Task");
  const task = clone(TaskSchema, first.value);
  for (const { event } of log.slice(1)) {
    const p = event.payload;
    if (p.case === "statusUpdate") task.status = p.value.status;
    else if (p.case === "artifactUpdate" && p.value.artifact) {
      const a = clone(ArtifactSchema, p.value.artifact);
      const i = task.artifacts.findIndex((x) => x.artifactId === a.artifactId);
      if (i < 0) task.artifacts.push(a);
      else if (p.value.append) task.artifacts[i]!.parts.push(...a.parts);
      else task.artifacts[i] = a;
    }
  }
  return task;
}

/**
 * Whether `task` (a snapshot, or GetTask after the fact) is what the log
 * folds to: same status, same artifacts part for part. History is left out.
 */
export function foldProblems(log: readonly LoggedEvent[], task: Task, what: string): string[] {
  const folded = foldLog(log);
  if (equals(TaskSchema, withoutHistory(folded), withoutHistory(task))) return [];
  return [`${what} ${JSON.stringify(toJson(TaskSchema, withoutHistory(task)))} is not the log folded to seq ${log.at(-1)?.seq}: ${JSON.stringify(toJson(TaskSchema, withoutHistory(folded)))}`];
}

/** History is not in the log (a follow-up adds to it without an event of its own), so snapshots are compared without it. */
function withoutHistory(task: Task): Task {
  const t = clone(TaskSchema, task);
  t.history = [];
  return t;
}

function describe(event: StreamResponse): string {
  return JSON.stringify(toJson(StreamResponseSchema, event)).slice(0, 400);
}
