/**
 * Tasks whose writes a failed unit of work dropped (the store could not be
 * reached, or refused the unit). Kept apart because it is the one part of
 * the engine that retries against a store that may still be down.
 *
 * What the task's run published since the failed unit is not stored, and
 * a networked store no longer knows the task's last seq (it forgets what a
 * failed unit touched), so the run cannot go on: it is aborted, and once
 * it has returned the task is read again and ended FAILED, unless it is
 * settled already (the unit may have committed before the connection
 * broke) or a new run has it. Without this, a task whose commit failed
 * would stay WORKING with nothing running it, and a blocking send waiting
 * for it would never be answered (§3.2.2: a client must be able to act on
 * the state it finds). Its waiters are told at once: a blocking send and
 * a stream end with the failed unit's error (UNAVAILABLE when the store
 * was unreachable), and the task can be read once the store is back.
 */
import { setTimeout as sleep } from "node:timers/promises";
import { create } from "@bufbuild/protobuf";
import { StreamResponseSchema, TaskState } from "../../../gen/a2a/v1/a2a_pb.js";
import type { EventBus } from "../../execution/index.js";
import type { TaskStore } from "../../store/index.js";
import { isSettled } from "../../protocol/index.js";
import type { Logger } from "../logger.js";
import type { UnitOfWork } from "./unit-of-work.js";
import type { RunRegistry } from "./run-registry.js";
import { systemMessage, taskKey, type TaskAddress } from "./run.js";
import { LogWindow, OUTAGE_LOG_WINDOW_MS } from "../log-window.js";
import type { BusEvent, TaskWriter } from "./task-writer.js";

/** The first retry comes soon (a blip); later ones back off to one every few seconds while the store stays down. */
const FIRST_RETRY_MS = 200;
const MAX_RETRY_MS = 2_000;

export interface LostWritesDeps {
  readonly runs: RunRegistry;
  readonly store: TaskStore;
  readonly writer: TaskWriter;
  readonly work: UnitOfWork;
  /** Where the task's waiters (blocking sends, streams) are told at once. */
  readonly bus: EventBus<BusEvent>;
  readonly logger: Logger;
  /** A stopping engine leaves what it could not settle to the restart recovery (or a surviving replica's sweep). */
  readonly stopping: () => boolean;
}

export class LostWrites {
  /** Tasks being settled now: one retry loop each. */
  private readonly settling = new Set<string>();
  /** The one probe of a store that did not answer, which every waiting task shares. */
  private probing: Promise<void> | undefined;
  /** One "cannot be reached" warning per window: an outage's flapping edges are one outage. */
  private readonly outageLog = new LogWindow(OUTAGE_LOG_WINDOW_MS);

  constructor(private readonly deps: LostWritesDeps) {}

  /** A unit holding writes to the task did not commit (`error`, as its callers were told). */
  lost(task: TaskAddress, error: unknown): void {
    const key = taskKey(task.scope, task.taskId);
    // Whoever waits for the task hears now what the failed unit's callers heard, not after an outage of unknown length.
    this.deps.bus.publish(key, { seq: 0, event: create(StreamResponseSchema), settled: false, lost: error });
    const run = this.deps.runs.get(key);
    if (!run) {
      this.settle(task);
      return;
    }
    // Settled once the run has returned (RunLifecycle), so that nothing it still publishes races the FAILED.
    if (run.lost) return;
    run.lost = true;
    run.controller.abort(error);
  }

  /** Ends the task FAILED once the store answers again, unless it is settled by then or run again. */
  settle(task: TaskAddress): void {
    const key = taskKey(task.scope, task.taskId);
    if (this.settling.has(key)) return;
    this.settling.add(key);
    void this.retry(task, key).finally(() => this.settling.delete(key));
  }

  private async retry(task: TaskAddress, key: string): Promise<void> {
    for (let wait = FIRST_RETRY_MS; !this.deps.stopping(); wait = Math.min(wait * 2, MAX_RETRY_MS)) {
      try {
        // Read again: the store forgot the task when the unit failed, and the unit may have committed after all.
        const head = await this.deps.store.getHead(task.scope, task.taskId);
        if (!head || isSettled(head.state) || this.deps.runs.has(key)) return;
        this.deps.writer.writeStatus(task, {
          state: TaskState.FAILED,
          message: systemMessage(task, "The task store could not be reached while this task was in flight; what it did since was not stored, and it did not finish."),
        });
        await this.deps.work.durable();
        this.deps.logger.warn("failed a task whose writes were lost", { taskId: task.taskId });
        return;
      } catch (e) {
        // An outage fails hundreds of tasks at once: they wait on one probe of the store, not one query loop each.
        await this.storeAnswers(e);
      }
      await sleep(wait);
    }
  }

  /** Resolves once the store answers a ping (or the engine stops); one probe, and one warning, per outage. */
  private storeAnswers(error: unknown): Promise<void> {
    if (!this.probing) {
      if (this.outageLog.take()) {
        this.deps.logger.warn("the task store cannot be reached; tasks whose writes were lost are settled once it answers", { error: String(error) });
      }
      this.probing = this.probe().finally(() => (this.probing = undefined));
    }
    return this.probing;
  }

  private async probe(): Promise<void> {
    const ping = this.deps.store.ping?.bind(this.deps.store);
    for (let wait = FIRST_RETRY_MS; !this.deps.stopping(); wait = Math.min(wait * 2, MAX_RETRY_MS)) {
      await sleep(wait);
      if (!ping) return; // a store that cannot be pinged is asked again by the tasks themselves
      try {
        await ping();
        this.deps.logger.info("the task store answers again; settling the tasks whose writes were lost", { tasks: this.settling.size });
        return;
      } catch {
        // still down
      }
    }
  }
}
