import Database from "better-sqlite3";
import { existsSync, renameSync, rmSync, statSync } from "node:fs";
import { join, resolve } from "node:path";
import { DATABASE_FILE } from "../store/index.js";

/** What a backup holds, as read back from the copy itself. */
export interface BackupReport {
  readonly file: string;
  readonly bytes: number;
  /** Rows per table of the copy. */
  readonly rows: Readonly<Record<string, number>>;
}

/** A backup or restore that could not be made or did not verify; nothing was left half-written. */
export class BackupError extends Error {
  override readonly name = "BackupError";
}

/**
 * Copies a data directory's SQLite database to `out` while a hub may be
 * serving from it: SQLite's online backup API (through better-sqlite3) reads
 * a consistent snapshot on its own read connection, which a writer neither
 * blocks nor is blocked by in WAL mode, and restarts a step that a commit
 * overtook. The copy is written beside `out`, verified, then renamed into
 * place, so `out` is either a verified backup or absent.
 */
export async function backupDataDir(dataDir: string, out: string): Promise<BackupReport> {
  const source = join(resolve(dataDir), DATABASE_FILE);
  if (!existsSync(source)) throw new BackupError(`no hub database at ${source}: --data names a hub's data directory`);
  const target = resolve(out);
  const partial = `${target}.partial`;
  rmSync(partial, { force: true });
  const db = new Database(source, { readonly: true, fileMustExist: true });
  try {
    // After a first step of 100 pages, the rest in one step: a commit that lands between steps restarts the copy once.
    await db.backup(partial, { progress: ({ remainingPages }) => Math.max(remainingPages, 100) });
  } catch (e) {
    rmSync(partial, { force: true });
    throw new BackupError(`backup of ${source} failed: ${e instanceof Error ? e.message : String(e)}`);
  } finally {
    db.close();
  }
  try {
    const rows = verifyDatabase(partial);
    renameSync(partial, target);
    return { file: target, bytes: statSync(target).size, rows };
  } catch (e) {
    rmSync(partial, { force: true });
    throw e;
  }
}

/**
 * Checks a database file is a whole a2a-hub database: SQLite's
 * integrity_check, the schema's tables present, and the per-state task
 * counters equal to the tasks themselves (they are written in the same
 * transaction, so a consistent snapshot always agrees). Returns the rows per table.
 */
export function verifyDatabase(file: string): Record<string, number> {
  let db: Database.Database;
  try {
    db = new Database(file, { readonly: true, fileMustExist: true });
  } catch (e) {
    throw new BackupError(`${file} is not a readable SQLite database: ${e instanceof Error ? e.message : String(e)}`);
  }
  try {
    const integrity = db.pragma("integrity_check", { simple: true });
    if (integrity !== "ok") throw new BackupError(`${file} failed integrity_check: ${String(integrity)}`);
    const tables = (db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name").pluck().all() as string[]);
    if (!tables.includes("tasks") || !tables.includes("task_counts")) throw new BackupError(`${file} is not an a2a-hub database (no tasks table)`);
    const rows: Record<string, number> = {};
    for (const table of tables) rows[table] = db.prepare(`SELECT count(*) FROM "${table.replaceAll('"', '""')}"`).pluck().get() as number;
    const counted = (db.prepare("SELECT coalesce(sum(n), 0) FROM task_counts").pluck().get() as number) ?? 0;
    if (counted !== rows.tasks) throw new BackupError(`${file}: the task counters say ${counted} tasks, the tasks table holds ${rows.tasks}`);
    return rows;
  } catch (e) {
    if (e instanceof BackupError) throw e;
    throw new BackupError(`${file} could not be verified: ${e instanceof Error ? e.message : String(e)}`);
  } finally {
    db.close();
  }
}
