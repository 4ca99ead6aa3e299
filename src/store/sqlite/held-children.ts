import type { ArtifactChange } from "../task-store.js";
import type { ArtifactPieces } from "../encoding/index.js";

/** An artifact as its rows hold it: the head (no parts) and the parts. */
interface HeldArtifact extends ArtifactPieces {
  readonly id: string;
  head: Uint8Array;
  parts: Uint8Array[];
}

/** An artifact change, encoded as the `artifacts` and `artifact_parts` rows take it. */
export interface ArtifactRowsChange {
  readonly change: ArtifactChange;
  readonly head: Uint8Array;
  readonly parts: readonly Uint8Array[];
}

/**
 * The `history`, `artifacts` and `artifact_parts` rows of a task this
 * process created, held beside its record in the same bytes the rows
 * hold. A blocking SendMessage answers with the task it just wrote
 * (§3.1.1); reading those rows back was two queries per answer. Reads
 * put the task together from these bytes exactly as from the rows
 * (encoding/task-wire.ts), so an answer is the same to the byte. Kept
 * true by the same rules as the record: it changes only after every
 * statement of a write succeeded, and is dropped with the record when a
 * transaction rolls back (task-records.ts).
 */
export class HeldChildren {
  /** The kept history, oldest first (history.ts drops the oldest beyond the bound alike). */
  private readonly history: Uint8Array[] = [];
  /** In the order they first appeared (their `ord`). */
  private readonly artifacts: HeldArtifact[] = [];
  private size = 0;

  constructor(private readonly maxMessages: number) {}

  /** Bytes held, for the records' bound. */
  get bytes(): number {
    return this.size;
  }

  addMessage(message: Uint8Array): void {
    this.history.push(message);
    this.size += message.length;
    while (this.history.length > this.maxMessages) this.size -= this.history.shift()!.length;
  }

  /** Mirrors TaskArtifacts.apply: a new artifact, a replacement (§4.2.2: append false) or appended parts under the first head. */
  applyArtifact(write: ArtifactRowsChange): void {
    const { change, head, parts } = write;
    const held = this.artifacts.find((a) => a.id === change.artifact.artifactId);
    if (!held) {
      this.artifacts.push({ id: change.artifact.artifactId, head, parts: [...parts] });
      this.size += bytesOf(head, parts);
    } else if (!change.append) {
      this.size += bytesOf(head, parts) - bytesOf(held.head, held.parts);
      held.head = head;
      held.parts = [...parts];
    } else {
      held.parts.push(...parts);
      this.size += bytesOf(undefined, parts);
    }
  }

  /** As TaskHistory.read: §3.2.4 undefined = the whole history, 0 = none, n = the n most recent, oldest first; encoded. */
  readHistory(historyLength: number | undefined): readonly Uint8Array[] | undefined {
    if (historyLength !== undefined && historyLength <= 0) return undefined;
    return historyLength === undefined ? this.history : this.history.slice(-historyLength);
  }

  /** As TaskArtifacts.read: the artifacts in the order they first appeared, each its head and parts, encoded. */
  readArtifacts(): readonly ArtifactPieces[] {
    return this.artifacts;
  }
}

function bytesOf(head: Uint8Array | undefined, parts: readonly Uint8Array[]): number {
  let n = head?.length ?? 0;
  for (const p of parts) n += p.length;
  return n;
}
