/**
 * What an agent publishes, turned into stored state: the sink an agent
 * is given, and the rules each event must pass before the task writer
 * stores it. The state machine (§3.2.2, `canTransition`) is enforced
 * here: an event that breaks it is refused, logged and never stored.
 * Kept apart from running agents so that the rules read in one place.
 */
import { create } from "@bufbuild/protobuf";
import { MessageSchema, Role, StreamResponseSchema, TaskState, type StreamResponse } from "../../../gen/a2a/v1/a2a_pb.js";
import type { EventSink } from "../../execution/index.js";
import type { TaskStore } from "../../store/index.js";
import { canTransition, isTerminal, stateName } from "../../protocol/index.js";
import type { Logger } from "../logger.js";
import { partProblem } from "../validate.js";
import type { RunRegistry } from "./run-registry.js";
import { addressed, agentMessage, type Run } from "./run.js";
import type { TaskWriter } from "./task-writer.js";

export interface AgentEventsDeps {
  readonly runs: RunRegistry;
  readonly writer: TaskWriter;
  /** Read for the artifact rules (whether a lastChunk sealed an artifact). */
  readonly store: TaskStore;
  readonly logger: Logger;
}

export class AgentEvents {
  constructor(private readonly deps: AgentEventsDeps) {}

  /** The sink the run's agent publishes through; every event it takes goes through the same rules. */
  sinkFor(run: Run): EventSink {
    const publish = (event: StreamResponse): boolean => {
      try {
        return this.apply(run, event);
      } catch (e) {
        this.deps.logger.error("storing an agent event failed", { taskId: run.taskId, error: String(e) });
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
    this.deps.logger.warn("refused an agent event", { tenant: run.scope.tenant, agent: run.agent.id, taskId: run.taskId, why });
    return false;
  }

  private apply(run: Run, event: StreamResponse): boolean {
    if (this.deps.runs.get(run.key) !== run && !run.created && !run.replied) return this.refuse(run, "the run is over");
    if (run.lost) return this.refuse(run, "earlier events of the run were not stored; its task is failed");
    const p = event.payload;
    switch (p.case) {
      case "message": {
        const message = create(MessageSchema, { ...p.value, contextId: run.contextId, role: p.value.role || Role.AGENT });
        if (!run.created) {
          if (run.replied) return this.refuse(run, "a direct reply was already sent");
          run.replied = true;
          this.deps.writer.reply(run, create(MessageSchema, { ...message, taskId: "" }));
          return true;
        }
        // A message after the task exists is conversation, not a stream event (§3.7).
        this.deps.writer.appendHistory(run.scope, run.taskId, addressed(message, run));
        return true;
      }
      case "task":
        if (run.created || run.replied) return this.refuse(run, "a Task event is only accepted as the first event");
        this.deps.writer.createTask(run);
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
        this.deps.writer.writeStatus(run, { state: to, message: msg && addressed(msg, run), metadata: u.metadata });
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
        if (u.append && this.deps.store.artifactSealed(run.scope, run.taskId, artifact.artifactId) === true) {
          return this.refuse(run, `artifact ${artifact.artifactId} was sealed by lastChunk`);
        }
        this.deps.writer.changeArtifact(run, { artifact, append: u.append, lastChunk: u.lastChunk, metadata: u.metadata });
        return true;
      }
      default:
        return this.refuse(run, "an event with no payload");
    }
  }

  private ensureCreated(run: Run): boolean {
    if (run.created) return true;
    if (run.replied) return this.refuse(run, "events after a direct reply");
    this.deps.writer.createTask(run);
    return true;
  }
}
