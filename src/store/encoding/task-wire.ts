import { create, toBinary } from "@bufbuild/protobuf";
import { ArtifactSchema, TaskSchema } from "../../../gen/a2a/v1/a2a_pb.js";
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

const LENGTH_DELIMITED = 2;
const tagOf = (field: number): number => field * 8 + LENGTH_DELIMITED;

const TAG = {
  id: tagOf(fieldNo(TaskSchema, "id")),
  contextId: tagOf(fieldNo(TaskSchema, "contextId")),
  status: tagOf(fieldNo(TaskSchema, "status")),
  artifact: tagOf(fieldNo(TaskSchema, "artifacts")),
  history: tagOf(fieldNo(TaskSchema, "history")),
};
const PARTS_FIELD = fieldNo(ArtifactSchema, "parts");
const PART_TAG = tagOf(PARTS_FIELD);

function varintSize(n: number): number {
  let size = 1;
  while (n >= 0x80) {
    n = Math.floor(n / 0x80);
    size++;
  }
  return size;
}

/** A length-delimited field's size: its tag, its length and its value. */
function fieldSize(tag: number, length: number): number {
  return varintSize(tag) + varintSize(length) + length;
}

/** Writes into one buffer sized beforehand, so a task costs one allocation and each piece one copy. */
class WireWriter {
  private at = 0;

  constructor(readonly out: Buffer) {}

  varint(n: number): void {
    while (n >= 0x80) {
      this.out[this.at++] = (n % 0x80) | 0x80;
      n = Math.floor(n / 0x80);
    }
    this.out[this.at++] = n;
  }

  bytes(tag: number, value: Uint8Array): void {
    this.varint(tag);
    this.varint(value.length);
    this.raw(value);
  }

  raw(value: Uint8Array): void {
    this.out.set(value, this.at);
    this.at += value.length;
  }

  string(tag: number, value: string, length: number): void {
    this.varint(tag);
    this.varint(length);
    this.at += this.out.write(value, this.at, "utf8");
  }
}

function artifactSize(a: ArtifactPieces): number {
  let size = a.head.length;
  for (const p of a.parts) size += fieldSize(PART_TAG, p.length);
  return size;
}

/**
 * The Task in protobuf binary, put together from the bytes the store
 * already holds, the same to the byte as toBinary of the Task they decode
 * to: fields in number order, each artifact's parts at their place in its
 * head. Why: a task read back was decoded piece by piece into a Task and,
 * on gRPC, encoded again whole for the answer; that round trip and its
 * buffers cost a gRPC SendMessage ~4% of the hub's CPU
 * (docs/hot-path-objects.md). Reads that need the object decode these
 * bytes once.
 */
export function taskWire(t: TaskPieces): Buffer {
  const idLength = Buffer.byteLength(t.id);
  const contextLength = Buffer.byteLength(t.contextId);
  // Struct fields are rare on a task; their encoding is protobuf-es's own (field 6 is the last one written).
  const metadata = t.metadata === null ? undefined : toBinary(TaskSchema, create(TaskSchema, { metadata: decodeMetadata(t.metadata) }));
  let size = fieldSize(TAG.status, t.status.length) + (metadata?.length ?? 0);
  if (idLength > 0) size += fieldSize(TAG.id, idLength);
  if (contextLength > 0) size += fieldSize(TAG.contextId, contextLength);
  if (t.artifacts) for (const a of t.artifacts) size += fieldSize(TAG.artifact, artifactSize(a));
  if (t.history) for (const m of t.history) size += fieldSize(TAG.history, m.length);
  const w = new WireWriter(Buffer.allocUnsafe(size));
  if (idLength > 0) w.string(TAG.id, t.id, idLength);
  if (contextLength > 0) w.string(TAG.contextId, t.contextId, contextLength);
  w.bytes(TAG.status, t.status);
  if (t.artifacts) {
    for (const a of t.artifacts) {
      w.varint(TAG.artifact);
      w.varint(artifactSize(a));
      const place = placeOf(a.head, PARTS_FIELD);
      w.raw(a.head.subarray(0, place));
      for (const p of a.parts) w.bytes(PART_TAG, p);
      w.raw(a.head.subarray(place));
    }
  }
  if (t.history) for (const m of t.history) w.bytes(TAG.history, m);
  if (metadata) w.raw(metadata);
  return w.out;
}
