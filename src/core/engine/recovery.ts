/**
 * What a previous process left in flight. Kept apart because it runs once,
 * at start, and answers to the store's view of every scope, not to a run.
 */
import { TaskState } from "../../../gen/a2a/v1/a2a_pb.js";
import type { Fleet, OrphanTask, TaskStore } from "../../store/index.js";
import type { Logger } from "../logger.js";
import { systemMessage } from "./run.js";
import type { TaskWriter } from "./task-writer.js";

/**
 * Tasks a previous process left SUBMITTED or WORKING cannot be resumed:
 * their agent runs died with it. They end FAILED, saying why.
 */
export async function recoverInFlight(deps: StrandedDeps): Promise<number> {
  // In a fleet the start is the replica's first sweep (the store's inFlight claims orphans of whichever replica
  // stopped, not this process's own tasks): they are failed as every sweep fails them (docs/postgres-fleet.md).
  if (deps.store.fleet) return failStranded(deps, await deps.store.inFlight(), STOPPED, STOPPED_LOG);
  return failStranded(deps, await deps.store.inFlight(), "The server restarted while this task was in flight; it did not finish.", "failed tasks left in flight by the previous process");
}

/** Why a swept task failed, and the log line of a sweep that failed some. */
const STOPPED = "The server that ran this task stopped while it was in flight; it did not finish.";
const STOPPED_LOG = "failed tasks left in flight by a replica that stopped";

/**
 * Tasks in flight on a replica of the fleet that stopped renewing its lease
 * (it died, or lost the database): claimed by this replica's sweep and
 * failed as a restart fails them on a single hub.
 */
export async function sweepOrphans(deps: StrandedDeps, fleet: Fleet): Promise<number> {
  return failStranded(deps, await fleet.sweep(), STOPPED, STOPPED_LOG);
}

interface StrandedDeps {
  readonly store: TaskStore;
  readonly writer: TaskWriter;
  readonly logger: Logger;
}

function failStranded(deps: StrandedDeps, stranded: readonly OrphanTask[], why: string, logLine: string): number {
  for (const t of stranded) deps.writer.writeStatus(t, { state: TaskState.FAILED, message: systemMessage(t, why) });
  if (stranded.length > 0) deps.logger.warn(logLine, { count: stranded.length });
  return stranded.length;
}
