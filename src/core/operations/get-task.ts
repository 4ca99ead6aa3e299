import type { HandlerContext } from "@connectrpc/connect";
import type { GetTaskRequest, Task } from "../../../gen/a2a/v1/a2a_pb.js";
import { invalidParams, taskNotFound } from "../../protocol/index.js";
import { serviceParamsKey } from "../call-context.js";
import { withDeliveryState, PUSH_DELIVERY_STATE_URI } from "../push-delivery-extension.js";
import { activatedExtensions, resolveCall } from "../resolve-call.js";
import type { CoreDeps } from "../core-deps.js";
import { checkHistoryLength } from "../validate.js";

/** §3.1.3: the task with its artifacts and, per §3.2.4, its recent history. */
export async function getTask(deps: CoreDeps, ctx: HandlerContext, req: GetTaskRequest): Promise<Task> {
  const { scope, agent } = resolveCall(deps, ctx, req.tenant);
  if (!req.id) throw invalidParams("id", "is required");
  checkHistoryLength("historyLength", req.historyLength);
  const task = await deps.store.getTask(scope, req.id, { historyLength: req.historyLength });
  if (!task) throw taskNotFound(req.id);
  // §4.6: only a client that activated the extension sees the delivery records; the others get the Task as stored.
  if (deps.store.pushDeliveryState && activatedExtensions(agent, ctx.values.get(serviceParamsKey).extensions).includes(PUSH_DELIVERY_STATE_URI)) {
    return withDeliveryState(task, await deps.store.pushDeliveryState(scope, req.id));
  }
  return task;
}
