import type Database from "better-sqlite3";
import { toBinary } from "@bufbuild/protobuf";
import { ArtifactSchema, PartSchema, type Artifact } from "../../../gen/a2a/v1/a2a_pb.js";
import type { ArtifactChange } from "../task-store.js";
import { artifactHead, decode } from "./row-codecs.js";

/** An artifact change of one task, and where a new artifact goes among its others. */
export interface ArtifactWrite {
  readonly pk: number;
  readonly change: ArtifactChange;
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
  private readonly headsStmt: Database.Statement<[number], { artifact_id: string; head: Buffer }>;
  private readonly partsStmt: Database.Statement<[number], { artifact_id: string; part: Buffer }>;

  constructor(db: Database.Database) {
    this.headStmt = db.prepare(`SELECT part_count, sealed FROM artifacts WHERE task_pk = ? AND artifact_id = ?`);
    this.insertStmt = db.prepare(`INSERT INTO artifacts (task_pk, artifact_id, ord, head, part_count, sealed) VALUES (?, ?, ?, ?, ?, ?)
                                  ON CONFLICT (task_pk, artifact_id) DO NOTHING`);
    this.replaceStmt = db.prepare(`UPDATE artifacts SET head = ?, part_count = ?, sealed = ? WHERE task_pk = ? AND artifact_id = ?`);
    this.growStmt = db.prepare(`UPDATE artifacts SET part_count = part_count + ?, sealed = MAX(sealed, ?) WHERE task_pk = ? AND artifact_id = ?`);
    this.deletePartsStmt = db.prepare(`DELETE FROM artifact_parts WHERE task_pk = ? AND artifact_id = ?`);
    this.insertPartStmt = db.prepare(`INSERT INTO artifact_parts (task_pk, artifact_id, idx, part) VALUES (?, ?, ?, ?)`);
    this.headsStmt = db.prepare(`SELECT artifact_id, head FROM artifacts WHERE task_pk = ? ORDER BY ord`);
    this.partsStmt = db.prepare(`SELECT artifact_id, part FROM artifact_parts WHERE task_pk = ? ORDER BY artifact_id, idx`);
  }

  /** Whether the artifact is sealed by a lastChunk; undefined when the task has no such artifact. */
  sealed(pk: number, artifactId: string): boolean | undefined {
    const a = this.headStmt.get(pk, artifactId);
    return a ? a.sealed === 1 : undefined;
  }

  /** Applies a change: a new artifact, a replacement (§4.2.2: append false) or appended parts. True when the artifact is new. */
  apply(write: ArtifactWrite): boolean {
    const { pk, change } = write;
    const { artifact, append, lastChunk } = change;
    const id = artifact.artifactId;
    const sealed = lastChunk ? 1 : 0;
    let first = 0;
    let created: boolean;
    if (!append) {
      // A new artifact is the common case: one INSERT tells it from a replacement.
      const head = artifactHead(artifact);
      created = this.insertStmt.run(pk, id, write.ord, head, artifact.parts.length, sealed).changes > 0;
      if (!created) {
        // §4.2.2: append false replaces the artifact.
        this.deletePartsStmt.run(pk, id);
        this.replaceStmt.run(head, artifact.parts.length, sealed, pk, id);
      }
    } else {
      const existing = this.headStmt.get(pk, id);
      created = !existing;
      if (existing) {
        first = existing.part_count;
        this.growStmt.run(artifact.parts.length, sealed, pk, id);
      } else {
        this.insertStmt.run(pk, id, write.ord, artifactHead(artifact), artifact.parts.length, sealed);
      }
    }
    artifact.parts.forEach((part, i) => this.insertPartStmt.run(pk, id, first + i, toBinary(PartSchema, part)));
    return created;
  }

  /** A task's artifacts in the order they first appeared, with their parts. */
  read(pk: number): Artifact[] {
    const heads = this.headsStmt.all(pk);
    if (heads.length === 0) return [];
    const byId = new Map<string, Artifact>();
    const out = heads.map((h) => {
      const a = decode(ArtifactSchema, h.head);
      byId.set(h.artifact_id, a);
      return a;
    });
    for (const p of this.partsStmt.all(pk)) byId.get(p.artifact_id)?.parts.push(decode(PartSchema, p.part));
    return out;
  }
}
