import type { HandlerContext } from "@connectrpc/connect";
import type { GetTaskRequest, Task } from "../../../gen/a2a/v1/a2a_pb.js";
import { invalidParams, taskNotFound } from "../../protocol/index.js";
import { resolveCall } from "../resolve-call.js";
import type { CoreDeps } from "../core-deps.js";
import { checkHistoryLength } from "../validate.js";

/** §3.1.3: the task with its artifacts and, per §3.2.4, its recent history. */
export async function getTask(deps: CoreDeps, ctx: HandlerContext, req: GetTaskRequest): Promise<Task> {
  const { scope } = resolveCall(deps, ctx, req.tenant);
  if (!req.id) throw invalidParams("id", "is required");
  checkHistoryLength("historyLength", req.historyLength);
  return deps.store.getTask(scope, req.id, { historyLength: req.historyLength }) ?? Promise.reject(taskNotFound(req.id));
}
