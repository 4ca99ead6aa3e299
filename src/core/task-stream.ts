import type { StoreScope } from "../store/index.js";
import { EventQueue } from "../execution/index.js";
import type { SequencedEvent } from "./a2a-handlers.js";
import type { BusEvent, TaskEngine } from "./task-engine.js";


/**
 * Starts listening to a task's live events. Call it in the same tick as the
 * store read that the stream begins with (snapshot or log replay), so the
 * log and the live tail meet at one sequence number (§3.1.6).
 */
export function listen(engine: TaskEngine, scope: StoreScope, taskId: string, bufferLimit: number): EventQueue<BusEvent> {
  // A reader that stops reading must not grow memory without bound: past the
  // limit its stream fails (it may resume with Last-Event-ID, §3.1.6).
  const queue = new EventQueue<BusEvent>(bufferLimit);
  const unsubscribe = engine.bus.subscribe(engine.key(scope, taskId), (e) => queue.push(e));
  const untrack = engine.trackStream(queue);
  queue.whenClosed(() => {
    unsubscribe();
    untrack();
  });
  return queue;
}

/**
 * Yields `head` (a snapshot or replayed log entries), then live events newer
 * than the last one yielded, and ends after the first event that leaves the
 * task terminal or interrupted (§3.1.2, §3.1.6). Aborting `signal` (the
 * client went away) ends it at once and drops the subscription.
 */
export async function* follow(queue: EventQueue<BusEvent>, head: readonly BusEvent[], signal?: AbortSignal): AsyncGenerator<SequencedEvent> {
  const onAbort = (): void => queue.close();
  signal?.addEventListener("abort", onAbort, { once: true });
  try {
    if (signal?.aborted) return;
    let last = 0;
    for (const e of head) {
      yield { seq: e.seq, event: e.event };
      last = Math.max(last, e.seq);
      if (e.settled) return;
    }
    for await (const e of queue) {
      if (e.seq <= last) continue;
      last = e.seq;
      yield { seq: e.seq, event: e.event };
      if (e.settled) return;
    }
  } finally {
    signal?.removeEventListener("abort", onAbort);
    queue.close();
  }
}
