import { create, toBinary } from "@bufbuild/protobuf";
import { ArtifactSchema, TaskSchema } from "../../../gen/a2a/v1/a2a_pb.js";
import { ProtoWriter } from "../../codec/index.js";
import { fieldNo } from "./field-numbers.js";
import { decodeMetadata } from "./row-codecs.js";
import { placeOf } from "./wire-scan.js";

/** An artifact as the store holds it: its head (the artifact without parts) and its parts, each encoded. */
export interface ArtifactPieces {
  readonly head: Uint8Array;
  readonly parts: readonly Uint8Array[];
}

/** A task as the store holds it: the row's columns and the children's encoded rows. */
export interface TaskPieces {
  readonly id: string;
  readonly contextId: string;
  /** The TaskStatus, encoded. */
  readonly status: Uint8Array;
  /** Artifacts in the order they first appeared, or none. */
  readonly artifacts: readonly ArtifactPieces[] | undefined;
  /** Messages, oldest first, or none. */
  readonly history: readonly Uint8Array[] | undefined;
  /** The metadata column: JSON text, or null. */
  readonly metadata: string | null;
}

const FIELD = {
  id: fieldNo(TaskSchema, "id"),
  contextId: fieldNo(TaskSchema, "contextId"),
  status: fieldNo(TaskSchema, "status"),
  artifact: fieldNo(TaskSchema, "artifacts"),
  history: fieldNo(TaskSchema, "history"),
};
const PARTS_FIELD = fieldNo(ArtifactSchema, "parts");

/** Kept from task to task; taskWire calls nothing that writes into it. */
const writer = new ProtoWriter(16 * 1024);

/**
 * The Task in protobuf binary, put together from the bytes the store
 * already holds, the same to the byte as toBinary of the Task they decode
 * to: fields in number order, each artifact's parts at their place in its
 * head. Why: a task read back was decoded piece by piece into a Task and,
 * on gRPC, encoded again whole for the answer, a round trip and its
 * buffers per call (docs/hot-path-objects.md, docs/performance-notes.md).
 * Reads that need the object decode these
 * bytes once.
 */
export function taskWire(t: TaskPieces): Buffer {
  const w = writer;
  w.pos = 0;
  if (t.id !== "") w.utf8(FIELD.id, t.id);
  if (t.contextId !== "") w.utf8(FIELD.contextId, t.contextId);
  w.bytes(FIELD.status, t.status);
  if (t.artifacts) {
    for (const a of t.artifacts) {
      const at = w.open(FIELD.artifact);
      const place = placeOf(a.head, PARTS_FIELD);
      w.raw(a.head.subarray(0, place));
      for (const p of a.parts) w.bytes(PARTS_FIELD, p);
      w.raw(a.head.subarray(place));
      w.close(at);
    }
  }
  if (t.history) for (const m of t.history) w.bytes(FIELD.history, m);
  // Struct fields are rare on a task; their encoding is protobuf-es's own (field 6 is the last one written).
  if (t.metadata !== null) w.raw(toBinary(TaskSchema, create(TaskSchema, { metadata: decodeMetadata(t.metadata) })));
  return w.copyOut();
}
