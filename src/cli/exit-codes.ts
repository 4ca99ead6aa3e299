import { TaskState } from "../../gen/a2a/v1/a2a_pb.js";

/**
 * What `a2a-hub` exits with (README "The a2a-hub command"): 0 when a task
 * completed (or the agent answered with a message, or the command had no
 * task to report on), a code per other final state, and 1 and 2 for
 * requests that failed and for usage errors.
 */
export const EXIT = {
  ok: 0,
  /** The request failed: an A2A error, or the agent could not be reached. */
  error: 1,
  /** Bad command line or configuration (the hub did not start). */
  usage: 2,
  failed: 3,
  canceled: 4,
  rejected: 5,
  inputRequired: 6,
  authRequired: 7,
  /** The task is still SUBMITTED or WORKING (e.g. `send --no-wait`, or a stream that broke off). */
  unfinished: 8,
} as const;

/** The exit code of each final or interrupted state; any other state (or none) is EXIT.unfinished. */
const EXIT_OF_STATE: Readonly<Partial<Record<TaskState, number>>> = {
  [TaskState.COMPLETED]: EXIT.ok,
  [TaskState.FAILED]: EXIT.failed,
  [TaskState.CANCELED]: EXIT.canceled,
  [TaskState.REJECTED]: EXIT.rejected,
  [TaskState.INPUT_REQUIRED]: EXIT.inputRequired,
  [TaskState.AUTH_REQUIRED]: EXIT.authRequired,
};

/** The exit code of a task's state. */
export function exitCodeOf(state: TaskState | undefined): number {
  return (state === undefined ? undefined : EXIT_OF_STATE[state]) ?? EXIT.unfinished;
}
