import { Code, ConnectError } from "@connectrpc/connect";
import { isA2AError } from "../core/index.js";

/** The outcome label of a successful call. */
export const OK = "ok";

/**
 * The outcome of a failed call as a bounded label: the A2A error name
 * (§3.3.2, e.g. TaskNotFound), a connect code name for transport-level
 * failures (Canceled, DeadlineExceeded), else Internal.
 */
export function outcomeOf(e: unknown): string {
  if (isA2AError(e)) return e.a2a;
  if (e instanceof ConnectError) return Code[e.code] ?? "Internal";
  return "Internal";
}

interface IdSource {
  readonly $typeName?: string;
  readonly id?: string;
  readonly taskId?: string;
  readonly contextId?: string;
  readonly message?: { readonly taskId?: string; readonly contextId?: string };
  readonly payload?: { readonly case?: string; readonly value?: unknown };
}

/** Requests whose `id` is the task's (other requests' `id` names a push config). */
const TASK_ID_REQUESTS = new Set(["lf.a2a.v1.GetTaskRequest", "lf.a2a.v1.CancelTaskRequest", "lf.a2a.v1.SubscribeToTaskRequest", "lf.a2a.v1.Task"]);

/** Task and context ids a call names or answers with: a request, a Task, a SendMessageResponse or a StreamResponse. */
export function idsOf(x: unknown, into: { taskId?: string; contextId?: string }): void {
  if (typeof x !== "object" || x === null) return;
  const m = x as IdSource;
  const p = m.payload;
  if (p?.case !== undefined && typeof p.value === "object") return idsOf(p.value, into);
  const taskId = m.taskId || m.message?.taskId || (TASK_ID_REQUESTS.has(m.$typeName ?? "") ? m.id : undefined);
  const contextId = m.contextId || m.message?.contextId;
  if (taskId) into.taskId ??= taskId;
  if (contextId) into.contextId ??= contextId;
}
