import { equals, toJson } from "@bufbuild/protobuf";
import { MessageSchema, Role, TaskSchema, TaskState, type Task } from "../../gen/a2a/v1/a2a_pb.js";
import { refusedAs, type HubClient } from "./hub-clients.js";
import { textOf } from "./message-text.js";

export const TERMINAL = new Set([TaskState.COMPLETED, TaskState.FAILED, TaskState.CANCELED, TaskState.REJECTED]);

/** What a client was told about a task: the Task it saw last, and how it may move on from there. */
export interface Ack {
  readonly cycle: number;
  readonly op: string;
  readonly task: Task;
  /** A short `slow` run: it may have completed on its own before the crash. */
  readonly mayComplete?: boolean;
}

/** What else the client did to its tasks after they were acknowledged. */
export interface Told {
  /** The messageIds of follow-ups the client sent, per task. */
  readonly followUps: ReadonlyMap<string, ReadonlySet<string>>;
  /** Tasks the client asked to cancel (whether or not the answer came back). */
  readonly cancelSent: ReadonlySet<string>;
}

/** Whether a crash may have failed the task since (its server died), and what its FAILED status must say. */
export interface CrashRule {
  readonly allowed: boolean;
  readonly why: RegExp;
  readonly what: string;
}

/** Why a task read back after a crash does not agree with what the client was told, if it does not. */
export function ackProblem(a: Ack, now: Task, told: Told, crash: CrashRule): string | undefined {
  const said = a.task;
  const state = said.status?.state ?? TaskState.UNSPECIFIED;
  const nowState = now.status?.state ?? TaskState.UNSPECIFIED;
  const where = `task ${said.id} (${a.op}, cycle ${a.cycle}, acknowledged ${TaskState[state]}, now ${TaskState[nowState]})`;
  if (TERMINAL.has(state)) {
    // A terminal task never changes again: it must read back exactly as acknowledged.
    if (!equals(TaskSchema, said, now)) return `${where} differs: acknowledged ${json(said)}, stored ${json(now)}`;
    return undefined;
  }
  // It moved on only as its acknowledgement allows; the history it was acknowledged with is kept.
  const mine = told.followUps.get(said.id) ?? new Set<string>();
  const allowed = new Set<TaskState>();
  // A follow-up starts a run again, on a server that may die in turn.
  if (crash.allowed || (state === TaskState.INPUT_REQUIRED && mine.size > 0)) allowed.add(TaskState.FAILED);
  if (state === TaskState.INPUT_REQUIRED) {
    allowed.add(TaskState.INPUT_REQUIRED);
    if (mine.size === 0) allowed.delete(TaskState.FAILED);
    else allowed.add(TaskState.COMPLETED);
  }
  if (a.mayComplete) allowed.add(TaskState.COMPLETED);
  if (told.cancelSent.has(said.id)) allowed.add(TaskState.CANCELED);
  if (!allowed.has(nowState)) return `${where}: not an allowed outcome (${[...allowed].map((s) => TaskState[s]).join(", ") || "none"})`;
  if (nowState === TaskState.FAILED && !crash.why.test(textOf(now.status?.message))) return `${where}: FAILED without "${crash.what}": ${json(now)}`;
  if (now.history.length < said.history.length) return `${where}: history shrank from ${said.history.length} to ${now.history.length}`;
  for (let i = 0; i < said.history.length; i++) {
    if (!equals(MessageSchema, said.history[i]!, now.history[i]!)) return `${where}: history entry ${i} changed`;
  }
  for (const m of now.history.slice(said.history.length)) {
    // Growth only by the client's own follow-ups or the agent's status messages.
    if (m.role === Role.USER && !mine.has(m.messageId)) return `${where}: history gained a user message the client did not send (${m.messageId})`;
  }
  return undefined;
}

const json = (t: Task): string => JSON.stringify(toJson(TaskSchema, t)).slice(0, 600);

/** A task the load may cancel; a short run may have completed first. */
export interface Cancelable {
  readonly id: string;
  readonly mayComplete: boolean;
}

/**
 * CancelTask on the oldest of `pool` (which leaves it), noted in
 * `cancelSent` before it is sent; the answer is handed to `acknowledge`.
 * §3.1.5: a refusal as not cancelable stands only where `mayEndFirst`
 * allows it and the task really is terminal. False when the pool is empty.
 */
export async function cancelNext(
  client: HubClient,
  pool: Cancelable[],
  cancelSent: Set<string>,
  mayEndFirst: (target: Cancelable) => boolean,
  acknowledge: (task: Task, target: Cancelable) => void,
): Promise<boolean> {
  const target = pool.shift();
  if (!target) return false;
  cancelSent.add(target.id);
  try {
    acknowledge(await client.cancel(target.id), target);
  } catch (e) {
    if (!(refusedAs(e, "TaskNotCancelable") && mayEndFirst(target))) throw e;
    const now = await client.get(target.id);
    if (!TERMINAL.has(now.status?.state ?? TaskState.UNSPECIFIED)) throw new Error(`cancel of ${target.id} was refused as not cancelable, but it is ${TaskState[now.status?.state ?? 0]}`);
  }
  return true;
}
