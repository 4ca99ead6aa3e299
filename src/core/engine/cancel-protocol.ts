/**
 * §3.1.5 CancelTask: the run's abort signal, then the agent's cancel hook
 * (bounded, so an agent that never answers cannot hold the cancel), then
 * CANCELED whether or not the agent cooperated. Kept apart because it is
 * the one path where the engine acts on a run from outside it.
 */
import { create } from "@bufbuild/protobuf";
import { MessageSchema, Role, TaskState } from "../../../gen/a2a/v1/a2a_pb.js";
import type { StoreScope, TaskStore } from "../../store/index.js";
import { A2AError, isTerminal } from "../../protocol/index.js";
import type { HostedAgent } from "../hosted-agent.js";
import type { Logger } from "../logger.js";
import type { AgentEvents } from "./agent-events.js";
import type { RunRegistry } from "./run-registry.js";
import { newRun, taskKey, type Run } from "./run.js";
import type { TaskWriter } from "./task-writer.js";

/** How long CancelTask waits for an agent's cancel hook before it cancels anyway. */
const CANCEL_HOOK_MS = 5_000;

export interface CancelProtocolDeps {
  readonly runs: RunRegistry;
  readonly store: TaskStore;
  readonly writer: TaskWriter;
  readonly events: AgentEvents;
  readonly logger: Logger;
}

export class CancelProtocol {
  constructor(private readonly deps: CancelProtocolDeps) {}

  /**
   * §3.1.5: aborts the agent's run (its signal, then its cancel hook) and
   * ends the task CANCELED, whether or not the agent cooperates.
   */
  async cancel(scope: StoreScope, agent: HostedAgent, taskId: string, contextId: string): Promise<void> {
    let run = this.deps.runs.get(taskKey(scope, taskId));
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
    const head = await this.deps.store.getHead(scope, taskId);
    if (head && !isTerminal(head.state)) this.deps.writer.writeStatus({ scope, taskId, contextId }, { state: TaskState.CANCELED });
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
