import {
  ArtifactSchema,
  MessageSchema,
  PartSchema,
  StreamResponseSchema,
  TaskArtifactUpdateEventSchema,
  TaskSchema,
  TaskStatusSchema,
  TaskStatusUpdateEventSchema,
  type Artifact,
  type Message,
  type StreamResponse,
  type TaskStatus,
} from "../../../gen/a2a/v1/a2a_pb.js";
import { fieldNo } from "./field-numbers.js";
import { encodeMessage } from "./message-encoder.js";
import { artifactHead } from "./row-codecs.js";
import { fieldValue, fieldValues, withoutField } from "./wire-scan.js";

/**
 * An event is encoded once. The rows written beside it (a task's status,
 * its history messages, an artifact's head and parts) are the same
 * messages the event carries, so their bytes are sliced from the event's
 * own: a protobuf message field is its encoded message, length-prefixed.
 * Only when the event does not carry the very objects being stored (same
 * references) is a row encoded on its own.
 */

const F = {
  task: fieldNo(StreamResponseSchema, "task"),
  statusUpdate: fieldNo(StreamResponseSchema, "statusUpdate"),
  artifactUpdate: fieldNo(StreamResponseSchema, "artifactUpdate"),
  taskStatus: fieldNo(TaskSchema, "status"),
  taskHistory: fieldNo(TaskSchema, "history"),
  statusMessage: fieldNo(TaskStatusSchema, "message"),
  updateStatus: fieldNo(TaskStatusUpdateEventSchema, "status"),
  updateArtifact: fieldNo(TaskArtifactUpdateEventSchema, "artifact"),
  artifactParts: fieldNo(ArtifactSchema, "parts"),
};

/** A copy: a row held in memory must not keep the whole event's buffer alive (a Buffer's slice() would be a view). */
function own(view: Uint8Array): Uint8Array {
  const copy = new Uint8Array(view.length);
  copy.set(view);
  return copy;
}

function same<T>(a: readonly T[], b: readonly T[]): boolean {
  return a.length === b.length && a.every((x, i) => x === b[i]);
}

/** A new task's creation event (a Task), its status and its first history messages. */
export function creationRows(event: StreamResponse, status: TaskStatus, history: readonly Message[]): { event: Uint8Array; status: Uint8Array; history: Uint8Array[] } {
  const bytes = encodeMessage(StreamResponseSchema, event);
  const p = event.payload;
  if (p.case === "task" && p.value.status === status && same(p.value.history, history)) {
    const task = fieldValue(bytes, F.task);
    const s = task && fieldValue(task, F.taskStatus);
    const h = task && fieldValues(task, F.taskHistory);
    if (s && h && h.length === history.length) return { event: bytes, status: own(s), history: h };
  }
  return { event: bytes, status: encodeMessage(TaskStatusSchema, status), history: history.map((m) => encodeMessage(MessageSchema, m)) };
}

/** A status update event, the status it carries, and the status's message when it has one (it joins the history). */
export function statusRows(event: StreamResponse, status: TaskStatus): { event: Uint8Array; status: Uint8Array; message?: Uint8Array } {
  const bytes = encodeMessage(StreamResponseSchema, event);
  const p = event.payload;
  if (p.case === "statusUpdate" && p.value.status === status) {
    const update = fieldValue(bytes, F.statusUpdate);
    const s = update && fieldValue(update, F.updateStatus);
    const message = s && status.message ? fieldValue(s, F.statusMessage) : undefined;
    if (s && (message || !status.message)) return { event: bytes, status: own(s), message };
  }
  return { event: bytes, status: encodeMessage(TaskStatusSchema, status), message: status.message && encodeMessage(MessageSchema, status.message) };
}

/** An artifact update event, and the artifact's head (without parts) and parts it carries. */
export function artifactRows(event: StreamResponse, artifact: Artifact): { event: Uint8Array; head: Uint8Array; parts: Uint8Array[] } {
  const bytes = encodeMessage(StreamResponseSchema, event);
  const p = event.payload;
  if (p.case === "artifactUpdate" && p.value.artifact === artifact) {
    const update = fieldValue(bytes, F.artifactUpdate);
    const a = update && fieldValue(update, F.updateArtifact);
    const parts = a && fieldValues(a, F.artifactParts);
    if (a && parts && parts.length === artifact.parts.length) return { event: bytes, head: withoutField(a, F.artifactParts), parts };
  }
  return { event: bytes, head: artifactHead(artifact), parts: artifact.parts.map((part) => encodeMessage(PartSchema, part)) };
}
