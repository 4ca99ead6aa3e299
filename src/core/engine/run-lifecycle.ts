/**
 * A run from start to end: the agent is executed with its context and
 * sink, and when it returns or throws the run is forgotten and its task
 * is left in a state a client can act on (an agent that stops without
 * settling its task fails it). Kept apart from the event rules because
 * this is about the agent's execution, not about what it publishes.
 */
import { TaskState, type Task } from "../../../gen/a2a/v1/a2a_pb.js";
import type { AgentExecutor } from "../../execution/index.js";
import { A2AError, isSettled, isTerminal, stateName } from "../../protocol/index.js";
import type { Logger } from "../logger.js";
import type { AgentEvents } from "./agent-events.js";
import type { LostWrites } from "./lost-writes.js";
import { RunContext } from "./run-context.js";
import type { RunRegistry } from "./run-registry.js";
import { systemMessage, type Run } from "./run.js";
import type { TaskWriter } from "./task-writer.js";

export interface RunLifecycleDeps {
  readonly runs: RunRegistry;
  readonly events: AgentEvents;
  readonly writer: TaskWriter;
  readonly logger: Logger;
  /** Settles the task of a run whose writes a failed unit dropped. */
  readonly lost: LostWrites;
  /** Whether the engine has begun stopping: a run ending then leaves its task to the restart recovery. */
  readonly stopping: () => boolean;
}

export class RunLifecycle {
  constructor(private readonly deps: RunLifecycleDeps) {}

  /** Registers the run and executes its agent; `before` is the task as it was, when the message continues one. */
  launch(run: Run, before: Task | undefined): void {
    this.register(run);
    this.execute(run, before);
  }

  /**
   * Makes the run the task's run before its agent starts: a message that
   * arrives while the run's first writes commit joins it rather than
   * starting a second one.
   */
  register(run: Run): void {
    this.deps.runs.add(run);
  }

  /** Forgets a registered run whose agent never started (what it was to continue was not stored). */
  abandon(run: Run): void {
    this.deps.runs.remove(run);
    // The unit that failed may have committed before its connection broke: the task may be WORKING with no run.
    if (run.lost) this.deps.lost.settle(run);
  }

  /** Executes a registered run's agent. */
  execute(run: Run, before: Task | undefined): void {
    const context = new RunContext(run, before);
    const sink = this.deps.events.sinkFor(run);
    run.context = context;
    run.sink = sink;
    const executor: AgentExecutor = run.agent.executor;
    run.done = (async () => executor.execute(context, sink))()
      .then(
        () => this.finish(run, undefined),
        (e: unknown) => this.finish(run, e ?? new Error("agent failed")),
      )
      // A write that throws here must not become an unhandled rejection, which would end the process.
      .catch((e: unknown) => this.deps.logger.error("ending an agent run failed", { taskId: run.taskId, error: String(e) }));
  }

  private finish(run: Run, error: unknown): void {
    this.deps.runs.remove(run);
    if (run.lost) {
      // Its first outcome was rejected with the failed unit, if that unit created the task.
      if (run.created) this.deps.lost.settle(run);
      return;
    }
    if (error !== undefined && !(run.controller.signal.aborted)) {
      this.deps.logger.error("agent run failed", { agent: run.agent.id, taskId: run.taskId, error: error instanceof Error ? error.stack ?? error.message : String(error) });
    }
    if (run.replied && !run.created) return;
    if (!run.created) {
      if (error === undefined) {
        run.rejectFirst(new A2AError("InvalidAgentResponse", "the agent finished without answering the message"));
        return;
      }
      if (this.deps.stopping()) {
        run.rejectFirst(new A2AError("Internal", "the server is stopping"));
        return;
      }
      this.deps.writer.createTask(run);
    }
    if (isTerminal(run.state)) return;
    // A graceful stop leaves in-flight tasks to the restart recovery.
    if (this.deps.stopping()) return;
    // A canceled run that returns before cancel() has written CANCELED: cancel() finishes the task.
    if (run.controller.signal.aborted) return;
    if (error !== undefined) {
      this.deps.writer.writeStatus(run, { state: TaskState.FAILED, message: systemMessage(run, "The agent failed while working on this task.") });
    } else if (!run.agentSetStatus || !isSettled(run.state)) {
      this.deps.writer.writeStatus(run, { state: TaskState.FAILED, message: systemMessage(run, `The agent stopped in ${stateName(run.state)} without finishing the task.`) });
    }
  }
}
