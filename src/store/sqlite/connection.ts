import Database from "better-sqlite3";
import { mkdirSync } from "node:fs";
import { dirname } from "node:path";
import { migrate } from "./migrations.js";

/** Where the database lives and how long a writer waits for another connection's lock. */
export interface ConnectionOptions {
  /** Database file path, or ":memory:". */
  readonly filename: string;
  /** How long a writer waits for a lock held by another connection (ms). */
  readonly busyTimeoutMs?: number;
}

/** Opens the database file (creating its folder), sets the pragmas the store relies on and brings the schema up to date. */
export function openDatabase(options: ConnectionOptions): Database.Database {
  if (options.filename !== ":memory:") mkdirSync(dirname(options.filename), { recursive: true });
  const db = new Database(options.filename);
  // Pages freed by retention go back to the file system in small steps
  // (sqlite-retention.ts). Only a database still empty takes this: an
  // existing one would need a VACUUM (a full rewrite), which is not done here.
  db.pragma("auto_vacuum = INCREMENTAL");
  db.pragma("journal_mode = WAL");
  // WAL + NORMAL: a committed transaction survives a process crash; only an
  // OS crash can lose the last few, which is the trade SQLite documents.
  db.pragma("synchronous = NORMAL");
  db.pragma(`busy_timeout = ${options.busyTimeoutMs ?? 5000}`);
  db.pragma("foreign_keys = OFF");
  // A checkpoint syncs the disk and runs inline on the commit that crosses
  // the threshold: fewer, larger ones (16 MiB of WAL) keep that off most commits.
  db.pragma("wal_autocheckpoint = 4000");
  migrate(db);
  return db;
}
