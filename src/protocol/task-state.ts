import { TaskState } from "../../gen/a2a/v1/a2a_pb.js";

/** §4.1.3: the states that end a task. */
export const TERMINAL_STATES: readonly TaskState[] = [TaskState.COMPLETED, TaskState.FAILED, TaskState.CANCELED, TaskState.REJECTED];
/** §3.2.2: the states that pause a task for the client. */
export const INTERRUPTED_STATES: readonly TaskState[] = [TaskState.INPUT_REQUIRED, TaskState.AUTH_REQUIRED];
const TERMINAL = new Set<TaskState>(TERMINAL_STATES);
const INTERRUPTED = new Set<TaskState>(INTERRUPTED_STATES);

/** §4.1.3: COMPLETED, FAILED, CANCELED and REJECTED end a task for good (an absent state is UNSPECIFIED, which does not). */
export function isTerminal(state: TaskState | undefined): boolean {
  return state !== undefined && TERMINAL.has(state);
}

/** §3.2.2: INPUT_REQUIRED and AUTH_REQUIRED pause a task until the client answers. */
export function isInterrupted(state: TaskState): boolean {
  return INTERRUPTED.has(state);
}

/** A blocking send returns, and a stream ends, once a task is terminal or interrupted (§3.2.2). */
export function isSettled(state: TaskState): boolean {
  return TERMINAL.has(state) || INTERRUPTED.has(state);
}

/**
 * How a state is spelt where people or machines read it: the proto enum
 * name, for messages and the wire ("TASK_STATE_INPUT_REQUIRED"); short, for
 * the console's badges ("INPUT_REQUIRED"); kebab, for the command line
 * ("input-required"); snake, for metric labels ("input_required").
 */
export type StateSpelling = "enum" | "short" | "kebab" | "snake";

/** The name of a state in one spelling; an absent state is UNSPECIFIED, a number the enum lacks is that number. */
export function stateName(state: TaskState | undefined, spelling: StateSpelling = "enum"): string {
  const short = TaskState[state ?? TaskState.UNSPECIFIED] ?? String(state);
  switch (spelling) {
    case "enum":
      return `TASK_STATE_${short}`;
    case "short":
      return short;
    case "kebab":
      return short.toLowerCase().replace(/_/g, "-");
    case "snake":
      return short.toLowerCase();
  }
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
