import { randomUUID } from "node:crypto";
import { create, type MessageInitShape } from "@bufbuild/protobuf";
import { timestampFromMs } from "@bufbuild/protobuf/wkt";
import {
  MessageSchema,
  Role,
  StreamResponseSchema,
  TaskSchema,
  TaskState,
  TaskStatusSchema,
  type Message,
  type StreamResponse,
  type Task,
  type TaskPushNotificationConfig,
} from "../../gen/a2a/v1/a2a_pb.js";
import { EventBus, type AgentExecutor, type EventSink, type ExecutionContext } from "../execution/index.js";
import type { SendKey, StoreScope, TaskStore, TaskView } from "../store/index.js";
import { A2AError } from "../protocol/index.js";
import type { HostedAgent } from "./hosted-agent.js";
import type { Logger } from "./logger.js";
import { canTransition, isSettled, isTerminal, stateName } from "../protocol/index.js";
import { partProblem } from "./validate.js";
import { UnitOfWork } from "./unit-of-work.js";

/** A logged event as it travels on the bus, with whether it settled the task. */
export interface BusEvent {
  readonly seq: number;
  readonly event: StreamResponse;
  /** The task is terminal or interrupted after this event (§3.2.2). */
  readonly settled: boolean;
}

/** How a run on a new message turned out: a direct Message, or a task that now exists. */
export type FirstOutcome = { readonly kind: "message"; readonly message: Message } | { readonly kind: "task"; readonly taskId: string };

/** Per-request facts a run needs beyond the message. */
export interface RunOptions {
  readonly metadata?: Task["metadata"];
  readonly pushConfig?: TaskPushNotificationConfig;
  /** The A2A version of the request, which the push config's payloads follow. */
  readonly version?: string;
  readonly extensions: readonly string[];
  /** §3.3.1: the ledger key and fingerprint of the send; its outcome is recorded with the task so a retry finds it. */
  readonly record?: { readonly key: SendKey; readonly fingerprint: Uint8Array };
}

interface Run {
  readonly key: string;
  readonly scope: StoreScope;
  readonly agent: HostedAgent;
  readonly taskId: string;
  readonly contextId: string;
  readonly userMessage: Message;
  readonly options: RunOptions;
  readonly controller: AbortController;
  readonly resolveFirst: (o: FirstOutcome) => void;
  readonly rejectFirst: (e: unknown) => void;
  context?: ExecutionContext;
  sink?: EventSink;
  created: boolean;
  replied: boolean;
  /** The agent published a status during this run. */
  agentSetStatus: boolean;
  state: TaskState;
  done?: Promise<void>;
}

/** How long a graceful stop waits for running agents to notice the abort. */
const STOP_GRACE_MS = 2_000;
/** How long CancelTask waits for an agent's cancel hook before it cancels anyway. */
const CANCEL_HOOK_MS = 5_000;

/**
 * Runs agents on tasks and turns what they publish into stored state and
 * logged events, written in the turn's unit of work (group commit) and
 * published on the bus once it has committed. The state machine (task-state.ts) is enforced
 * here: an event that breaks it is refused, logged and never stored.
 */
export class TaskEngine {
  readonly bus = new EventBus<BusEvent>();
  private readonly runs = new Map<string, Run>();
  /** Runs going per tenant (limits.maxTasksInFlightPerTenant). */
  private readonly tenantRuns = new Map<string, number>();
  private readonly streams = new Set<{ close(): void; readonly depth?: number }>();
  private stopping = false;
  /** Group commit: the writes of one event-loop turn, and what waits for them. */
  readonly work: UnitOfWork;

  constructor(
    private readonly store: TaskStore,
    private readonly logger: Logger,
  ) {
    this.work = new UnitOfWork(store, logger);
  }

  /** Opens the turn's unit of work: what is written next is announced only once it commits. */
  private batch(): void {
    this.work.open();
  }

  /** Runs `effect` once the open unit has committed (at once when none is open). */
  private afterCommit(effect: () => void, rolledBack?: (error: unknown) => void): void {
    this.work.afterCommit(effect, rolledBack);
  }

  /** Number of agent runs in progress. */
  get activeRuns(): number {
    return this.runs.size;
  }

  /** Agent runs in progress for one tenant. */
  runsOf(tenant: string): number {
    return this.tenantRuns.get(tenant) ?? 0;
  }

  /** Whether an agent is running on the task now (a message to it joins that run). */
  hasRun(scope: StoreScope, taskId: string): boolean {
    return this.runs.has(this.key(scope, taskId));
  }

  /** The bus key of a task in a scope. */
  key(scope: StoreScope, taskId: string): string {
    return EventBus.key(scope.tenant, scope.agentId, taskId);
  }

  /**
   * Starts an agent on a message that opens a new task. The task is stored
   * when the agent's first event arrives, unless that event is a direct
   * Message (§3.1.1), in which case no task ever exists.
   */
  startTask(scope: StoreScope, agent: HostedAgent, taskId: string, message: Message, contextId: string, options: RunOptions): Promise<FirstOutcome> {
    this.assertRunning();
    let resolveFirst!: (o: FirstOutcome) => void;
    let rejectFirst!: (e: unknown) => void;
    const first = new Promise<FirstOutcome>((res, rej) => {
      resolveFirst = res;
      rejectFirst = rej;
    });
    // The stored user message carries the ids the server assigned (§3.4).
    const userMessage = create(MessageSchema, { ...message, taskId, contextId });
    const run: Run = this.newRun(scope, agent, taskId, contextId, userMessage, options, resolveFirst, rejectFirst);
    run.state = TaskState.UNSPECIFIED;
    this.launch(run, undefined);
    return first;
  }

  /**
   * §3.4.3: a message that continues a non-terminal task joins its history.
   * When no agent run is active (the task is interrupted), the task returns
   * to WORKING and the agent runs again with the message; when one is
   * active, the running agent keeps the task.
   */
  continueTask(
    scope: StoreScope,
    agent: HostedAgent,
    task: { id: string; contextId: string; state: TaskState },
    message: Message,
    options: RunOptions,
    view?: TaskView,
  ): { task: Task; seq: number } {
    this.assertRunning();
    const userMessage = create(MessageSchema, { ...message, taskId: task.id, contextId: task.contextId });
    const key = this.key(scope, task.id);
    this.batch();
    this.store.appendHistory(scope, task.id, userMessage);
    this.rememberSent(scope, options, { taskId: task.id });
    if (!this.runs.has(key) && task.state !== TaskState.WORKING) this.writeStatus(scope, task.id, task.contextId, TaskState.WORKING);
    // Read before the agent starts: an agent may publish synchronously inside execute().
    const snapshot = this.store.snapshot(scope, task.id, view)!;
    if (this.runs.has(key)) return snapshot;
    const before = this.store.getTask(scope, task.id);
    const run = this.newRun(scope, agent, task.id, task.contextId, userMessage, options, () => {}, () => {});
    run.created = true;
    run.state = TaskState.WORKING;
    this.launch(run, before);
    return snapshot;
  }

  private newRun(
    scope: StoreScope,
    agent: HostedAgent,
    taskId: string,
    contextId: string,
    userMessage: Message,
    options: RunOptions,
    resolveFirst: (o: FirstOutcome) => void,
    rejectFirst: (e: unknown) => void,
  ): Run {
    return {
      key: this.key(scope, taskId),
      scope,
      agent,
      taskId,
      contextId,
      userMessage,
      options,
      controller: new AbortController(),
      resolveFirst,
      rejectFirst,
      created: false,
      replied: false,
      agentSetStatus: false,
      state: TaskState.UNSPECIFIED,
    };
  }

  private launch(run: Run, before: Task | undefined): void {
    const context: ExecutionContext = {
      taskId: run.taskId,
      contextId: run.contextId,
      message: run.userMessage,
      task: before,
      signal: run.controller.signal,
      tenant: run.scope.tenant,
      agentId: run.agent.id,
      extensions: run.options.extensions,
    };
    const sink = this.sinkFor(run);
    run.context = context;
    run.sink = sink;
    this.runs.set(run.key, run);
    const tenant = run.scope.tenant;
    this.tenantRuns.set(tenant, this.runsOf(tenant) + 1);
    const executor: AgentExecutor = run.agent.executor;
    run.done = (async () => executor.execute(context, sink))().then(
      () => this.finish(run, undefined),
      (e: unknown) => this.finish(run, e ?? new Error("agent failed")),
    );
  }

  private sinkFor(run: Run): EventSink {
    const publish = (event: StreamResponse): boolean => {
      try {
        return this.apply(run, event);
      } catch (e) {
        this.logger.error("storing an agent event failed", { taskId: run.taskId, error: String(e) });
        return false;
      }
    };
    return {
      publish,
      status: (state, message) =>
        publish(
          create(StreamResponseSchema, {
            payload: {
              case: "statusUpdate",
              value: { taskId: run.taskId, contextId: run.contextId, status: { state, message: message === undefined ? undefined : agentMessage(message, run) } },
            },
          }),
        ),
      artifact: (artifact, options = {}) =>
        publish(
          create(StreamResponseSchema, {
            payload: {
              case: "artifactUpdate",
              value: { taskId: run.taskId, contextId: run.contextId, artifact, append: options.append ?? false, lastChunk: options.lastChunk ?? false },
            },
          }),
        ),
      reply: (message) => publish(create(StreamResponseSchema, { payload: { case: "message", value: agentMessage(message, run) } })),
    };
  }

  private refuse(run: Run, why: string): false {
    this.logger.warn("refused an agent event", { tenant: run.scope.tenant, agent: run.agent.id, taskId: run.taskId, why });
    return false;
  }

  private apply(run: Run, event: StreamResponse): boolean {
    if (this.runs.get(run.key) !== run && !run.created && !run.replied) return this.refuse(run, "the run is over");
    const p = event.payload;
    switch (p.case) {
      case "message": {
        const message = create(MessageSchema, { ...p.value, contextId: run.contextId, role: p.value.role || Role.AGENT });
        if (!run.created) {
          if (run.replied) return this.refuse(run, "a direct reply was already sent");
          run.replied = true;
          const reply = create(MessageSchema, { ...message, taskId: "" });
          this.batch();
          this.rememberSent(run.scope, run.options, { reply });
          this.afterCommit(
            () => run.resolveFirst({ kind: "message", message: reply }),
            (error) => run.rejectFirst(error),
          );
          return true;
        }
        // A message after the task exists is conversation, not a stream event (§3.7).
        this.batch();
        this.store.appendHistory(run.scope, run.taskId, create(MessageSchema, { ...message, taskId: run.taskId }));
        return true;
      }
      case "task":
        if (run.created || run.replied) return this.refuse(run, "a Task event is only accepted as the first event");
        this.createTask(run);
        return true;
      case "statusUpdate": {
        if (!this.ensureCreated(run)) return false;
        const u = p.value;
        if (u.taskId && u.taskId !== run.taskId) return this.refuse(run, `status for another task ${u.taskId}`);
        const to = u.status?.state ?? TaskState.UNSPECIFIED;
        if (!canTransition(run.state, to)) return this.refuse(run, `illegal transition ${stateName(run.state)} -> ${stateName(to)}`);
        const msg = u.status?.message;
        // Repeating the current state with nothing to say changes nothing: no event.
        if (to === run.state && !msg && !u.metadata) {
          run.agentSetStatus = true;
          return true;
        }
        this.writeStatus(run.scope, run.taskId, run.contextId, to, msg && create(MessageSchema, { ...msg, taskId: run.taskId, contextId: run.contextId }), u.metadata);
        run.agentSetStatus = true;
        return true;
      }
      case "artifactUpdate": {
        if (!this.ensureCreated(run)) return false;
        const u = p.value;
        const artifact = u.artifact;
        if (isTerminal(run.state)) return this.refuse(run, `artifact after ${stateName(run.state)}`);
        if (!artifact?.artifactId) return this.refuse(run, "artifact without artifactId");
        if (artifact.parts.length === 0) return this.refuse(run, "artifact without parts");
        const bad = artifact.parts.map(partProblem).find((x) => x !== undefined);
        if (bad) return this.refuse(run, `artifact part: ${bad}`);
        if (u.append && this.store.artifactSealed(run.scope, run.taskId, artifact.artifactId) === true) {
          return this.refuse(run, `artifact ${artifact.artifactId} was sealed by lastChunk`);
        }
        const ev = create(StreamResponseSchema, {
          payload: {
            case: "artifactUpdate",
            value: { taskId: run.taskId, contextId: run.contextId, artifact, append: u.append, lastChunk: u.lastChunk, metadata: u.metadata },
          },
        });
        this.batch();
        const seq = this.store.changeArtifact(run.scope, run.taskId, { artifact, append: u.append, lastChunk: u.lastChunk }, ev);
        this.afterCommit(() => this.bus.publish(run.key, { seq, event: ev, settled: false }));
        return true;
      }
      default:
        return this.refuse(run, "an event with no payload");
    }
  }

  private ensureCreated(run: Run): boolean {
    if (run.created) return true;
    if (run.replied) return this.refuse(run, "events after a direct reply");
    this.createTask(run);
    return true;
  }

  /** §3.1.6 and §3.1.2: the creation of a task is its first logged event, a Task snapshot. */
  private createTask(run: Run): void {
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
    const seq = this.store.createTask(run.scope, { id: run.taskId, contextId: run.contextId, status, history: [run.userMessage], metadata: run.options.metadata }, event);
    if (run.options.pushConfig) this.store.putPushConfig(run.scope, { ...run.options.pushConfig, taskId: run.taskId }, run.options.version);
    this.rememberSent(run.scope, run.options, { taskId: run.taskId });
    run.created = true;
    run.state = TaskState.SUBMITTED;
    this.afterCommit(
      () => {
        this.bus.publish(run.key, { seq, event, settled: false });
        run.resolveFirst({ kind: "task", taskId: run.taskId });
      },
      (error) => run.rejectFirst(error),
    );
  }

  /** §3.3.1: records what a client message led to, in the open batch, so the record is as durable as the outcome. */
  private rememberSent(scope: StoreScope, options: RunOptions, outcome: { taskId?: string; reply?: Message }): void {
    if (!options.record) return;
    this.store.rememberSent(scope, { ...options.record, ...outcome });
  }

  /** Stores a status change, logs and publishes its event; the one path every status takes. */
  private writeStatus(scope: StoreScope, taskId: string, contextId: string, state: TaskState, message?: Message, metadata?: Task["metadata"]): void {
    const status = create(TaskStatusSchema, { state, message, timestamp: timestampFromMs(Date.now()) });
    const event = create(StreamResponseSchema, { payload: { case: "statusUpdate", value: { taskId, contextId, status, metadata } } });
    this.batch();
    const seq = this.store.setStatus(scope, taskId, status, event);
    const key = this.key(scope, taskId);
    const run = this.runs.get(key);
    if (run) run.state = state;
    this.afterCommit(() => this.bus.publish(key, { seq, event, settled: isSettled(state) }));
  }

  private finish(run: Run, error: unknown): void {
    if (this.runs.get(run.key) === run) this.runs.delete(run.key);
    const left = this.runsOf(run.scope.tenant) - 1;
    if (left > 0) this.tenantRuns.set(run.scope.tenant, left);
    else this.tenantRuns.delete(run.scope.tenant);
    if (error !== undefined && !(run.controller.signal.aborted)) {
      this.logger.error("agent run failed", { agent: run.agent.id, taskId: run.taskId, error: error instanceof Error ? error.stack ?? error.message : String(error) });
    }
    if (run.replied && !run.created) return;
    if (!run.created) {
      if (error === undefined) {
        run.rejectFirst(new A2AError("InvalidAgentResponse", "the agent finished without answering the message"));
        return;
      }
      if (this.stopping) {
        run.rejectFirst(new A2AError("Internal", "the server is stopping"));
        return;
      }
      this.createTask(run);
    }
    if (isTerminal(run.state)) return;
    // A graceful stop leaves in-flight tasks to the restart recovery.
    if (this.stopping) return;
    // A canceled run that returns before cancel() has written CANCELED: cancel() finishes the task.
    if (run.controller.signal.aborted) return;
    if (error !== undefined) {
      this.writeStatus(run.scope, run.taskId, run.contextId, TaskState.FAILED, systemMessage(run, "The agent failed while working on this task."));
    } else if (!run.agentSetStatus || !isSettled(run.state)) {
      this.writeStatus(run.scope, run.taskId, run.contextId, TaskState.FAILED, systemMessage(run, `The agent stopped in ${stateName(run.state)} without finishing the task.`));
    }
  }

  /**
   * §3.1.5: aborts the agent's run (its signal, then its cancel hook) and
   * ends the task CANCELED, whether or not the agent cooperates.
   */
  async cancel(scope: StoreScope, agent: HostedAgent, taskId: string, contextId: string): Promise<void> {
    let run = this.runs.get(this.key(scope, taskId));
    if (!run && agent.executor.cancel) run = this.idleRun(scope, agent, taskId, contextId);
    if (run) {
      run.controller.abort(new A2AError("UnsupportedOperation", "task canceled"));
      const hook = run.agent.executor.cancel;
      if (hook && run.context && run.sink) {
        let timer: NodeJS.Timeout | undefined;
        try {
          await Promise.race([
            Promise.resolve(hook.call(run.agent.executor, run.context, run.sink)),
            new Promise((resolve) => (timer = setTimeout(resolve, CANCEL_HOOK_MS))),
          ]);
        } catch (e) {
          this.logger.warn("agent cancel hook failed", { taskId, error: String(e) });
        } finally {
          clearTimeout(timer);
        }
      }
    }
    const head = this.store.getHead(scope, taskId);
    if (head && !isTerminal(head.state)) this.writeStatus(scope, taskId, contextId, TaskState.CANCELED);
  }

  /**
   * A run for an interrupted task with no agent running, so that the agent's
   * cancel hook can still reach what it holds for the task (a delegated
   * remote task, say) and publish through the same rules.
   */
  private idleRun(scope: StoreScope, agent: HostedAgent, taskId: string, contextId: string): Run | undefined {
    const task = this.store.getTask(scope, taskId, { includeArtifacts: false });
    if (!task) return undefined;
    const lastUser = [...task.history].reverse().find((m) => m.role === Role.USER) ?? create(MessageSchema, { taskId, contextId, role: Role.USER });
    const run = this.newRun(scope, agent, taskId, contextId, lastUser, { extensions: [] }, () => {}, () => {});
    run.created = true;
    run.state = task.status?.state ?? TaskState.UNSPECIFIED;
    run.context = {
      taskId,
      contextId,
      message: lastUser,
      task,
      signal: run.controller.signal,
      tenant: scope.tenant,
      agentId: agent.id,
      extensions: [],
    };
    run.sink = this.sinkFor(run);
    return run;
  }

  /**
   * Resolves once the task is terminal or interrupted, checked against the
   * store and the bus in one tick so no transition slips between them.
   */
  waitSettled(scope: StoreScope, taskId: string, signal?: AbortSignal): Promise<void> {
    return new Promise((resolve, reject) => {
      const key = this.key(scope, taskId);
      let unsubscribe = (): void => {};
      const onAbort = (): void => {
        unsubscribe();
        reject(signal?.reason ?? new Error("aborted"));
      };
      const done = (): void => {
        unsubscribe();
        signal?.removeEventListener("abort", onAbort);
        resolve();
      };
      unsubscribe = this.bus.subscribe(key, (e) => e.settled && done());
      const head = this.store.getHead(scope, taskId);
      if (!head || isSettled(head.state) || this.stopping) return done();
      if (signal?.aborted) return onAbort();
      signal?.addEventListener("abort", onAbort, { once: true });
    });
  }

  /**
   * Tasks a previous process left SUBMITTED or WORKING cannot be resumed:
   * their agent runs died with it. They end FAILED, saying why.
   */
  recover(): number {
    const stranded = this.store.inFlight();
    for (const t of stranded) {
      const message = create(MessageSchema, {
        messageId: randomUUID(),
        role: Role.AGENT,
        taskId: t.taskId,
        contextId: t.contextId,
        parts: [{ content: { case: "text", value: "The server restarted while this task was in flight; it did not finish." } }],
      });
      this.writeStatus(t.scope, t.taskId, t.contextId, TaskState.FAILED, message);
    }
    if (stranded.length > 0) this.logger.warn("failed tasks left in flight by the previous process", { count: stranded.length });
    return stranded.length;
  }

  /** Registers an open stream so that stop() can end it; returns the function that forgets it. */
  trackStream(stream: { close(): void; readonly depth?: number }): () => void {
    this.streams.add(stream);
    return () => this.streams.delete(stream);
  }

  /** Events buffered for stream readers now, in all and for the furthest-behind reader (for metrics). */
  streamBacklog(): { total: number; max: number } {
    let total = 0;
    let max = 0;
    for (const s of this.streams) {
      const d = s.depth ?? 0;
      total += d;
      if (d > max) max = d;
    }
    return { total, max };
  }

  /** Number of open streams: for leak checks. */
  get openStreams(): number {
    return this.streams.size;
  }

  /** Stops taking work, ends open streams, aborts every run and waits briefly for them to return. */
  async stop(): Promise<void> {
    this.stopping = true;
    for (const s of [...this.streams]) s.close();
    const runs = [...this.runs.values()];
    for (const r of runs) r.controller.abort(new A2AError("Internal", "the server is stopping"));
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      Promise.allSettled(runs.map((r) => r.done)),
      new Promise((resolve) => (timer = setTimeout(resolve, STOP_GRACE_MS))),
    ]);
    clearTimeout(timer);
    // What the runs wrote on their way out is stored before the caller closes the store.
    this.work.commit();
  }

  /** Whether the engine has begun stopping. */
  get isStopping(): boolean {
    return this.stopping;
  }

  private assertRunning(): void {
    if (this.stopping) throw new A2AError("Internal", "the server is stopping");
  }
}

/** An agent message from text or a partial message, addressed to the run's task. */
function agentMessage(message: string | MessageInitShape<typeof MessageSchema>, run: Run): Message {
  const init = typeof message === "string" ? { parts: [{ content: { case: "text" as const, value: message } }] } : message;
  return create(MessageSchema, {
    ...init,
    messageId: (init as { messageId?: string }).messageId || randomUUID(),
    role: (init as { role?: Role }).role || Role.AGENT,
    taskId: run.taskId,
    contextId: run.contextId,
  });
}

function systemMessage(run: Run, text: string): Message {
  return agentMessage(text, run);
}
