import { randomUUID } from "node:crypto";
import { equals } from "@bufbuild/protobuf";
import { PartSchema, Role, TaskState, type Artifact, type Message, type Part, type StreamResponse, type Task } from "../../../gen/a2a/v1/a2a_pb.js";
import type { EventSink } from "../../execution/index.js";
import { isInterrupted, isSettled, isTerminal } from "../../protocol/index.js";

/** The remote task a local task is mirrored from. */
export interface RemoteLink {
  readonly taskId: string;
  readonly contextId: string;
}

/**
 * Turns a remote agent's events into the local task's own: the remote's task and context ids never appear (the
 * sink addresses every event to the local task), messages get local ids,
 * artifacts keep their ids (one remote task feeds one local task), and
 * only content crosses: parts, names, states. A Task snapshot (first event,
 * resubscription, polling) is mirrored as the difference from what the
 * local task already shows.
 */
export class RemoteMirror {
  /** The remote task once its first event named it. */
  link: RemoteLink | undefined;
  /** The remote answered with a direct Message (no task). */
  replied = false;
  private state: TaskState = TaskState.UNSPECIFIED;
  /** The parts of each artifact as the local task shows them. */
  private readonly artifacts = new Map<string, Part[]>();
  /** No snapshot seen yet in this run. */
  private firstSnapshot = true;

  constructor(
    private readonly events: EventSink,
    /** The local task before this run, when the message continues one. */
    private readonly local: Task | undefined,
  ) {
    for (const a of local?.artifacts ?? []) this.artifacts.set(a.artifactId, [...a.parts]);
    if (local?.status) this.state = local.status.state;
  }

  /** The remote task is terminal or interrupted (§3.2.2), or it answered with a Message. */
  get settled(): boolean {
    return this.replied || isSettled(this.state);
  }

  /** The remote task reached a terminal state. */
  get finished(): boolean {
    return this.replied || isTerminal(this.state);
  }

  /** Mirrors one remote event. */
  apply(event: StreamResponse): void {
    const p = event.payload;
    switch (p.case) {
      case "task":
        return this.snapshot(p.value);
      case "message":
        return this.message(p.value);
      case "statusUpdate":
        this.see(p.value.taskId, p.value.contextId);
        return this.status(p.value.status?.state ?? TaskState.UNSPECIFIED, p.value.status?.message);
      case "artifactUpdate": {
        this.see(p.value.taskId, p.value.contextId);
        if (p.value.artifact) this.artifact(p.value.artifact, p.value.append, p.value.lastChunk);
        return;
      }
    }
  }

  /** Ends the local task FAILED, saying why (a failure of the delegation itself). */
  fail(reason: string): void {
    this.events.status(TaskState.FAILED, reason);
    this.state = TaskState.FAILED;
  }

  private see(taskId: string, contextId: string): void {
    if (!this.link && taskId) this.link = { taskId, contextId };
  }

  private snapshot(task: Task): void {
    this.link = { taskId: task.id, contextId: task.contextId };
    const first = this.firstSnapshot;
    this.firstSnapshot = false;
    for (const a of task.artifacts) {
      const shown = this.artifacts.get(a.artifactId);
      const same = shown !== undefined && shown.length === a.parts.length && shown.every((part, i) => equals(PartSchema, part, a.parts[i]!));
      if (!same) this.artifact(a, false, false);
    }
    const state = task.status?.state ?? TaskState.UNSPECIFIED;
    // The first snapshot of a follow-up may still show the question we just answered
    // (servers publish the stored task before their agent resumes): not a new question.
    if (first && this.local && isInterrupted(state)) return;
    this.status(state, task.status?.message);
  }

  private message(message: Message): void {
    if (this.local || this.link) {
      // A Message where a task was expected: the remote considers the exchange done.
      this.status(TaskState.COMPLETED, message);
      return;
    }
    this.events.reply({ messageId: randomUUID(), role: Role.AGENT, parts: message.parts });
    this.replied = true;
  }

  private status(state: TaskState, message: Message | undefined): void {
    // SUBMITTED is where every task starts; the local one already has.
    if (state === TaskState.UNSPECIFIED || state === TaskState.SUBMITTED) return;
    if (state === this.state && !message) return;
    this.events.status(state, message && message.parts.length > 0 ? { messageId: randomUUID(), role: Role.AGENT, parts: message.parts } : undefined);
    this.state = state;
  }

  private artifact(a: Artifact, append: boolean, lastChunk: boolean): void {
    this.events.artifact({ artifactId: a.artifactId, name: a.name, description: a.description, parts: a.parts }, { append, lastChunk });
    const shown = this.artifacts.get(a.artifactId);
    this.artifacts.set(a.artifactId, append && shown ? [...shown, ...a.parts] : [...a.parts]);
  }
}
