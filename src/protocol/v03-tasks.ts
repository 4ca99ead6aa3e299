/** The v0.3 dialect of tasks, statuses, artifacts and the stream and send results, both directions. */
import { TaskState, type Artifact, type Message, type SendMessageResponse, type StreamResponse, type Task, type TaskArtifactUpdateEvent, type TaskStatus, type TaskStatusUpdateEvent } from "../../gen/a2a/v1/a2a_pb.js";
import { isSettled } from "./task-state.js";
import type { V03Artifact, V03ArtifactUpdate, V03Message, V03StatusUpdate, V03StreamResult, V03Task, V03TaskStatus } from "./v03-types.js";
import { compact, isObject, nonEmpty, timestampJson } from "./v03-json.js";
import { v03ToV1Message, v03ToV1Part, v03ToV1State, v1ToV03Message, v1ToV03Part, v1ToV03State } from "./v03-parts.js";

/** v0.3 TaskStatus → v1.0 TaskStatus. */
export function v03ToV1Status(status: unknown): unknown {
  if (!isObject(status)) return status;
  return compact({ state: v03ToV1State(status.state), message: v03ToV1Message(status.message), timestamp: status.timestamp });
}

/** v0.3 Artifact → v1.0 Artifact. */
export function v03ToV1Artifact(artifact: unknown): unknown {
  if (!isObject(artifact)) return artifact;
  return compact({ ...artifact, parts: Array.isArray(artifact.parts) ? artifact.parts.map(v03ToV1Part) : artifact.parts });
}

/** v0.3 Task → v1.0 Task. */
export function v03ToV1Task(task: unknown): unknown {
  if (!isObject(task)) return task;
  return compact({
    id: task.id,
    contextId: task.contextId,
    status: v03ToV1Status(task.status),
    artifacts: Array.isArray(task.artifacts) ? task.artifacts.map(v03ToV1Artifact) : task.artifacts,
    history: Array.isArray(task.history) ? task.history.map(v03ToV1Message) : task.history,
    metadata: task.metadata,
  });
}

/** v0.3 status-update → v1.0 TaskStatusUpdateEvent (v1.0 has no `final`: the stream's end says it). */
export function v03ToV1StatusUpdate(event: unknown): unknown {
  if (!isObject(event)) return event;
  return compact({ taskId: event.taskId, contextId: event.contextId, status: v03ToV1Status(event.status), metadata: event.metadata });
}

/** v0.3 artifact-update → v1.0 TaskArtifactUpdateEvent. */
export function v03ToV1ArtifactUpdate(event: unknown): unknown {
  if (!isObject(event)) return event;
  return compact({
    taskId: event.taskId,
    contextId: event.contextId,
    artifact: v03ToV1Artifact(event.artifact),
    append: event.append,
    lastChunk: event.lastChunk,
    metadata: event.metadata,
  });
}

/** A kind-tagged v0.3 streaming result → a v1.0 StreamResponse. */
export function v03ToV1StreamResult(result: unknown): unknown {
  if (!isObject(result)) return result;
  switch (result.kind) {
    case "task":
      return { task: v03ToV1Task(result) };
    case "message":
      return { message: v03ToV1Message(result) };
    case "status-update":
      return { statusUpdate: v03ToV1StatusUpdate(result) };
    case "artifact-update":
      return { artifactUpdate: v03ToV1ArtifactUpdate(result) };
    default:
      return result;
  }
}

/** A v0.3 message/send result (Task or Message) → a v1.0 SendMessageResponse. */
export function v03ToV1SendResult(result: unknown): unknown {
  if (!isObject(result)) return result;
  if (result.kind === "task") return { task: v03ToV1Task(result) };
  if (result.kind === "message") return { message: v03ToV1Message(result) };
  return result;
}

/** TaskStatus → v0.3 TaskStatus. */
export function v1ToV03Status(status: TaskStatus | undefined): V03TaskStatus {
  if (!status) return { state: "unknown" };
  return compact({
    state: v1ToV03State(status.state),
    message: status.message ? v1ToV03Message(status.message) : undefined,
    timestamp: status.timestamp ? timestampJson(status.timestamp) : undefined,
  });
}

/** Artifact → v0.3 Artifact. */
export function v1ToV03Artifact(artifact: Artifact): V03Artifact {
  return compact({
    artifactId: artifact.artifactId,
    parts: artifact.parts.map(v1ToV03Part),
    name: artifact.name || undefined,
    description: artifact.description || undefined,
    extensions: nonEmpty(artifact.extensions),
    metadata: artifact.metadata,
  });
}

/** Task → v0.3 Task; empty artifacts and history stay absent, as in v1.0 (§3.1.4, §3.2.4). */
export function v1ToV03Task(task: Task): V03Task {
  return compact({
    kind: "task" as const,
    id: task.id,
    contextId: task.contextId,
    status: v1ToV03Status(task.status),
    artifacts: task.artifacts.length > 0 ? task.artifacts.map(v1ToV03Artifact) : undefined,
    history: task.history.length > 0 ? task.history.map(v1ToV03Message) : undefined,
    metadata: task.metadata,
  });
}

/**
 * TaskStatusUpdateEvent → v0.3 status-update. v0.3 marks the last event of
 * a stream with `final: true`; streams end once the task is terminal or
 * interrupted (§3.1.2, §3.2.2), so that is when an update is final.
 */
export function v1ToV03StatusUpdate(event: TaskStatusUpdateEvent): V03StatusUpdate {
  return compact({
    kind: "status-update" as const,
    taskId: event.taskId,
    contextId: event.contextId,
    status: v1ToV03Status(event.status),
    final: isSettled(event.status?.state ?? TaskState.UNSPECIFIED),
    metadata: event.metadata,
  });
}

/** TaskArtifactUpdateEvent → v0.3 artifact-update. */
export function v1ToV03ArtifactUpdate(event: TaskArtifactUpdateEvent): V03ArtifactUpdate {
  return compact({
    kind: "artifact-update" as const,
    taskId: event.taskId,
    contextId: event.contextId,
    artifact: event.artifact ? v1ToV03Artifact(event.artifact) : { artifactId: "", parts: [] },
    append: event.append || undefined,
    lastChunk: event.lastChunk || undefined,
    metadata: event.metadata,
  });
}

/** StreamResponse → the kind-tagged v0.3 streaming result. */
export function v1ToV03StreamResult(event: StreamResponse): V03StreamResult {
  const p = event.payload;
  switch (p.case) {
    case "task":
      return v1ToV03Task(p.value);
    case "message":
      return v1ToV03Message(p.value);
    case "statusUpdate":
      return v1ToV03StatusUpdate(p.value);
    case "artifactUpdate":
      return v1ToV03ArtifactUpdate(p.value);
    default:
      throw new Error("a StreamResponse without a payload");
  }
}

/** SendMessageResponse → the v0.3 message/send result: a Task or a Message. */
export function v1ToV03SendResult(response: SendMessageResponse): V03Task | V03Message {
  const p = response.payload;
  if (p.case === "task") return v1ToV03Task(p.value);
  if (p.case === "message") return v1ToV03Message(p.value);
  throw new Error("a SendMessageResponse without a payload");
}
