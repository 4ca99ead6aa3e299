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
  readonly signal?: AbortSignal;
}

/**
 * Resolves once the task is terminal or interrupted. The bus is listened
 * to before the store is read, so a transition committed while the read is
 * under way (a networked store answers later) is heard, not slipped.
 */
export function waitSettled(wait: SettledWait): Promise<void> {
  const { bus, store, scope, taskId, signal } = wait;
  return new Promise((resolve, reject) => {
    const key = taskKey(scope, taskId);
    let unsubscribe = (): void => {};
    const onAbort = (): void => {
      unsubscribe();
      reject(signal?.reason ?? new Error("aborted"));
    };
    const fail = (e: unknown): void => {
      unsubscribe();
      signal?.removeEventListener("abort", onAbort);
      reject(e);
    };
    const done = (): void => {
      unsubscribe();
      signal?.removeEventListener("abort", onAbort);
      resolve();
    };
    unsubscribe = bus.subscribe(key, (e) => (e.lost !== undefined ? fail(e.lost) : e.settled && done()));
    if (signal?.aborted) return onAbort();
    signal?.addEventListener("abort", onAbort, { once: true });
    const settledNow = (head: TaskHead | undefined): void => {
      if (!head || isSettled(head.state) || wait.stopping) done();
    };
    const head = store.getHead(scope, taskId);
    if (head instanceof Promise) head.then(settledNow, (e: unknown) => fail(e));
    else settledNow(head);
  });
}
