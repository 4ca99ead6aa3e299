import { toBinary, type DescMessage } from "@bufbuild/protobuf";
import { BinaryReader, WireType } from "@bufbuild/protobuf/wire";
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
import { artifactHead } from "./row-codecs.js";

/**
 * An event is encoded once. The rows written beside it (a task's status,
 * its history messages, an artifact's head and parts) are the same
 * messages the event carries, so their bytes are sliced from the event's
 * own: a protobuf message field is its encoded message, length-prefixed.
 * Only when the event does not carry the very objects being stored (same
 * references) is a row encoded on its own.
 */

/** A field's number, from the generated descriptor (never a copied constant). */
function fieldNo(schema: DescMessage, localName: string): number {
  const f = schema.fields.find((x) => x.localName === localName);
  if (!f) throw new Error(`store: ${schema.typeName} has no field ${localName}`);
  return f.number;
}

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

/** The encoded values of every occurrence of a length-delimited field, as views of `bytes`. */
function valuesOf(bytes: Uint8Array, field: number): Uint8Array[] {
  const out: Uint8Array[] = [];
  const r = new BinaryReader(bytes);
  while (r.pos < r.len) {
    const [no, type] = r.tag();
    if (no === field && type === WireType.LengthDelimited) out.push(r.bytes());
    else r.skip(type, no);
  }
  return out;
}

/** The encoded value of a singular message field (toBinary writes it once). */
function valueOf(bytes: Uint8Array, field: number): Uint8Array | undefined {
  const all = valuesOf(bytes, field);
  return all[all.length - 1];
}

/** The encoded message without any occurrence of `field`. */
function without(bytes: Uint8Array, field: number): Uint8Array {
  const kept: Uint8Array[] = [];
  const r = new BinaryReader(bytes);
  while (r.pos < r.len) {
    const start = r.pos;
    const [no, type] = r.tag();
    r.skip(type, no);
    if (no !== field) kept.push(bytes.subarray(start, r.pos));
  }
  return Buffer.concat(kept);
}

/** A copy: a row held in memory must not keep the whole event's buffer alive. */
function own(view: Uint8Array): Uint8Array {
  return view.slice();
}

function same<T>(a: readonly T[], b: readonly T[]): boolean {
  return a.length === b.length && a.every((x, i) => x === b[i]);
}

/** A new task's creation event (a Task), its status and its first history messages. */
export function creationRows(event: StreamResponse, status: TaskStatus, history: readonly Message[]): { event: Uint8Array; status: Uint8Array; history: Uint8Array[] } {
  const bytes = toBinary(StreamResponseSchema, event);
  const p = event.payload;
  if (p.case === "task" && p.value.status === status && same(p.value.history, history)) {
    const task = valueOf(bytes, F.task);
    const s = task && valueOf(task, F.taskStatus);
    const h = task && valuesOf(task, F.taskHistory);
    if (s && h && h.length === history.length) return { event: bytes, status: own(s), history: h };
  }
  return { event: bytes, status: toBinary(TaskStatusSchema, status), history: history.map((m) => toBinary(MessageSchema, m)) };
}

/** A status update event, the status it carries, and the status's message when it has one (it joins the history). */
export function statusRows(event: StreamResponse, status: TaskStatus): { event: Uint8Array; status: Uint8Array; message?: Uint8Array } {
  const bytes = toBinary(StreamResponseSchema, event);
  const p = event.payload;
  if (p.case === "statusUpdate" && p.value.status === status) {
    const update = valueOf(bytes, F.statusUpdate);
    const s = update && valueOf(update, F.updateStatus);
    const message = s && status.message ? valueOf(s, F.statusMessage) : undefined;
    if (s && (message || !status.message)) return { event: bytes, status: own(s), message };
  }
  return { event: bytes, status: toBinary(TaskStatusSchema, status), message: status.message && toBinary(MessageSchema, status.message) };
}

/** An artifact update event, and the artifact's head (without parts) and parts it carries. */
export function artifactRows(event: StreamResponse, artifact: Artifact): { event: Uint8Array; head: Uint8Array; parts: Uint8Array[] } {
  const bytes = toBinary(StreamResponseSchema, event);
  const p = event.payload;
  if (p.case === "artifactUpdate" && p.value.artifact === artifact) {
    const update = valueOf(bytes, F.artifactUpdate);
    const a = update && valueOf(update, F.updateArtifact);
    const parts = a && valuesOf(a, F.artifactParts);
    if (a && parts && parts.length === artifact.parts.length) return { event: bytes, head: without(a, F.artifactParts), parts };
  }
  return { event: bytes, head: artifactHead(artifact), parts: artifact.parts.map((part) => toBinary(PartSchema, part)) };
}
