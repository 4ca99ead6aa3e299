import type Database from "better-sqlite3";
import { expectRow } from "./row-codecs.js";

/**
 * `PRAGMA data_version`: it moves when another connection has committed to
 * the file since this one last asked (another hub given the same data
 * directory, a tool), never for this connection's own commits. What the
 * store holds in memory of the file (task rows, the next rowid, the write
 * order) was read from the file as it was, and is read again when it moved.
 */
export class DataVersion {
  private readonly stmt: Database.Statement<[], number>;
  private seen: number;

  constructor(db: Database.Database) {
    this.stmt = db.prepare<[], number>("PRAGMA data_version").pluck();
    this.seen = this.read();
  }

  private read(): number {
    return expectRow(this.stmt.get(), "PRAGMA data_version");
  }

  /** Whether another connection has committed since the last call. */
  moved(): boolean {
    const now = this.read();
    if (now === this.seen) return false;
    this.seen = now;
    return true;
  }
}
