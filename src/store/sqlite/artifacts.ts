import type Database from "better-sqlite3";
import { ArtifactSchema, PartSchema, type Artifact } from "../../../gen/a2a/v1/a2a_pb.js";
import type { ArtifactChange } from "../task-store.js";
import { decode } from "../encoding/index.js";

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
}

/**
 * The `artifacts` and `artifact_parts` tables: an artifact is a head row
 * (the artifact without its parts, its position and whether a lastChunk
 * sealed it) plus one row per part, so appending a chunk adds rows and
 * never rewrites the artifact.
 */
export class TaskArtifacts {
  private readonly headStmt: Database.Statement<[number, string], { part_count: number; sealed: number }>;
  private readonly insertStmt: Database.Statement<[number, string, number, Uint8Array, number, number]>;
  private readonly replaceStmt: Database.Statement<[Uint8Array, number, number, number, string]>;
  private readonly growStmt: Database.Statement<[number, number, number, string]>;
  private readonly deletePartsStmt: Database.Statement<[number, string]>;
  private readonly insertPartStmt: Database.Statement<[number, string, number, Uint8Array]>;
  private readonly readStmt: Database.Statement<[{ pk: number }], { artifact_id: string; idx: number; ord: number; bytes: Buffer }>;

  constructor(db: Database.Database) {
    this.headStmt = db.prepare(`SELECT part_count, sealed FROM artifacts WHERE task_pk = ? AND artifact_id = ?`);
    this.insertStmt = db.prepare(`INSERT INTO artifacts (task_pk, artifact_id, ord, head, part_count, sealed) VALUES (?, ?, ?, ?, ?, ?)
                                  ON CONFLICT (task_pk, artifact_id) DO NOTHING`);
    this.replaceStmt = db.prepare(`UPDATE artifacts SET head = ?, part_count = ?, sealed = ? WHERE task_pk = ? AND artifact_id = ?`);
    this.growStmt = db.prepare(`UPDATE artifacts SET part_count = part_count + ?, sealed = MAX(sealed, ?) WHERE task_pk = ? AND artifact_id = ?`);
    this.deletePartsStmt = db.prepare(`DELETE FROM artifact_parts WHERE task_pk = ? AND artifact_id = ?`);
    this.insertPartStmt = db.prepare(`INSERT INTO artifact_parts (task_pk, artifact_id, idx, part) VALUES (?, ?, ?, ?)`);
    // One statement for heads and parts: both primary keys deliver (artifact_id, idx)
    // order, so SQLite merges them without sorting, each head (idx -1) before its parts.
    this.readStmt = db.prepare(`SELECT artifact_id, -1 AS idx, ord, head AS bytes FROM artifacts WHERE task_pk = @pk
                                UNION ALL
                                SELECT artifact_id, idx, 0, part FROM artifact_parts WHERE task_pk = @pk
                                ORDER BY artifact_id, idx`);
  }

  /** Whether the artifact is sealed by a lastChunk; undefined when the task has no such artifact. */
  sealed(pk: number, artifactId: string): boolean | undefined {
    const a = this.headStmt.get(pk, artifactId);
    return a ? a.sealed === 1 : undefined;
  }

  /** Applies a change: a new artifact, a replacement (§4.2.2: append false) or appended parts. True when the artifact is new. */
  apply(write: ArtifactWrite): boolean {
    const { pk, change, head, parts } = write;
    const { artifact, append, lastChunk } = change;
    const id = artifact.artifactId;
    const sealed = lastChunk ? 1 : 0;
    let first = 0;
    let created: boolean;
    if (!append) {
      // A new artifact is the common case: one INSERT tells it from a replacement.
      created = this.insertStmt.run(pk, id, write.ord, head, parts.length, sealed).changes > 0;
      if (!created) {
        // §4.2.2: append false replaces the artifact.
        this.deletePartsStmt.run(pk, id);
        this.replaceStmt.run(head, parts.length, sealed, pk, id);
      }
    } else {
      const existing = this.headStmt.get(pk, id);
      created = !existing;
      if (existing) {
        first = existing.part_count;
        this.growStmt.run(parts.length, sealed, pk, id);
      } else {
        this.insertStmt.run(pk, id, write.ord, head, parts.length, sealed);
      }
    }
    parts.forEach((part, i) => this.insertPartStmt.run(pk, id, first + i, part));
    return created;
  }

  /** A task's artifacts in the order they first appeared, with their parts. */
  read(pk: number): Artifact[] {
    const artifacts: Array<{ ord: number; artifact: Artifact }> = [];
    let current: { id: string; artifact: Artifact } | undefined;
    for (const row of this.readStmt.all({ pk })) {
      if (row.idx < 0) {
        current = { id: row.artifact_id, artifact: decode(ArtifactSchema, row.bytes) };
        artifacts.push({ ord: row.ord, artifact: current.artifact });
      } else if (current?.id === row.artifact_id) {
        current.artifact.parts.push(decode(PartSchema, row.bytes));
      }
    }
    if (artifacts.length > 1) artifacts.sort((a, b) => a.ord - b.ord);
    return artifacts.map((a) => a.artifact);
  }
}
