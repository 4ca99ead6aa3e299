import { TaskState, type Artifact, type Message, type StreamResponse } from "../../../gen/a2a/v1/a2a_pb.js";
import { h } from "./dom.js";
import { mergeArtifact, renderArtifact, renderMessage, stateBadge } from "./parts.js";

/** One turn of a conversation: the message sent and everything the agent answered to it, in order. */
export interface Turn {
  readonly sent: Message;
  /** Why the agent (or the way to it) refused the message, when it did. */
  refused?: string;
  readonly answers: (Message | Artifact)[];
  readonly updates: Map<string, number>;
  taskId: string;
  contextId: string;
  state?: TaskState;
}

/** A new turn for a message about to be sent. */
export function newTurn(sent: Message): Turn {
  return { sent, answers: [], updates: new Map(), taskId: "", contextId: "" };
}

/** Applies one event of the answer (§3.1.6: the Task, then status and artifact updates; or one Message). */
export function applyEvent(turn: Turn, ev: StreamResponse): void {
  const p = ev.payload;
  const artifacts = (): Artifact[] => turn.answers.filter((a): a is Artifact => "artifactId" in a);
  switch (p.case) {
    case "task":
      turn.taskId = p.value.id;
      turn.contextId = p.value.contextId;
      turn.state = p.value.status?.state;
      if (p.value.status?.message) turn.answers.push(p.value.status.message);
      for (const a of p.value.artifacts) {
        if (!artifacts().some((x) => x.artifactId === a.artifactId)) turn.answers.push(a);
        turn.updates.set(a.artifactId, (turn.updates.get(a.artifactId) ?? 0) + 1);
      }
      return;
    case "message":
      turn.contextId = p.value.contextId || turn.contextId;
      turn.answers.push(p.value);
      return;
    case "statusUpdate":
      turn.state = p.value.status?.state;
      if (p.value.status?.message) turn.answers.push(p.value.status.message);
      return;
    case "artifactUpdate": {
      const a = p.value.artifact;
      if (!a) return;
      const at = turn.answers.findIndex((x) => "artifactId" in x && x.artifactId === a.artifactId);
      // §3.2.4: append extends the artifact with that id (in place); otherwise it is replaced.
      if (at < 0) turn.answers.push(a);
      else if (p.value.append) mergeArtifact(artifacts(), a, true);
      else turn.answers[at] = a;
      turn.updates.set(a.artifactId, (turn.updates.get(a.artifactId) ?? 0) + 1);
      return;
    }
  }
}

/** Whether the turn's task waits for the next message (§3.4.3: it then carries the task id). */
export function awaitsInput(turn: Turn | undefined): boolean {
  return turn?.state === TaskState.INPUT_REQUIRED || turn?.state === TaskState.AUTH_REQUIRED;
}

/** A turn as read: the message sent (marked when refused), then the answers in the order they came. */
export function renderTurn(turn: Turn, n: number): HTMLElement {
  const sent = renderMessage(turn.sent);
  // §3.3.1: a rejected task is the agent refusing the message, as much as an error is.
  const refused = turn.refused ?? (turn.state === TaskState.REJECTED ? "the agent rejected the task" : undefined);
  if (refused) {
    sent.classList.add("refused");
    sent.append(h("p", { class: "refusal", role: "note" }, h("strong", {}, "Refused: "), refused));
  }
  return h(
    "section",
    { class: "turn", "data-turn": n, "aria-label": `Turn ${n}` },
    sent,
    turn.answers.map((a) => ("artifactId" in a ? renderArtifact(a, turn.updates.get(a.artifactId)) : renderMessage(a))),
    turn.state !== undefined ? h("p", { class: "turn-state" }, turn.taskId ? `Task ${turn.taskId} ` : "", stateBadge(turn.state)) : null,
  );
}
