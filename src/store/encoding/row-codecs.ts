import { fromBinary, toBinary, type DescMessage, type MessageShape } from "@bufbuild/protobuf";
import { timestampMs } from "@bufbuild/protobuf/wkt";
import { ArtifactSchema, type Artifact, type Task, type TaskStatus } from "../../../gen/a2a/v1/a2a_pb.js";

/**
 * Reads a row back. The default recursion limit (100 levels) is below what a
 * valid request can nest inside a task (a data part 48 JSON levels deep is
 * ~100 message levels under Task); the store reads only what it wrote, so
 * its rows are decoded with room to spare, or one stored message would make
 * the task and every listing of its tenant unreadable.
 */
export function decode<Desc extends DescMessage>(schema: Desc, bytes: Uint8Array): MessageShape<Desc> {
  return fromBinary(schema, bytes, { recursionLimit: 1_000 });
}

/** The instant a status took effect (what ListTasks orders and filters by); now when the status has no timestamp. */
export function statusMs(status: TaskStatus): number {
  return status.timestamp ? timestampMs(status.timestamp) : Date.now();
}

/** An artifact without its parts: what the `artifacts.head` column holds (parts have rows of their own). */
export function artifactHead(artifact: Artifact): Uint8Array {
  return toBinary(ArtifactSchema, { ...artifact, parts: [] });
}

/** Task metadata as the `tasks.metadata` column holds it: JSON text, or NULL when absent. */
export function encodeMetadata(metadata: Task["metadata"]): string | null {
  return metadata ? JSON.stringify(metadata) : null;
}

export function decodeMetadata(text: string | null): Task["metadata"] {
  return text ? (JSON.parse(text) as Task["metadata"]) : undefined;
}

/** The row a statement must return (an UPDATE … RETURNING of a row that exists); a missing one is a broken invariant, said plainly. */
export function expectRow<Row>(row: Row | undefined, what: string): Row {
  if (row === undefined) throw new Error(`store: ${what} returned no row`);
  return row;
}
