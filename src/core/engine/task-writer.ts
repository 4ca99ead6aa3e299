/**
 * The one way the engine writes a task: every write goes into the turn's
 * unit of work (group commit), and its event reaches the bus only after
 * that unit has committed, so nobody is told of what a crash could still
 * undo. Kept apart so that this promise is kept in one place, whoever
 * writes (an agent's event, a follow-up message, a cancel, the recovery).
 */
import { create } from "@bufbuild/protobuf";
import { timestampFromMs } from "@bufbuild/protobuf/wkt";
import { StreamResponseSchema, TaskSchema, TaskState, TaskStatusSchema, type Message, type StreamResponse, type Task, type TaskArtifactUpdateEvent } from "../../../gen/a2a/v1/a2a_pb.js";
import type { EventBus } from "../../execution/index.js";
import type { ArtifactChange, LoggedEvent, StoreScope, TaskStore } from "../../store/index.js";
import { isSettled } from "../../protocol/index.js";
import type { UnitOfWork } from "./unit-of-work.js";
import type { RunRegistry } from "./run-registry.js";
import { taskKey, type Run, type RunOptions, type TaskAddress } from "./run.js";

/** A logged event as it travels on the bus, with whether it settled the task. */
export interface BusEvent {
  readonly seq: number;
  readonly event: StreamResponse;
  /** The task is terminal or interrupted after this event (§3.2.2). */
  readonly settled: boolean;
  /**
   * Not an event: writes to the task were lost (lost-writes.ts), and this is
   * what its waiters are told now rather than after the store is back.
   */
  readonly lost?: unknown;
}

/** A logged event read back from the store, as the bus carries it. */
export function busEvent(e: LoggedEvent): BusEvent {
  const p = e.event.payload;
  return { seq: e.seq, event: e.event, settled: p.case === "statusUpdate" && isSettled(p.value.status?.state ?? 0) };
}

/** A status to write: the state, and what may come with it. */
export interface StatusChange {
  readonly state: TaskState;
  readonly message?: Message;
  readonly metadata?: Task["metadata"];
}

/** An artifact update an agent published (§4.2.2): the change the store keeps, and the event's metadata, which only the event log carries. */
export interface ArtifactUpdate extends ArtifactChange, Pick<TaskArtifactUpdateEvent, "metadata"> {}

export interface TaskWriterDeps {
  readonly store: TaskStore;
  readonly work: UnitOfWork;
  readonly bus: EventBus<BusEvent>;
  /** Whose runs' states follow the statuses written. */
  readonly runs: RunRegistry;
  /** Told of a task whose writes a failed unit dropped (lost-writes.ts), so that it does not stay in flight. */
  readonly lost: (task: TaskAddress, error: unknown) => void;
}

export class TaskWriter {
  constructor(private readonly deps: TaskWriterDeps) {}

  /** Opens the turn's unit of work: what is written next is announced only once it commits. */
  private batch(): void {
    this.deps.work.open();
  }

  /** Runs `effect` once the open unit has committed (at once when none is open). */
  private afterCommit(effect: (() => void) | undefined, rolledBack?: (error: unknown) => void): void {
    this.deps.work.afterCommit(effect, rolledBack);
  }

  /** §3.1.6 and §3.1.2: the creation of a task is its first logged event, a Task snapshot. */
  createTask(run: Run): void {
    const status = create(TaskStatusSchema, { state: TaskState.SUBMITTED, timestamp: timestampFromMs(Date.now()) });
    const task = create(TaskSchema, {
      id: run.taskId,
      contextId: run.contextId,
      status,
      history: [run.userMessage],
      metadata: run.options.metadata,
    });
    const event = create(StreamResponseSchema, { payload: { case: "task", value: task } });
    this.batch();
    const seq = this.deps.store.createTask(run.scope, { id: run.taskId, contextId: run.contextId, status, history: [run.userMessage], metadata: run.options.metadata }, event);
    if (run.options.pushConfig) this.deps.store.putPushConfig(run.scope, { ...run.options.pushConfig, taskId: run.taskId }, run.options.version);
    this.rememberSent(run.scope, run.options, { taskId: run.taskId });
    run.created = true;
    run.state = TaskState.SUBMITTED;
    this.afterCommit(
      () => {
        this.deps.bus.publish(run.key, { seq, event, settled: false });
        run.resolveFirst({ kind: "task", taskId: run.taskId });
      },
      (error) => {
        run.rejectFirst(error);
        this.deps.lost(run, error);
      },
    );
  }

  /** §3.1.1: a direct reply and no task; the sender learns of it once its ledger record has committed. */
  reply(run: Run, reply: Message): void {
    this.batch();
    this.rememberSent(run.scope, run.options, { reply });
    this.afterCommit(
      () => run.resolveFirst({ kind: "message", message: reply }),
      (error) => run.rejectFirst(error),
    );
  }

  /** Adds a message (addressed to its task) to the task's history in the open batch; history logs no event (§3.7). */
  appendHistory(scope: StoreScope, taskId: string, message: Message): void {
    this.batch();
    this.deps.store.appendHistory(scope, taskId, message);
    this.afterCommit(undefined, (error) => this.deps.lost({ scope, taskId, contextId: message.contextId }, error));
  }

  /** §3.3.1: records what a client message led to, in the open batch, so the record is as durable as the outcome. */
  rememberSent(scope: StoreScope, options: RunOptions, outcome: { taskId?: string; reply?: Message }): void {
    if (!options.record) return;
    // Written out, not spread together: a spread that adds keys gives each object a hidden class of its own (docs/hot-path-objects.md).
    this.deps.store.rememberSent(scope, { key: options.record.key, fingerprint: options.record.fingerprint, taskId: outcome.taskId, reply: outcome.reply });
  }

  /** Stores a status change, logs and publishes its event; the one path every status takes. */
  writeStatus(task: TaskAddress, change: StatusChange): void {
    const { scope, taskId, contextId } = task;
    const { state, message, metadata } = change;
    const status = create(TaskStatusSchema, { state, message, timestamp: timestampFromMs(Date.now()) });
    const event = create(StreamResponseSchema, { payload: { case: "statusUpdate", value: { taskId, contextId, status, metadata } } });
    this.batch();
    const seq = this.deps.store.setStatus(scope, taskId, status, event);
    const key = taskKey(scope, taskId);
    const run = this.deps.runs.get(key);
    if (run) run.state = state;
    this.afterCommit(
      () => this.deps.bus.publish(key, { seq, event, settled: isSettled(state) }),
      (error) => this.deps.lost(task, error),
    );
  }

  /** Stores an artifact change the caller has checked, logs and publishes its event. */
  changeArtifact(run: Run, change: ArtifactUpdate): void {
    const { artifact, append, lastChunk, metadata } = change;
    const ev = create(StreamResponseSchema, {
      payload: {
        case: "artifactUpdate",
        value: { taskId: run.taskId, contextId: run.contextId, artifact, append, lastChunk, metadata },
      },
    });
    this.batch();
    const seq = this.deps.store.changeArtifact(run.scope, run.taskId, { artifact, append, lastChunk }, ev);
    this.afterCommit(
      () => this.deps.bus.publish(run.key, { seq, event: ev, settled: false }),
      (error) => this.deps.lost(run, error),
    );
  }
}
