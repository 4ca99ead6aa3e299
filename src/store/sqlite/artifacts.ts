import type Database from "better-sqlite3";
import type { ArtifactChange } from "../task-store.js";
import { PackedRuns, unpackRows, type ArtifactPieces, type PackedRun } from "../encoding/index.js";

/** What the store keeps in memory of one artifact: enough to append to it or refuse an append. */
export interface ArtifactHead {
  /** Its parts so far: the index the next appended part gets. */
  readonly parts: number;
  /** A lastChunk sealed it (§4.2.2). */
  readonly sealed: boolean;
}

/** An artifact change of one task, encoded, and where a new artifact goes among its others. */
export interface ArtifactWrite {
  readonly pk: number;
  readonly change: ArtifactChange;
  /** The artifact without its parts, encoded. */
  readonly head: Uint8Array;
  /** Its parts, encoded, in order. */
  readonly parts: readonly Uint8Array[];
  /** Its position among the task's artifacts, if it is new: one past the last. */
  readonly ord: number;
  /** The artifact as it stands, from the task's heads; undefined when the task has none by that id. */
  readonly before: ArtifactHead | undefined;
}

/**
 * The `artifacts` and `artifact_parts` tables: an artifact is a head row
 * (the artifact without its parts, its position, its part count and
 * whether a lastChunk sealed it) plus its parts, so appending a chunk adds
 * rows and never rewrites the artifact. The parts a transaction adds to an
 * artifact are written as one row when it ends (`flush`), packed
 * (encoding/packed-rows.ts): a row holds the `n` parts from its `idx` on.
 *
 * The heads of a task are read once and then kept with its record
 * (`heads`), so that an append (a streaming agent's every chunk) needs no
 * read: the engine's sealed check and the next part index come from
 * memory. An appended chunk's new part count is written once per
 * transaction (`flush`), however many chunks it took, as the task row is.
 */
export class TaskArtifacts {
  private readonly headsStmt: Database.Statement<[number], { artifact_id: string; part_count: number; sealed: number }>;
  private readonly insertStmt: Database.Statement<[number, string, number, Uint8Array, number, number]>;
  private readonly replaceStmt: Database.Statement<[Uint8Array, number, number, number, string]>;
  private readonly growStmt: Database.Statement<[number, number, number, string]>;
  private readonly deletePartsStmt: Database.Statement<[number, string]>;
  private readonly insertPartsStmt: Database.Statement<[number, string, number, number, Uint8Array]>;
  private readonly readStmt: Database.Statement<[{ pk: number }], { artifact_id: string; idx: number; ord: number; n: number; bytes: Buffer }>;
  /** Appended artifacts whose head row is behind: "pk id" → the head to write. */
  private readonly behind = new Map<string, { readonly pk: number; readonly id: string; head: ArtifactHead }>();
  /** Parts added in this transaction and not yet written: "pk id" → the run of indexes run.first on. */
  private readonly unwritten = new PackedRuns<string>();

  constructor(db: Database.Database) {
    this.headsStmt = db.prepare(`SELECT artifact_id, part_count, sealed FROM artifacts WHERE task_pk = ?`);
    this.insertStmt = db.prepare(`INSERT INTO artifacts (task_pk, artifact_id, ord, head, part_count, sealed) VALUES (?, ?, ?, ?, ?, ?)`);
    this.replaceStmt = db.prepare(`UPDATE artifacts SET head = ?, part_count = ?, sealed = ? WHERE task_pk = ? AND artifact_id = ?`);
    this.growStmt = db.prepare(`UPDATE artifacts SET part_count = ?, sealed = ? WHERE task_pk = ? AND artifact_id = ?`);
    this.deletePartsStmt = db.prepare(`DELETE FROM artifact_parts WHERE task_pk = ? AND artifact_id = ?`);
    this.insertPartsStmt = db.prepare(`INSERT INTO artifact_parts (task_pk, artifact_id, idx, n, part) VALUES (?, ?, ?, ?, ?)`);
    // One statement for heads and parts: both primary keys deliver (artifact_id, idx)
    // order, so SQLite merges them without sorting, each head (idx -1) before its parts.
    this.readStmt = db.prepare(`SELECT artifact_id, -1 AS idx, ord, 1 AS n, head AS bytes FROM artifacts WHERE task_pk = @pk
                                UNION ALL
                                SELECT artifact_id, idx, 0, n, part FROM artifact_parts WHERE task_pk = @pk
                                ORDER BY artifact_id, idx`);
  }

  /** The heads of a task's artifacts as stored (with what this transaction wrote). */
  heads(pk: number): Map<string, ArtifactHead> {
    const out = new Map<string, ArtifactHead>();
    for (const a of this.headsStmt.all(pk)) out.set(a.artifact_id, this.behind.get(`${pk} ${a.artifact_id}`)?.head ?? { parts: a.part_count, sealed: a.sealed === 1 });
    return out;
  }

  /**
   * Applies a change: a new artifact, a replacement (§4.2.2: append false)
   * or appended parts. Returns the artifact's head afterwards, for the
   * caller to keep once its whole write succeeded, and then to `grew`.
   * Its statements run first and its parts are held after them, so a
   * statement that fails leaves nothing held.
   */
  apply(write: ArtifactWrite): ArtifactHead {
    const { pk, change, head, parts, before } = write;
    const { artifact, append, lastChunk } = change;
    const id = artifact.artifactId;
    const sealed = lastChunk ? 1 : 0;
    const key = `${pk} ${id}`;
    let first = 0;
    if (!before) {
      this.insertStmt.run(pk, id, write.ord, head, parts.length, sealed);
    } else if (!append) {
      // §4.2.2: append false replaces the artifact, with the parts this transaction gave it.
      this.deletePartsStmt.run(pk, id);
      this.replaceStmt.run(head, parts.length, sealed, pk, id);
      this.behind.delete(key);
      this.unwritten.close(key);
    } else {
      first = before.parts;
    }
    if (parts.length > 0) this.hold(key, first, parts);
    // A replacement is sealed by its own lastChunk alone.
    return { parts: first + parts.length, sealed: lastChunk || (append && before !== undefined && before.sealed) };
  }

  /** Notes an append's new head, written at `flush`: only once its write succeeded, so a failed one leaves no trace. */
  grew(pk: number, id: string, head: ArtifactHead): void {
    const key = `${pk} ${id}`;
    const b = this.behind.get(key);
    if (b) b.head = head;
    else this.behind.set(key, { pk, id, head });
  }

  /** Statements `apply` runs for a change (the caller's savepoint is needed only past one). */
  static statements(change: ArtifactChange, before: ArtifactHead | undefined): number {
    return !before ? 1 : change.append ? 0 : 2;
  }

  private hold(key: string, first: number, parts: readonly Uint8Array[]): void {
    let run = this.unwritten.get(key);
    if (run && run.first + run.n !== first) {
      this.writeParts(key, run);
      this.unwritten.close(key);
      run = undefined;
    }
    run ??= this.unwritten.start(key, first);
    for (const part of parts) run.add(part);
  }

  private writeParts(key: string, run: PackedRun): void {
    const space = key.indexOf(" ");
    this.insertPartsStmt.run(Number(key.slice(0, space)), key.slice(space + 1), run.first, run.n, run.value());
  }

  /** Writes the parts held and the heads appends moved, each once; inside the transaction that made them. */
  flush(): void {
    if (this.unwritten.size > 0) {
      for (const [key, run] of this.unwritten.entries()) this.writeParts(key, run);
      this.unwritten.closeAll();
    }
    if (this.behind.size === 0) return;
    for (const { pk, id, head } of this.behind.values()) this.growStmt.run(head.parts, head.sealed ? 1 : 0, pk, id);
    this.behind.clear();
  }

  /** The transaction rolled back: what was behind was never stored. */
  forget(): void {
    this.behind.clear();
    this.unwritten.closeAll();
  }

  /** A task's artifacts in the order they first appeared, with their parts. */
  read(pk: number): ArtifactPieces[] {
    // Parts held for this task are written first (inside its transaction): the read then finds them.
    if (this.unwritten.size > 0) {
      const prefix = `${pk} `;
      for (const [key, run] of [...this.unwritten.entries()]) {
        if (!key.startsWith(prefix)) continue;
        this.writeParts(key, run);
        this.unwritten.close(key);
      }
    }
    const artifacts: Array<{ ord: number; head: Uint8Array; parts: Uint8Array[] }> = [];
    let current: { id: string; parts: Uint8Array[] } | undefined;
    for (const row of this.readStmt.all({ pk })) {
      if (row.idx < 0) {
        current = { id: row.artifact_id, parts: [] };
        artifacts.push({ ord: row.ord, head: row.bytes, parts: current.parts });
      } else if (current?.id === row.artifact_id) {
        current.parts.push(...unpackRows(row.bytes, row.n));
      }
    }
    if (artifacts.length > 1) artifacts.sort((a, b) => a.ord - b.ord);
    return artifacts;
  }
}
