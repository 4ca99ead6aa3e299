/**
 * What a previous process left in flight. Kept apart because it runs once,
 * at start, and answers to the store's view of every scope, not to a run.
 */
import { TaskState } from "../../../gen/a2a/v1/a2a_pb.js";
import type { TaskStore } from "../../store/index.js";
import type { Logger } from "../logger.js";
import { systemMessage } from "./run.js";
import type { TaskWriter } from "./task-writer.js";

/**
 * Tasks a previous process left SUBMITTED or WORKING cannot be resumed:
 * their agent runs died with it. They end FAILED, saying why.
 */
export async function recoverInFlight(deps: { readonly store: TaskStore; readonly writer: TaskWriter; readonly logger: Logger }): Promise<number> {
  const stranded = await deps.store.inFlight();
  for (const t of stranded) {
    const message = systemMessage(t, "The server restarted while this task was in flight; it did not finish.");
    deps.writer.writeStatus(t, { state: TaskState.FAILED, message });
  }
  if (stranded.length > 0) deps.logger.warn("failed tasks left in flight by the previous process", { count: stranded.length });
  return stranded.length;
}
