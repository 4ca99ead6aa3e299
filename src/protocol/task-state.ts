import { TaskState } from "../../gen/a2a/v1/a2a_pb.js";

/** §4.1.3: the states that end a task. */
export const TERMINAL_STATES: readonly TaskState[] = [TaskState.COMPLETED, TaskState.FAILED, TaskState.CANCELED, TaskState.REJECTED];
/** §3.2.2: the states that pause a task for the client. */
export const INTERRUPTED_STATES: readonly TaskState[] = [TaskState.INPUT_REQUIRED, TaskState.AUTH_REQUIRED];
const TERMINAL = new Set<TaskState>(TERMINAL_STATES);
const INTERRUPTED = new Set<TaskState>(INTERRUPTED_STATES);

/** §4.1.3: COMPLETED, FAILED, CANCELED and REJECTED end a task for good. */
export function isTerminal(state: TaskState): boolean {
  return TERMINAL.has(state);
}

/** §3.2.2: INPUT_REQUIRED and AUTH_REQUIRED pause a task until the client answers. */
export function isInterrupted(state: TaskState): boolean {
  return INTERRUPTED.has(state);
}

/** A blocking send returns, and a stream ends, once a task is terminal or interrupted (§3.2.2). */
export function isSettled(state: TaskState): boolean {
  return TERMINAL.has(state) || INTERRUPTED.has(state);
}

/** The enum name of a state, for messages: "TASK_STATE_WORKING". */
export function stateName(state: TaskState): string {
  return `TASK_STATE_${TaskState[state] ?? String(state)}`;
}

/**
 * Whether a task may move from `from` to `to`. Terminal states are final;
 * UNSPECIFIED is never a state; SUBMITTED is only where a task starts.
 * Repeating a non-terminal state is allowed (a progress message while working).
 */
export function canTransition(from: TaskState, to: TaskState): boolean {
  if (isTerminal(from)) return false;
  if (to === TaskState.UNSPECIFIED || TaskState[to] === undefined) return false;
  if (to === TaskState.SUBMITTED) return from === TaskState.SUBMITTED;
  return true;
}
