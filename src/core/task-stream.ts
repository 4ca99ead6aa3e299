import { create } from "@bufbuild/protobuf";
import { StreamResponseSchema } from "../../gen/a2a/v1/a2a_pb.js";
import type { HandlerContext } from "@connectrpc/connect";
import type { StoreScope, TaskStore } from "../store/index.js";
import { EventQueue } from "../execution/index.js";
import type { SequencedEvent } from "./a2a-handlers.js";
import type { CoreLimits } from "./core-deps.js";
import { busEvent, type BusEvent, type TaskEngine, type UnitOfWork } from "./engine/index.js";
import { overflowDropKey } from "./call-context.js";

/** The limits a stream's live tail is kept within. */
export type StreamLimits = Pick<CoreLimits, "streamBufferEvents" | "streamStallMs">;

/** What wakes a waiting reader to catch up from the log: seq 0 precedes every event, so it is skipped. */
const CATCH_UP: BusEvent = { seq: 0, event: create(StreamResponseSchema), settled: false };

/** Logged events read per page when a stream catches up from the log: its memory bound. */
const LOG_PAGE = 256;

/** Reads a task's logged events after a sequence number, one bounded page at a time. */
export type LogPager = (afterSeq: number) => Promise<BusEvent[]>;

/** The pager of one task's event log. */
export function logPager(store: TaskStore, scope: StoreScope, taskId: string): LogPager {
  return async (afterSeq) => (await store.eventsAfter(scope, taskId, afterSeq, LOG_PAGE)).map(busEvent);
}

/**
 * Starts listening to a task's live events. Call it before the store read
 * the stream begins with (snapshot or log replay): every event committed
 * after the read began reaches the queue, and what the read and the queue
 * both hold is skipped by seq, so the log and the live tail meet (§3.1.6).
 */
export function listen(engine: TaskEngine, scope: StoreScope, taskId: string, limits: StreamLimits, ctx: HandlerContext): EventQueue<BusEvent> {
  // A reader that falls streamBufferEvents behind costs no more memory: its
  // buffer is dropped and it catches up from the event log (see follow).
  // One that has stopped reading fails the queue, and its transport (the
  // call's) is dropped; it may resume with Last-Event-ID (§3.1.6).
  const queue = new EventQueue<BusEvent>(limits.streamBufferEvents, {
    lag: { stallMs: limits.streamStallMs },
    onOverflow: ctx.values.get(overflowDropKey),
  });
  const unsubscribe = engine.bus.subscribe(engine.key(scope, taskId), (e) => queue.push(e));
  const untrack = engine.trackStream({
    close: () => queue.close(),
    depth: () => queue.depth,
    catchUp: () => queue.requestCatchUp(CATCH_UP),
  });
  queue.whenClosed(() => {
    unsubscribe();
    untrack();
  });
  return queue;
}

/**
 * Resolves in the next turn of the event loop. A live event that ends a
 * stream reaches every subscriber of the task in one pass (a CancelTask
 * with 10,000 of them); the frames are sent once that pass returns to the
 * event loop (HTTP/2 sessions flush then). Ending the streams (trailers,
 * unsubscribing, the request's log line) waits until after, so it does
 * not hold back the event it follows (§3.1.6: the terminal status is the
 * last event, and what every subscriber is waiting for).
 */
function lastOneOut(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/** Where a stream's events come from besides its live queue. */
export interface FollowFrom {
  /** Events to yield first: a snapshot or replayed log entries. */
  readonly head?: readonly BusEvent[];
  /** The task's log, read when the queue lagged (and from `replayAfter`). */
  readonly log: LogPager;
  /** Replay the log after this seq before the live tail (Last-Event-ID). */
  readonly replayAfter?: number;
  /** The writes the head and the log were read among: an event read from them leaves once they are durable. */
  readonly work: UnitOfWork;
}

/**
 * Yields the head, then every event newer than the last one yielded, live
 * from the queue or, when the reader fell behind, from the log; ends after
 * the first event that leaves the task terminal or interrupted (§3.1.2,
 * §3.1.6). Aborting `signal` (the client went away) ends it at once and
 * drops the subscription.
 */
export async function* follow(queue: EventQueue<BusEvent>, from: FollowFrom, signal?: AbortSignal): AsyncGenerator<SequencedEvent> {
  const onAbort = (): void => queue.close();
  signal?.addEventListener("abort", onAbort, { once: true });
  try {
    if (signal?.aborted) return;
    let last = from.replayAfter ?? 0;
    for (const e of from.head ?? []) {
      // Read from the store, perhaps inside the open unit of work: told only once committed.
      if (from.work.isOpen) await from.work.durable();
      yield { seq: e.seq, event: e.event };
      last = Math.max(last, e.seq);
      if (e.settled) return;
    }
    let replay = from.replayAfter !== undefined;
    for (;;) {
      // The queue discarded what it held: the log has all of it (events are
      // announced only after they commit), and what the queue gets from now
      // on is newer or repeats what the log gives (skipped by seq).
      if (queue.takeLag()) replay = true;
      if (replay) {
        replay = false;
        for (;;) {
          const page = await from.log(last);
          for (const e of page) {
            if (e.seq <= last) continue;
            last = e.seq;
            if (from.work.isOpen) await from.work.durable();
            yield { seq: e.seq, event: e.event };
            queue.noteProgress();
            if (e.settled) return;
          }
          if (page.length < LOG_PAGE) break;
        }
        continue;
      }
      const r = await queue.next();
      if (r.done) return;
      const e = r.value;
      // Writes to the task were lost: what follows them will not be told here (lost-writes.ts).
      if (e.lost !== undefined) throw e.lost;
      if (e.seq <= last) continue;
      last = e.seq;
      yield { seq: e.seq, event: e.event };
      if (e.settled) {
        await lastOneOut();
        return;
      }
    }
  } finally {
    signal?.removeEventListener("abort", onAbort);
    queue.close();
  }
}
