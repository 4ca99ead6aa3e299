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

/** The exit code of a task's state. */
export function exitCodeOf(state: TaskState | undefined): number {
  switch (state) {
    case TaskState.COMPLETED:
      return EXIT.ok;
    case TaskState.FAILED:
      return EXIT.failed;
    case TaskState.CANCELED:
      return EXIT.canceled;
    case TaskState.REJECTED:
      return EXIT.rejected;
    case TaskState.INPUT_REQUIRED:
      return EXIT.inputRequired;
    case TaskState.AUTH_REQUIRED:
      return EXIT.authRequired;
    default:
      return EXIT.unfinished;
  }
}
