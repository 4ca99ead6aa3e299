import { TaskState, type Message, type Task } from "../../../gen/a2a/v1/a2a_pb.js";
import { EventBus } from "../../execution/index.js";
import type { StoreScope, TaskStore, TaskView } from "../../store/index.js";
import { A2AError, isSettled } from "../../protocol/index.js";
import type { HostedAgent } from "../hosted-agent.js";
import type { Logger } from "../logger.js";
import { UnitOfWork } from "./unit-of-work.js";
import { AgentEvents } from "./agent-events.js";
import { CancelProtocol } from "./cancel-protocol.js";
import { FleetRelay } from "./fleet-relay.js";
import { LostWrites } from "./lost-writes.js";
import { OpenStreams, type OpenStream } from "./open-streams.js";
import { recoverInFlight, sweepOrphans } from "./recovery.js";
import { RunLifecycle } from "./run-lifecycle.js";
import { RunRegistry } from "./run-registry.js";
import { addressed, newRun, taskKey, type FirstOutcome, type RunOptions } from "./run.js";
import { TaskWriter, type BusEvent } from "./task-writer.js";
import { waitSettled, type SettledWait } from "./wait-settled.js";

/** How long a graceful stop waits for running agents to notice the abort. */
const STOP_GRACE_MS = 2_000;

/**
 * Runs agents on tasks and turns what they publish into stored state and
 * logged events, written in the turn's unit of work (group commit) and
 * published on the bus once it has committed. The state machine (task-state.ts) is enforced
 * by AgentEvents: an event that breaks it is refused, logged and never stored.
 * This class composes the parts in this folder and is what the rest of the core uses.
 */
export class TaskEngine {
  readonly bus = new EventBus<BusEvent>();
  /** Group commit: the writes of one event-loop turn, and what waits for them. */
  readonly work: UnitOfWork;
  private readonly runs = new RunRegistry();
  private readonly streams = new OpenStreams();
  private readonly writer: TaskWriter;
  private readonly lostWrites: LostWrites;
  private readonly lifecycle: RunLifecycle;
  private readonly cancels: CancelProtocol;
  private stopping = false;
  /** What ends this replica's part in a fleet (relay, cancel requests, sweeps); empty for a fleet of one. */
  private readonly leaveFleet: Array<() => void> = [];

  constructor(
    private readonly store: TaskStore,
    private readonly logger: Logger,
  ) {
    this.work = new UnitOfWork(store, logger);
    const runs = this.runs;
    // The writer reports lost writes to the part that settles them, which writes through the writer.
    this.writer = new TaskWriter({ store, work: this.work, bus: this.bus, runs, lost: (task, error) => this.lostWrites.lost(task, error) });
    this.lostWrites = new LostWrites({ runs, store, writer: this.writer, work: this.work, bus: this.bus, logger, stopping: () => this.stopping });
    const events = new AgentEvents({ runs, writer: this.writer, store, logger });
    this.lifecycle = new RunLifecycle({ runs, events, writer: this.writer, logger, lost: this.lostWrites, stopping: () => this.stopping });
    this.cancels = new CancelProtocol({ runs, store, writer: this.writer, work: this.work, events, logger, bus: this.bus, fleet: store.fleet });
  }

  /** Number of agent runs in progress. */
  get activeRuns(): number {
    return this.runs.size;
  }

  /** Agent runs in progress for one tenant. */
  runsOf(tenant: string): number {
    return this.runs.of(tenant);
  }

  /** Whether an agent is running on the task now (a message to it joins that run). */
  hasRun(scope: StoreScope, taskId: string): boolean {
    return this.runs.has(this.key(scope, taskId));
  }

  /** The bus key of a task in a scope. */
  key(scope: StoreScope, taskId: string): string {
    return taskKey(scope, taskId);
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
    const userMessage = addressed(message, { taskId, contextId });
    this.lifecycle.launch(newRun({ scope, agent, taskId, contextId, userMessage, options, resolveFirst, rejectFirst }), undefined);
    return first;
  }

  /**
   * §3.4.3: a message that continues a non-terminal task joins its history.
   * When no agent run is active (the task is interrupted), the task returns
   * to WORKING and the agent runs again with the message; when one is
   * active, the running agent keeps the task.
   */
  async continueTask(
    scope: StoreScope,
    agent: HostedAgent,
    task: { id: string; contextId: string; state: TaskState; runningElsewhere?: boolean },
    message: Message,
    options: RunOptions,
    view?: TaskView,
  ): Promise<{ task: Task; seq: number }> {
    this.assertRunning();
    const address = { scope, taskId: task.id, contextId: task.contextId };
    const userMessage = addressed(message, address);
    // §3.4.3 across a fleet: a run on another live replica keeps the task as a local one would. A task in
    // flight that no run holds is an orphan of a dead replica, which a sweep fails: the message only joins it.
    const orphan = this.store.fleet !== undefined && !isSettled(task.state);
    const joining = this.runs.has(this.key(scope, task.id)) || task.runningElsewhere === true || orphan;
    const run = joining ? undefined : newRun({ scope, taskId: task.id, contextId: task.contextId, agent, userMessage, options, created: true, state: TaskState.WORKING });
    if (run) this.lifecycle.register(run);
    this.writer.appendHistory(scope, task.id, userMessage);
    this.writer.rememberSent(scope, options, { taskId: task.id });
    if (run && task.state !== TaskState.WORKING) this.writer.writeStatus(address, { state: TaskState.WORKING });
    try {
      // A networked store shows only committed writes, so the snapshot is read
      // once they are; this also makes the send's ledger record visible before
      // a retry of it can look (§3.3.1).
      await this.work.durable();
    } catch (e) {
      if (run) this.lifecycle.abandon(run);
      throw e;
    }
    let snapshot: { task: Task; seq: number } | undefined;
    let before: Task | undefined;
    try {
      // Read before the agent starts: an agent may publish synchronously inside execute().
      snapshot = await this.store.snapshot(scope, task.id, view);
      if (run) before = view === undefined ? snapshot?.task : await this.store.getTask(scope, task.id);
    } finally {
      // The message is stored: its run goes ahead even if the read failed.
      if (run) this.lifecycle.execute(run, before);
    }
    if (!snapshot) throw new A2AError("Internal", `task ${task.id} could not be read back`);
    return snapshot;
  }

  /**
   * §3.1.5: aborts the agent's run (its signal, then its cancel hook) and
   * ends the task CANCELED, whether or not the agent cooperates.
   */
  cancel(scope: StoreScope, agent: HostedAgent, taskId: string, contextId: string): Promise<void> {
    return this.cancels.cancel(scope, agent, taskId, contextId);
  }

  /** Resolves once the task is terminal or interrupted (see wait-settled.ts). */
  waitSettled(scope: StoreScope, taskId: string, signal?: SettledWait["signal"]): Promise<void> {
    return waitSettled({ bus: this.bus, store: this.store, stopping: this.stopping, scope, taskId, signal });
  }

  /** Fails the tasks a previous process left in flight (see recovery.ts); returns how many. */
  recover(): Promise<number> {
    return recoverInFlight({ store: this.store, writer: this.writer, logger: this.logger });
  }

  /**
   * Takes this replica's part in a fleet of hubs on one database: events
   * other replicas commit reach the streams here, cancel requests for runs
   * here are carried out, and tasks a dead replica left in flight are
   * failed. Nothing to do when the store has no fleet.
   */
  joinFleet(): void {
    const fleet = this.store.fleet;
    if (!fleet || this.leaveFleet.length > 0) return;
    const relay = new FleetRelay({ fleet, store: this.store, bus: this.bus, streams: this.streams, logger: this.logger });
    relay.start();
    this.leaveFleet.push(() => relay.stop());
    this.leaveFleet.push(
      fleet.onCancelRequest((scope, taskId) => {
        const run = this.runs.get(this.key(scope, taskId));
        if (!run || this.stopping) return;
        this.cancel(scope, run.agent, taskId, run.contextId).catch((e: unknown) => this.logger.error("a cancel asked by another replica failed", { taskId, error: String(e) }));
      }),
    );
    let sweeping = false;
    const timer = setInterval(() => {
      if (sweeping || this.stopping) return;
      sweeping = true;
      sweepOrphans({ store: this.store, writer: this.writer, logger: this.logger }, fleet)
        .catch((e: unknown) => this.logger.warn("sweeping for tasks of stopped replicas failed", { error: String(e) }))
        .finally(() => (sweeping = false));
    }, fleet.sweepEveryMs);
    timer.unref();
    this.leaveFleet.push(() => clearInterval(timer));
  }

  /** Registers an open stream so that stop() can end it; returns the function that forgets it. */
  trackStream(stream: OpenStream): () => void {
    return this.streams.track(stream);
  }

  /** Events buffered for stream readers now, in all and for the furthest-behind reader (for metrics). */
  streamBacklog(): { total: number; max: number } {
    return this.streams.backlog();
  }

  /** Number of open streams: for leak checks. */
  get openStreams(): number {
    return this.streams.size;
  }

  /** Stops taking work, ends open streams, aborts every run and waits briefly for them to return. */
  async stop(): Promise<void> {
    this.stopping = true;
    for (const leave of this.leaveFleet.splice(0)) leave();
    this.streams.closeAll();
    const runs = this.runs.all();
    for (const r of runs) r.controller.abort(new A2AError("Internal", "the server is stopping"));
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      Promise.allSettled(runs.map((r) => r.done)),
      new Promise((resolve) => (timer = setTimeout(resolve, STOP_GRACE_MS))),
    ]);
    clearTimeout(timer);
    // What the runs wrote on their way out is stored before the caller closes the store.
    await this.work.flush().catch((e: unknown) => this.logger.error("the last writes before the stop were not stored", { error: String(e) }));
  }

  /** Whether the engine has begun stopping. */
  get isStopping(): boolean {
    return this.stopping;
  }

  private assertRunning(): void {
    if (this.stopping) throw new A2AError("Internal", "the server is stopping");
  }
}
