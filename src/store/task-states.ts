import { TaskState } from "../../gen/a2a/v1/a2a_pb.js";
import { TERMINAL_STATES } from "../protocol/index.js";

/**
 * The states a task is in flight in (§3.2.2: submitted or worked on, its
 * run not settled), named once for both stores' code and SQL: a run holds
 * such a task, start-up recovery fails the ones a dead process left, and a
 * fleet's sweep claims the ones whose replica died.
 */
export const IN_FLIGHT_STATES: readonly TaskState[] = [TaskState.SUBMITTED, TaskState.WORKING];

const IN_FLIGHT = new Set<TaskState>(IN_FLIGHT_STATES);

/** Whether a task in this state may still be running (a run holds it). */
export function isInFlight(state: TaskState): boolean {
  return IN_FLIGHT.has(state);
}

/** A list of states as SQL integer literals, for `state IN (...)`: the enum's numbers, the same in both stores. */
function sqlList(states: readonly TaskState[]): string {
  return states.map((s) => String(Number(s))).join(", ");
}

/** `IN_FLIGHT_STATES` for SQL: `state IN (${IN_FLIGHT_SQL})`. */
export const IN_FLIGHT_SQL = sqlList(IN_FLIGHT_STATES);

/** §4.1.3's terminal states for SQL: `state IN (${TERMINAL_SQL})`. */
export const TERMINAL_SQL = sqlList(TERMINAL_STATES);
