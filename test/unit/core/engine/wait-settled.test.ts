import { create } from "@bufbuild/protobuf";
import { describe, expect, it } from "vitest";
import { StreamResponseSchema, TaskState } from "../../../../gen/a2a/v1/a2a_pb.js";
import { taskKey } from "../../../../src/core/engine/run.js";
import type { BusEvent } from "../../../../src/core/engine/task-writer.js";
import { waitSettled } from "../../../../src/core/engine/wait-settled.js";
import { EventBus } from "../../../../src/execution/index.js";
import type { TaskHead, TaskStore } from "../../../../src/store/index.js";

/**
 * A blocking send waits for its task to settle (§3.2.2). The wait asks for
 * the call's signal only once it finds the task unsettled: reading a call's
 * signal makes it (core/handler-context.ts), and most blocking sends find
 * their task settled already.
 */
describe("waiting for a task to settle", () => {
  const scope = { tenant: "t", agentId: "a" };
  const key = taskKey(scope, "task-1");
  const head = (state: TaskState): TaskHead => ({ id: "task-1", contextId: "c", state, lastSeq: 1 });
  const storeOf = (getHead: () => TaskHead | undefined | Promise<TaskHead | undefined>) => ({ getHead }) as unknown as TaskStore;
  const event = (settled: boolean): BusEvent => ({ seq: 2, event: create(StreamResponseSchema), settled });

  it("resolves at once for a settled task, and never asks for the signal", async () => {
    const bus = new EventBus<BusEvent>();
    let asked = 0;
    const signal = () => {
      asked++;
      return new AbortController().signal;
    };
    for (const state of [TaskState.COMPLETED, TaskState.INPUT_REQUIRED]) {
      await waitSettled({ bus, store: storeOf(() => head(state)), stopping: false, scope, taskId: "task-1", signal });
    }
    expect(asked).toBe(0);
    bus.publish(key, event(true));
  });

  it("waits for an unsettled task until the bus says settled, listening to the signal meanwhile and no longer after", async () => {
    const bus = new EventBus<BusEvent>();
    const controller = new AbortController();
    let asked = 0;
    let settled = false;
    const wait = waitSettled({ bus, store: storeOf(() => head(TaskState.WORKING)), stopping: false, scope, taskId: "task-1", signal: () => (asked++, controller.signal) }).then(() => (settled = true));
    expect(asked).toBe(1);
    bus.publish(key, event(false));
    await new Promise((r) => setImmediate(r));
    expect(settled).toBe(false);
    bus.publish(key, event(true));
    await wait;
    // Aborting afterwards changes nothing: the listener is gone.
    controller.abort(new Error("late"));
  });

  it("rejects with the signal's reason when the client goes first, also when it went before the wait asked", async () => {
    const bus = new EventBus<BusEvent>();
    const controller = new AbortController();
    const working = storeOf(() => head(TaskState.WORKING));
    const wait = waitSettled({ bus, store: working, stopping: false, scope, taskId: "task-1", signal: () => controller.signal });
    controller.abort(new Error("client gone"));
    await expect(wait).rejects.toThrow("client gone");
    await expect(waitSettled({ bus, store: working, stopping: false, scope, taskId: "task-1", signal: controller.signal })).rejects.toThrow("client gone");
  });

  it("hears a transition committed while a networked store's read is under way", async () => {
    const bus = new EventBus<BusEvent>();
    let answer: (h: TaskHead) => void = () => {};
    const slow = storeOf(() => new Promise<TaskHead>((r) => (answer = r)));
    const wait = waitSettled({ bus, store: slow, stopping: false, scope, taskId: "task-1", signal: () => undefined });
    bus.publish(key, event(true));
    // The read answers with what it saw before the transition: the wait has already ended on the bus.
    answer(head(TaskState.WORKING));
    await wait;
  });
});
