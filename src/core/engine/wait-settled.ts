/**
 * Waiting for a task to settle (terminal or interrupted, §3.2.2), as a
 * blocking send does. Kept apart because its correctness rests on one
 * detail: the bus is listened to before the store is read.
 */
import type { EventBus } from "../../execution/index.js";
import type { StoreScope, TaskHead, TaskStore } from "../../store/index.js";
import { isSettled } from "../../protocol/index.js";
import { taskKey } from "./run.js";
import type { BusEvent } from "./task-writer.js";

export interface SettledWait {
  readonly bus: EventBus<BusEvent>;
  readonly store: TaskStore;
  /** The engine is stopping: nothing will settle the task any more, so nobody waits. */
  readonly stopping: boolean;
  readonly scope: StoreScope;
  readonly taskId: string;
  /**
   * Ends the wait when aborted; or what gives it, asked only once the task
   * is found unsettled: a call's signal is made on first read
   * (core/handler-context.ts), and most blocking sends find their task
   * settled already (an agent that finished in the turn it started).
   */
  readonly signal?: AbortSignal | (() => AbortSignal | undefined);
}

/**
 * Resolves once the task is terminal or interrupted. The bus is listened
 * to before the store is read, so a transition committed while the read is
 * under way (a networked store answers later) is heard, not slipped.
 */
export function waitSettled(wait: SettledWait): Promise<void> {
  const { bus, store, scope, taskId } = wait;
  return new Promise((resolve, reject) => {
    let ended = false;
    let signal: AbortSignal | undefined;
    const end = (): boolean => {
      if (ended) return false;
      ended = true;
      unsubscribe();
      signal?.removeEventListener("abort", onAbort);
      return true;
    };
    const done = (): void => {
      if (end()) resolve();
    };
    const fail = (e: unknown): void => {
      if (end()) reject(e);
    };
    const onAbort = (): void => fail(signal?.reason ?? new Error("aborted"));
    const unsubscribe = bus.subscribe(taskKey(scope, taskId), (e) => (e.lost !== undefined ? fail(e.lost) : e.settled && done()));
    const settledNow = (head: TaskHead | undefined): void => {
      if (!head || isSettled(head.state) || wait.stopping) return done();
      if (ended) return;
      signal = typeof wait.signal === "function" ? wait.signal() : wait.signal;
      if (signal?.aborted) return onAbort();
      signal?.addEventListener("abort", onAbort, { once: true });
    };
    const head = store.getHead(scope, taskId);
    if (head instanceof Promise) head.then(settledNow, fail);
    else settledNow(head);
  });
}
