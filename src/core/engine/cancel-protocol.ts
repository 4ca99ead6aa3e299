/**
 * §3.1.5 CancelTask: the run's abort signal, then the agent's cancel hook
 * (bounded, so an agent that never answers cannot hold the cancel), then
 * CANCELED whether or not the agent cooperated. Kept apart because it is
 * the one path where the engine acts on a run from outside it.
 */
import { create } from "@bufbuild/protobuf";
import { MessageSchema, Role, TaskState } from "../../../gen/a2a/v1/a2a_pb.js";
import type { EventBus } from "../../execution/index.js";
import type { Fleet, StoreScope, TaskStore } from "../../store/index.js";
import { A2AError, isSettled, isTerminal } from "../../protocol/index.js";
import type { HostedAgent } from "../hosted-agent.js";
import type { Logger } from "../logger.js";
import type { AgentEvents } from "./agent-events.js";
import type { RunRegistry } from "./run-registry.js";
import { newRun, taskKey, type Run } from "./run.js";
import type { BusEvent, TaskWriter } from "./task-writer.js";
import type { UnitOfWork } from "./unit-of-work.js";
import { waitSettled } from "./wait-settled.js";

/** How long CancelTask waits for an agent's cancel hook before it cancels anyway. */
const CANCEL_HOOK_MS = 5_000;
/** How long CancelTask waits for the replica running the task to end it CANCELED (its hook's bound, and a margin). */
const REMOTE_CANCEL_MS = CANCEL_HOOK_MS + 5_000;

export interface CancelProtocolDeps {
  readonly runs: RunRegistry;
  readonly store: TaskStore;
  readonly writer: TaskWriter;
  /** The writes in progress: the run's last ones must be committed before the cancel reads the head. */
  readonly work: UnitOfWork;
  readonly events: AgentEvents;
  readonly logger: Logger;
  /** Where the settled event of a task canceled on another replica arrives (relayed from the log). */
  readonly bus: EventBus<BusEvent>;
  readonly fleet?: Fleet;
}

export class CancelProtocol {
  constructor(private readonly deps: CancelProtocolDeps) {}

  /**
   * §3.1.5: aborts the agent's run (its signal, then its cancel hook) and
   * ends the task CANCELED, whether or not the agent cooperates.
   */
  async cancel(scope: StoreScope, agent: HostedAgent, taskId: string, contextId: string): Promise<void> {
    let run = this.deps.runs.get(taskKey(scope, taskId));
    if (!run && this.deps.fleet && (await this.cancelElsewhere(this.deps.fleet, scope, taskId))) return;
    if (!run && agent.executor.cancel) run = await this.idleRun(scope, agent, taskId, contextId);
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
          this.deps.logger.warn("agent cancel hook failed", { taskId, error: String(e) });
        } finally {
          clearTimeout(timer);
        }
      }
    }
    // §3.1.5: a task that reached a terminal state first keeps it. A networked store shows only committed
    // writes, and the run may have ended in a unit not yet committed: the head is read once it is.
    await this.deps.work.durable().catch(() => undefined);
    const head = await this.deps.store.getHead(scope, taskId);
    if (head && !isTerminal(head.state)) this.deps.writer.writeStatus({ scope, taskId, contextId }, { state: TaskState.CANCELED });
  }

  /**
   * The task's agent runs on another replica: that replica aborts its run,
   * calls its hook and writes CANCELED (only a run's replica writes its
   * task's events), and this one answers once that has committed. When
   * that replica died, its task is an orphan whose one writer is the sweep
   * (FAILED, as a restart ends it): this one answers once that is
   * committed. False when this replica holds the task: it cancels it as its own.
   */
  private async cancelElsewhere(fleet: Fleet, scope: StoreScope, taskId: string): Promise<boolean> {
    const head = await this.deps.store.getHead(scope, taskId);
    if (!head || isSettled(head.state)) return false;
    // Listening before asking: the CANCELED event cannot come before the wait has begun.
    const giveUp = new AbortController();
    const timer = setTimeout(() => giveUp.abort(), REMOTE_CANCEL_MS);
    const settled = waitSettled({ bus: this.deps.bus, store: this.deps.store, stopping: false, scope, taskId, signal: giveUp.signal });
    settled.catch(() => undefined);
    let asked = false;
    try {
      asked = await fleet.requestCancel(scope, taskId);
      if (asked) await settled;
    } catch (e) {
      if (!asked) throw e;
      // The owner did not finish in time: the caller answers with the task as it stands.
      this.deps.logger.warn("a cancel on another replica did not settle in time", { taskId, error: String(e) });
    } finally {
      clearTimeout(timer);
      giveUp.abort();
    }
    return asked;
  }

  /**
   * A run for an interrupted task with no agent running, so that the agent's
   * cancel hook can still reach what it holds for the task (a delegated
   * remote task, say) and publish through the same rules.
   */
  private async idleRun(scope: StoreScope, agent: HostedAgent, taskId: string, contextId: string): Promise<Run | undefined> {
    const task = await this.deps.store.getTask(scope, taskId, { includeArtifacts: false });
    if (!task) return undefined;
    const lastUser = [...task.history].reverse().find((m) => m.role === Role.USER) ?? create(MessageSchema, { taskId, contextId, role: Role.USER });
    const run = newRun({ scope, agent, taskId, contextId, userMessage: lastUser, options: { extensions: [] }, created: true, state: task.status?.state ?? TaskState.UNSPECIFIED });
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
    run.sink = this.deps.events.sinkFor(run);
    return run;
  }
}
