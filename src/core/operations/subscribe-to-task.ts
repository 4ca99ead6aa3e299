import type { HandlerContext } from "@connectrpc/connect";
import { create } from "@bufbuild/protobuf";
import { StreamResponseSchema, type SubscribeToTaskRequest } from "../../../gen/a2a/v1/a2a_pb.js";
import { A2AError, invalidParams, taskNotFound } from "../../protocol/index.js";
import type { SequencedEvent } from "../a2a-handlers.js";
import { resolveCall } from "../resolve-call.js";
import { requireStreaming } from "../capabilities.js";
import type { CoreDeps } from "../core-deps.js";
import { clientError } from "../store-outage.js";
import { isTerminal, stateName } from "../../protocol/index.js";
import { follow, listen, logPager } from "../task-stream.js";

/**
 * §3.1.6: the current Task, then every later event until the task is
 * terminal or interrupted. With `afterSeq` (an SSE Last-Event-ID), the
 * logged events after it replace the snapshot, so a reconnecting client
 * gets exactly what it missed, then the live tail.
 */
export async function* subscribeToTask(deps: CoreDeps, ctx: HandlerContext, req: SubscribeToTaskRequest, afterSeq?: number): AsyncGenerator<SequencedEvent> {
  const call = resolveCall(deps, ctx, req.tenant);
  const release = deps.streams.acquire(call.scope.tenant);
  try {
    yield* subscribe(deps, ctx, req, call, afterSeq);
  } catch (e) {
    // A stream read from an unreachable store ends UNAVAILABLE, not Internal.
    throw clientError(e);
  } finally {
    release();
  }
}

async function* subscribe(
  deps: CoreDeps,
  ctx: HandlerContext,
  req: SubscribeToTaskRequest,
  { scope, agent }: ReturnType<typeof resolveCall>,
  afterSeq?: number,
): AsyncGenerator<SequencedEvent> {
  requireStreaming(agent);
  if (!req.id) throw invalidParams("id", "is required");
  if (afterSeq !== undefined && (!Number.isSafeInteger(afterSeq) || afterSeq < 0)) throw invalidParams("Last-Event-ID", "must be an event sequence number");
  const head = await deps.store.getHead(scope, req.id);
  if (!head) throw taskNotFound(req.id);
  if (afterSeq === undefined && isTerminal(head.state)) {
    throw new A2AError("UnsupportedOperation", `task ${req.id} is ${stateName(head.state)}; there is nothing to subscribe to`, { metadata: { taskId: req.id } });
  }
  // Listen before reading: nothing is lost between them, and what both hold is skipped by seq.
  const queue = listen(deps.engine, scope, req.id, deps.limits, ctx);
  const log = logPager(deps.store, scope, req.id);
  let snap;
  try {
    if (afterSeq !== undefined) {
      // The log is read a page at a time, however much was missed.
      if (isTerminal(head.state) && (await log(afterSeq)).length === 0) {
        queue.close();
        return;
      }
      yield* follow(queue, { log, replayAfter: afterSeq, work: deps.engine.work }, ctx.signal);
      return;
    }
    snap = await deps.store.snapshot(scope, req.id);
  } catch (e) {
    queue.close();
    throw e;
  }
  if (!snap) {
    queue.close();
    throw taskNotFound(req.id);
  }
  // The task may have ended since the head was read (a networked store reads them in two round trips, and
  // another replica may have written the end meanwhile): then the snapshot is its last word, and no event follows.
  const first = { seq: snap.seq, event: create(StreamResponseSchema, { payload: { case: "task", value: snap.task } }), settled: isTerminal(snap.task.status?.state ?? head.state) };
  yield* follow(queue, { head: [first], log, work: deps.engine.work }, ctx.signal);
}
