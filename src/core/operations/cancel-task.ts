import type { HandlerContext } from "@connectrpc/connect";
import { TaskState, type CancelTaskRequest, type Task } from "../../../gen/a2a/v1/a2a_pb.js";
import { A2AError, invalidParams, taskNotFound } from "../../protocol/index.js";
import { resolveCall } from "../resolve-call.js";
import type { CoreDeps } from "../core-deps.js";
import { isTerminal, stateName } from "../../protocol/index.js";

/** §3.1.5: a working or interrupted task ends CANCELED; §3.3.1: canceling it again returns it. */
export async function cancelTask(deps: CoreDeps, ctx: HandlerContext, req: CancelTaskRequest): Promise<Task> {
  const { scope, agent } = resolveCall(deps, ctx, req.tenant);
  if (!req.id) throw invalidParams("id", "is required");
  const head = await deps.store.getHead(scope, req.id);
  if (!head) throw taskNotFound(req.id);
  if (isTerminal(head.state) && head.state !== TaskState.CANCELED) {
    throw new A2AError("TaskNotCancelable", `task ${req.id} is ${stateName(head.state)} and cannot be canceled`, { metadata: { taskId: req.id } });
  }
  if (head.state !== TaskState.CANCELED) {
    await deps.engine.cancel(scope, agent, req.id, head.contextId);
    // Read once CANCELED is committed: a networked store shows no uncommitted write.
    await deps.engine.work.durable();
  }
  const task = await deps.store.getTask(scope, req.id);
  if (!task) throw taskNotFound(req.id);
  return task;
}
